"""arcguard inside a Claude Agent SDK application, end to end: the real SDK and the real CLI.

Every scenario runs the application of docs/sdk.md exactly as the page shows it, with the
SDK's hooks from `arcguard.sdk.options`, against the scripted API. The CLI is the npm release
`.ci/run` installs for the newest end of the window (see docs/sdk.md, "Which CLI the tests
run"); the command-hook runs compared against use the same one.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use
from scripted_api import turn

from conftest import REPO_ROOT
from conftest import WINDOW_RELEASES
from conftest import ClaudeProject
from conftest import _run
from conftest import all_arcguard_settings
from conftest import arcguard_state
from conftest import log_kinds


pytest.importorskip("claude_agent_sdk")

RELEASE = WINDOW_RELEASES["newest"]
CLI = REPO_ROOT / ".cache" / f"claude-code-{RELEASE}" / "node_modules" / ".bin" / "claude"
NOOP = "No response requested."
DENIED = "PreToolUse:Bash hook error: [arcguard] Denied as a repeat"
DAY = 86400


def _example() -> str:
    page = (REPO_ROOT / "docs" / "sdk.md").read_text(encoding="utf-8")
    section = page.split("## A complete application", 1)[1]
    return section.split("```python\n", 1)[1].split("\n```", 1)[0] + "\n"


@pytest.fixture
def cli() -> Path:
    if not (CLI.is_file() and os.access(CLI, os.X_OK)):
        message = f"Claude Code {RELEASE} not found at {CLI}; .ci/run installs it"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return CLI


class SdkRun:
    def __init__(self, done: subprocess.CompletedProcess[str]) -> None:
        self.done = done
        found = re.findall(r"^(\w+): .* \[([0-9a-f-]+)\]$", done.stdout, re.MULTILINE)
        self.terminal_reasons = [reason for reason, _ in found]
        self.session_id = found[-1][1] if found else None

    def describe(self) -> str:
        done = self.done
        return f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def _with_autonomous_command(project: ClaudeProject) -> None:
    from arcguard.claude_settings.slash_command import command_template

    commands = project.home / ".claude" / "commands"
    commands.mkdir(parents=True, exist_ok=True)
    (commands / "autonomous.md").write_text(command_template())


def run_app(cli: Path, project: ClaudeProject, api: ScriptedAPI, prompt: str) -> SdkRun:
    app = project.write_script("app.py", _example())
    env = {**project.base_env(), "ANTHROPIC_BASE_URL": api.base_url, "CLAUDE_CODE_CLI": str(cli)}
    done = subprocess.run(
        [sys.executable, str(app), str(project.path), prompt],
        capture_output=True,
        text=True,
        env=env,
        cwd=project.path,
        timeout=300,
    )
    return SdkRun(done)


def _results(api: ScriptedAPI) -> list[list[tuple[bool, str]]]:
    return [
        [(bool(r.get("is_error")), str(r.get("content"))) for r in api.tool_results(i)]
        for i in range(len(api.requests))
    ]


def _decisions(project: ClaudeProject, session_id: str | None) -> list[tuple[str, str]]:
    return [(e["kind"], e["hook"]) for e in arcguard_state(project, session_id)["log"]]


def _both(claude_project, cli: Path, script: list[Any], prompt: str):
    """The same script through the command hooks (the CLI alone) and through the SDK app."""
    command = claude_project(all_arcguard_settings())
    with ScriptedAPI(list(script)) as capi:
        crun = _run(cli, command, capi, prompt)
    assert crun.result is not None, crun.describe()
    project = claude_project()
    with ScriptedAPI(list(script)) as api:
        run = run_app(cli, project, api, prompt)
    assert run.done.returncode == 0 and run.session_id, run.describe()
    return (command, crun, capi), (project, run, api)


def test_the_bundled_cli_is_the_release_the_tests_run():
    from claude_agent_sdk._cli_version import __cli_version__

    assert __cli_version__ == RELEASE


def test_sdk_hooks_deny_the_third_identical_call_and_pause_like_the_command_hooks(
    claude_project, cli
):
    say = "Let me look at the build output again."
    script = [turn(text(say), tool_use("Bash", {"command": "ls build-output"})) for _ in range(10)]
    (cp, crun, capi), (project, run, api) = _both(
        claude_project, cli, script, "get the build green"
    )

    assert run.terminal_reasons == [crun.result["terminal_reason"]] == ["hook_stopped"]
    assert len(api.requests) == len(capi.requests) == 5
    [(is_error, content)] = _results(api)[3]
    assert is_error and content.startswith(DENIED)
    assert _results(api) == _results(capi)
    assert log_kinds(arcguard_state(project, run.session_id)) == [
        "deny",
        "deny",
        "nudge",
        "deny",
        "pause",
    ]
    assert _decisions(project, run.session_id) == _decisions(cp, crun.session_id)
    # The same state directory and cost log as every other mode.
    shown = subprocess.run(
        [sys.executable, "-m", "arcguard", "status", "--cost", "--json"],
        capture_output=True,
        text=True,
        env=project.base_env(),
        timeout=120,
    )
    rows = {(r["hook"], r["mode"]): r for r in json.loads(shown.stdout)["cost"]}
    assert rows["pre-tool", "sdk"]["runs"] == 5, rows


def test_sdk_hooks_pause_an_alternating_pair_at_the_same_request_as_the_command_hooks(
    claude_project, cli
):
    # A callback answers in milliseconds, before the CLI has written the turn's message to
    # the transcript: the turn must still count as the command hooks count it.
    script = [
        tool_use("Bash", {"command": call})
        for _ in range(15)
        for call in ("echo A >> runs.txt", "echo B >> runs.txt")
    ]
    (cp, crun, capi), (project, run, api) = _both(
        claude_project, cli, script, "get the build green"
    )

    assert run.terminal_reasons == ["hook_stopped"], run.describe()
    assert len(api.requests) == len(capi.requests) == 6
    assert _results(api) == _results(capi)
    assert _decisions(project, run.session_id) == _decisions(cp, crun.session_id)
    assert arcguard_state(project, run.session_id)["guard"]["paused"]["kind"] == "cycle"


def test_sdk_hooks_send_a_noop_stall_inside_an_autonomous_arc_back_to_work(claude_project, cli):
    project = claude_project()
    _with_autonomous_command(project)
    script = [text(NOOP), text("Back on the importer: parsing the CSV header now.")]
    with ScriptedAPI(script) as api:
        run = run_app(cli, project, api, "/autonomous ship the importer")

    assert run.done.returncode == 0 and run.session_id, run.describe()
    assert len(api.requests) == 2
    assert "[arcguard] Autonomous arc 'ship the importer' is active" in api.request_text(0)
    assert "[arcguard]" in api.request_text(1).split(NOOP, 1)[1]
    assert _decisions(project, run.session_id) == [("arc", "posture"), ("continue", "stop")]


def test_an_app_refuses_to_start_when_the_user_settings_wire_arcguard_too(claude_project, cli):
    project = claude_project()
    settings = project.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(all_arcguard_settings()))
    with ScriptedAPI([tool_use("Bash", {"command": "ls"}), text("done")]) as api:
        run = run_app(cli, project, api, "go")

    assert run.done.returncode == 1, run.describe()
    assert "refused: arcguard's hooks are also wired in" in run.done.stderr
    assert str(settings) in run.done.stderr
    assert api.requests == []  # the CLI never started


def test_the_first_event_of_a_session_does_the_session_start_work(claude_project, cli):
    from arcguard.core.state import fresh_state
    from arcguard.storage import paths

    project = claude_project()
    old = Path(paths.session_path(str(project.arcguard_home), "old-session"))
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_text(json.dumps(fresh_state("old-session", time.time() - 40 * DAY)))
    stamp = time.time() - 40 * DAY
    os.utime(old, (stamp, stamp))
    with ScriptedAPI([tool_use("Bash", {"command": "ls"}), text("done")]) as api:
        run = run_app(cli, project, api, "go")

    assert run.done.returncode == 0 and run.terminal_reasons == ["completed"], run.describe()
    assert not old.exists()  # pruned, as SessionStart prunes
    assert Path(paths.session_path(str(project.arcguard_home), run.session_id)).exists()
