"""install writes only the hook events the installed Claude Code release knows."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from testing.cli import invoke

from arcguard.claude_settings import releases as cv
from arcguard.claude_settings import settings_files as cc
from arcguard.hooks import EVENTS


BASELINE = [e for e in EVENTS if e != "PostToolBatch"]


def with_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str | None) -> None:
    """Only a `claude` printing `version` on PATH (none at all for None)."""
    bin_dir = tmp_path / f"bin-{version}"
    bin_dir.mkdir()
    if version is not None:
        program = bin_dir / "claude"
        program.write_text(f"#!/bin/sh\necho '{version} (Claude Code)'\n")
        program.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))


def install(project: Path, *more: str) -> tuple[int, str, dict[str, object]]:
    result = invoke("install", "--scope", "project", "--project", str(project), *more)
    path = cc.settings_path("project", project, os.environ)
    value = json.loads(path.read_text()) if path.exists() else {}
    return result.exit_code, result.output, value


def test_install_leaves_out_an_event_the_detected_release_does_not_know(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 2.1.80 ignores a whole settings file naming PostToolBatch, deny rules included.
    with_claude(tmp_path, monkeypatch, "2.1.80")
    code, output, value = install(project)
    assert code == 0
    assert list(value["hooks"]) == BASELINE  # type: ignore[call-overload]
    assert (
        "PostToolBatch left out: Claude Code 2.1.80 does not know it; run `arcguard "
        "install` again after upgrading"
    ) in output


def test_claude_version_option_stands_in_for_a_missing_claude(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_claude(tmp_path, monkeypatch, None)
    code, output, value = install(project, "--claude-version", "2.1.80")
    assert code == 0 and list(value["hooks"]) == BASELINE  # type: ignore[call-overload]
    assert "Claude Code 2.1.80 does not know it" in output
    code, output, value = install(project, "--claude-version", "2.1.328")
    assert code == 0 and set(value["hooks"]) == set(EVENTS)  # type: ignore[call-overload]
    assert "left out" not in output


def test_an_unknown_version_installs_only_what_every_release_knows(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_claude(tmp_path, monkeypatch, None)
    code, output, value = install(project)
    assert code == 0 and list(value["hooks"]) == BASELINE  # type: ignore[call-overload]
    assert "Claude Code's version is unknown (`claude` is not on PATH)" in output
    assert "PostToolBatch left out" in output


def test_installing_for_an_older_release_takes_our_unknown_event_out(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_claude(tmp_path, monkeypatch, "2.1.328")
    assert "PostToolBatch" in install(project)[2]["hooks"]  # type: ignore[operator]
    code, _, value = install(project, "--claude-version", "2.1.80")
    assert code == 0 and "PostToolBatch" not in value["hooks"]  # type: ignore[operator]


def test_install_warns_when_the_users_own_entry_names_an_unknown_event(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = cc.settings_path("project", project, os.environ)
    path.parent.mkdir(parents=True)
    mine = {"hooks": [{"type": "command", "command": "my-batch-hook"}]}
    path.write_text(json.dumps({"hooks": {"PostToolBatch": [mine]}}))
    code, output, value = install(project, "--claude-version", "2.1.80")
    assert code == 0 and value["hooks"]["PostToolBatch"] == [mine]  # type: ignore[index]
    assert f"warning: {path} still names PostToolBatch" in output


def test_a_malformed_claude_version_is_a_usage_error(project: Path) -> None:
    result = invoke(
        "install", "--scope", "project", "--project", str(project), "--claude-version", "latest"
    )
    assert result.exit_code == 2 and "is not a version like 2.1.328" in result.output
    assert not cc.settings_path("project", project, os.environ).exists()


def test_the_version_table_has_one_boundary_per_event() -> None:
    assert set(cv.EVENT_SINCE) == set(EVENTS)
    assert [e for e, since in cv.EVENT_SINCE.items() if since] == ["PostToolBatch"]
    assert not cv.knows("PostToolBatch", (2, 1, 80))
    assert cv.knows("PostToolBatch", (2, 1, 150)) and cv.knows("StopFailure", (2, 1, 80))
    assert not cv.knows("PostToolBatch", None) and cv.knows("Notification", (1, 0, 0))
    assert cv.unknown_to((2, 1, 80), ["Stop", "PostToolBatch", "PostToolBatch"]) == [
        "PostToolBatch"
    ]
