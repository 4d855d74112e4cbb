"""What arcguard did, read back from the transcript Claude Code wrote: on the oldest and newest
supported releases and the pinned one, a session where arcguard continued a stall, denied a
repeat and paused a cycle is run with the real CLI, and `forensics` and `replay` must count each
decision in the form that release recorded it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use

from conftest import WINDOW_RELEASES
from conftest import ClaudeProject
from conftest import _run
from conftest import arcguard_settings_for
from conftest import arcguard_state
from conftest import install_autonomous_command
from conftest import log_kinds
from conftest import release_bin


NOOP = "No response requested."
RELEASES = {**WINDOW_RELEASES, "pinned": "2.1.328"}


def _binary(version: str, request: pytest.FixtureRequest) -> Path:
    if version == RELEASES["pinned"]:
        pinned: Path = request.getfixturevalue("claude_bin")  # honours ARCGUARD_CLAUDE_BIN
        return pinned
    path = release_bin(version)
    if not (path.is_file() and os.access(path, os.X_OK)):
        if os.environ.get("CI"):
            pytest.fail(f"Claude Code {version} not installed at {path}", pytrace=False)
        pytest.skip(f"Claude Code {version} not installed at {path}")
    return path


def bash(command: str) -> dict[str, Any]:
    return tool_use("Bash", {"command": command})


def _record(claude_project: Any, binary: Path, version: str) -> tuple[Path, list[str]]:
    """Run a session in which arcguard continues a stall, denies repeats and pauses a cycle;
    the transcript Claude Code wrote and the kinds of arcguard's logged decisions."""
    project: ClaudeProject = claude_project(arcguard_settings_for(version))
    install_autonomous_command(project)
    script = [
        text(NOOP),
        *(bash("ls build-output") for _ in range(3)),
        *(bash(c) for _ in range(8) for c in ("echo A >> runs.txt", "echo B >> runs.txt")),
    ]
    with ScriptedAPI(script) as api:
        run = _run(binary, project, api, "/autonomous ship the importer", (), None, 300.0)
    assert run.transcript is not None, run.describe()
    return run.transcript, log_kinds(arcguard_state(project, run.session_id))


@pytest.mark.parametrize("version", sorted(RELEASES.values()))
def test_forensics_and_replay_read_what_arcguard_did(claude_project, version, request):
    transcript, logged = _record(claude_project, _binary(version, request), version)
    assert {"continue", "deny", "pause"} <= set(logged), logged

    # 2.1.163 and newer record the continuation as a `hook_additional_context` attachment,
    # older ones as "Stop hook feedback:"; 2.1.78 records a deny without the hook's prefix
    # and holds a pause by denying every later call; newer ones end the session and say so.
    forensics = json.loads(_arcguard("forensics", "--json", str(transcript)))
    assert forensics["arcguard_footprint"] == {
        "stop_continuations": logged.count("continue"),
        "denials": logged.count("deny"),
        "pauses": logged.count("pause"),
    }
    assert forensics["stalls"]["followed_by_stop_hook"] == 1
    assert forensics["stop_hook_feedback"] == logged.count("continue")

    # Replayed, the recorded stall's Stop fires (the model's next message is the
    # continuation's answer, not more of the same turn) and is sent back once, as live.
    replayed = json.loads(_arcguard("replay", "--json", str(transcript)))
    kinds = [d["kind"] for d in replayed["decisions"] if d["kind"] != "posture"]
    assert kinds == logged, (kinds, logged)

    # The report's timeline shows each of them as recorded, whatever the form.
    report = _arcguard("report", str(transcript))
    rows = [line.split()[2:] for line in report.splitlines() if line.startswith("  +")]
    shown = [row[0] for row in rows if row]
    assert shown.count("continued") == logged.count("continue"), report
    assert shown.count("stopped") == logged.count("pause"), report
    assert report.count("[denied]") >= logged.count("deny"), report


def _arcguard(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "arcguard", *args], capture_output=True, text=True, check=True
    )
    return done.stdout
