"""Resident mode end to end: `arcguard install --resident`, then the real Claude Code CLI.

Each scenario runs twice, once with the command hooks and once with the resident wiring, and
the two must decide the same: the same model requests, the same tool results, the same
decision log. The SessionStart hook starts the server; each test stops it at the end.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any

import pytest
from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use
from scripted_api import turn

from conftest import ClaudeProject
from conftest import all_arcguard_settings
from conftest import arcguard_state
from conftest import log_kinds


NOOP = "No response requested."
DENIED = "PreToolUse:Bash hook error: [arcguard] Denied as a repeat"


def arcguard(project: ClaudeProject, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arcguard", *args],
        capture_output=True,
        text=True,
        env=project.base_env(),
        cwd=project.path,
        timeout=120,
    )


def _stop_server(project: ClaudeProject) -> None:
    try:
        info = json.loads((project.arcguard_home / "server.json").read_text())
    except (OSError, ValueError):
        return
    try:
        os.kill(int(info["pid"]), signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass


@pytest.fixture
def resident_project(claude_project):
    made: list[ClaudeProject] = []

    def make() -> ClaudeProject:
        project = claude_project()
        done = arcguard(project, "install", "--resident", "--claude-version", "2.1.328")
        assert done.returncode == 0, done.stderr
        assert "resident mode: hooks post to 127.0.0.1:" in done.stdout
        made.append(project)
        return project

    yield make
    for project in made:
        _stop_server(project)


def _results(api: ScriptedAPI) -> list[list[tuple[bool, str]]]:
    return [
        [(bool(r.get("is_error")), str(r.get("content"))) for r in api.tool_results(i)]
        for i in range(len(api.requests))
    ]


def _decisions(project: ClaudeProject, session_id: str | None) -> list[tuple[str, str]]:
    state = arcguard_state(project, session_id)
    return [(e["kind"], e["hook"]) for e in state["log"]]


def _both(claude_project, resident_project, run_claude, script: list[Any], prompt: str):
    outcomes = []
    for project in (claude_project(all_arcguard_settings()), resident_project()):
        with ScriptedAPI(list(script)) as api:
            run = run_claude(project, api, prompt)
        assert run.result is not None, run.describe()
        outcomes.append((project, run, api))
    return outcomes


def test_resident_hooks_deny_the_third_identical_call_like_the_command_hooks(
    claude_project, resident_project, run_claude
):
    say = "Let me look at the build output again."
    script = [turn(text(say), tool_use("Bash", {"command": "ls build-output"})) for _ in range(10)]
    (cp, crun, capi), (rp, rrun, rapi) = _both(
        claude_project, resident_project, run_claude, script, "get the build green"
    )

    assert rrun.result["terminal_reason"] == crun.result["terminal_reason"] == "hook_stopped"
    assert len(rapi.requests) == len(capi.requests) == 5
    [(is_error, content)] = _results(rapi)[3]
    assert is_error and content.startswith(DENIED)
    assert _results(rapi) == _results(capi)
    assert log_kinds(arcguard_state(rp, rrun.session_id)) == [
        "deny",
        "deny",
        "nudge",
        "deny",
        "pause",
    ]
    assert _decisions(rp, rrun.session_id) == _decisions(cp, crun.session_id)
    # The server answered those hooks: it runs, and the status verb says so.
    assert (rp.arcguard_home / "server.json").is_file()
    assert "resident mode: server running" in arcguard(rp, "status").stdout
    # Both sessions recorded what their hooks cost, each in its own mode.
    for project, mode in ((cp, "command"), (rp, "resident")):
        rows = json.loads(arcguard(project, "status", "--cost", "--json").stdout)["cost"]
        runs = {(r["hook"], r["mode"]): r for r in rows}
        assert runs["pre-tool", mode]["runs"] == 5, rows
        assert 0 < runs["pre-tool", mode]["median_ms"] <= runs["pre-tool", mode]["p95_ms"]
    assert ("serve-start", "command") in {
        (r["hook"], r["mode"])
        for r in json.loads(arcguard(rp, "status", "--cost", "--json").stdout)["cost"]
    }


def test_resident_hooks_send_a_noop_stall_back_like_the_command_hooks(
    claude_project, resident_project, run_claude
):
    script = [text(NOOP), text("Back on the importer: parsing the CSV header now.")]
    (cp, crun, capi), (rp, rrun, rapi) = _both(
        claude_project, resident_project, run_claude, script, "/autonomous ship the importer"
    )

    assert len(rapi.requests) == len(capi.requests) == 2
    assert "[arcguard] Autonomous arc 'ship the importer' is active" in rapi.request_text(0)
    # 2.1.328 takes the continuation as additional context, from either kind of hook.
    assert "Stop hook additional context: [arcguard]" in rapi.request_text(1)
    assert "Stop hook additional context: [arcguard]" in capi.request_text(1)
    assert rrun.result["result"] == crun.result["result"]
    assert _decisions(rp, rrun.session_id) == _decisions(cp, crun.session_id)
    assert _decisions(rp, rrun.session_id) == [("arc", "posture"), ("continue", "stop")]


def test_resident_hooks_pause_an_alternating_pair_at_the_same_request_as_the_command_hooks(
    claude_project, resident_project, run_claude
):
    # The server answers before Claude Code has written the turn's message to the transcript;
    # the turn is still counted as the command hooks count it, so the pause comes at the
    # sixth request in both modes, not one later.
    script = [
        tool_use("Bash", {"command": call})
        for _ in range(15)
        for call in ("echo A >> runs.txt", "echo B >> runs.txt")
    ]
    (cp, crun, capi), (rp, rrun, rapi) = _both(
        claude_project, resident_project, run_claude, script, "get the build green"
    )

    assert rrun.result["terminal_reason"] == crun.result["terminal_reason"] == "hook_stopped"
    assert len(rapi.requests) == len(capi.requests) == 6
    assert _results(rapi) == _results(capi)
    assert _decisions(rp, rrun.session_id) == _decisions(cp, crun.session_id)
    assert arcguard_state(rp, rrun.session_id)["guard"]["paused"]["kind"] == "cycle"


def test_with_the_server_down_tools_still_run_and_status_says_how_to_fix_it(
    resident_project, run_claude
):
    project = resident_project()
    # A server that went away mid-session: nothing starts it again before the tool call.
    settings_path = project.home / ".claude" / "settings.json"
    settings = json.loads(settings_path.read_text())
    del settings["hooks"]["SessionStart"]
    settings_path.write_text(json.dumps(settings))
    script = [tool_use("Bash", {"command": "echo ran >> ran.txt"}), text("done")]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "go")
    assert run.result is not None and run.result["result"] == "done", run.describe()
    assert (project.path / "ran.txt").read_text() == "ran\n"
    shown = arcguard(project, "status").stdout
    assert "resident mode: server not running" in shown
    assert "arcguard serve" in shown
    doctor = arcguard(project, "doctor")
    assert "warn  resident: resident mode: server not running now" in doctor.stdout
    line = subprocess.run(
        [sys.executable, "-m", "arcguard", "statusline"],
        input=json.dumps({"session_id": run.session_id}),
        capture_output=True,
        text=True,
        env=project.base_env(),
        timeout=60,
    )
    assert "resident mode: server not running (arcguard serve &)" in line.stdout
    assert not (project.arcguard_home / "sessions").exists()


def test_http_and_command_hooks_mixed_in_one_session_decide_as_either_alone(
    claude_project, resident_project, run_claude
):
    say = "Let me look at the build output again."
    script = [turn(text(say), tool_use("Bash", {"command": "ls build-output"})) for _ in range(10)]
    command_only = claude_project(all_arcguard_settings())
    with ScriptedAPI(list(script)) as api:
        reference = run_claude(command_only, api, "get the build green")
    project = resident_project()
    # PreToolUse and Stop stay http hooks; PostToolBatch and UserPromptSubmit become command
    # hooks: both kinds read and write the one state file of the session.
    settings_path = project.home / ".claude" / "settings.json"
    settings = json.loads(settings_path.read_text())
    commands = all_arcguard_settings()["hooks"]
    for event in ("PostToolBatch", "UserPromptSubmit"):
        settings["hooks"][event] = commands[event]
    settings_path.write_text(json.dumps(settings))
    with ScriptedAPI(list(script)) as mixed_api:
        mixed = run_claude(project, mixed_api, "get the build green")

    assert mixed.result is not None and reference.result is not None, mixed.describe()
    assert mixed.result["terminal_reason"] == reference.result["terminal_reason"] == "hook_stopped"
    assert len(mixed_api.requests) == len(api.requests) == 5
    assert _results(mixed_api) == _results(api)
    assert _decisions(project, mixed.session_id) == _decisions(command_only, reference.session_id)
    rows = json.loads(arcguard(project, "status", "--cost", "--json").stdout)["cost"]
    modes = {(r["hook"], r["mode"]) for r in rows}
    assert {("pre-tool", "resident"), ("post-batch", "command")} <= modes
