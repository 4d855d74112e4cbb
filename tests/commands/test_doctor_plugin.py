"""doctor on an enabled plugin whose `arcguard` is not on PATH: a gap that says what the
user sees (the plugin's hooks do nothing) and how to fix it (no install scope for a plugin)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from arcguard.doctor import probes
from arcguard.doctor import wiring
from arcguard.doctor.reading import read_setup


def test_an_enabled_plugin_without_arcguard_on_path_is_a_gap_with_the_right_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    project = tmp_path / "project"
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"enabledPlugins": {"arcguard@arcguard": True}}))
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    environ = {**os.environ, "PATH": str(empty), "HOME": str(tmp_path / "home")}
    setup = read_setup(project, environ)
    [program] = probes.check_executables(setup)
    assert (program.status, program.hint) == ("gap", wiring.PLUGIN_HINT)
    assert program.detail == (
        "arcguard (plugin) is not on PATH: the plugin's hooks do nothing "
        "(each prompt says how to install it)"
    )
    [runs] = probes.check_runs(setup)
    assert runs.status == "gap" and runs.hint == wiring.PLUGIN_HINT
    assert "--scope plugin" not in runs.hint and "pip install arcguard" not in runs.hint
