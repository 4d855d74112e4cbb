"""Telling the user when arcguard stops a session, and the status line, with the real CLI in
interactive mode.

A cycle of tool calls gets the session paused; the pause output's terminal sequence must reach
the terminal (tmux records every byte the CLI writes), and the notify command must run once.
The hooks are in the user's settings, where `arcguard install` puts them by default.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from interactive import interactive_claude
from interactive import tmux_available
from interactive import wait_for
from scripted_api import ScriptedAPI
from scripted_api import tool_use

from arcguard.claude_settings import launch_forms
from arcguard.claude_settings import merge_plan


# The sequences as they reach the terminal: OSC 0 (window title), then a bell.
PAUSED_TITLE = b"\x1b]0;arcguard: paused\x07\x07"
GIVE_UP_TITLE = b"\x1b]0;arcguard: not resuming after the API limit\x07\x07"
RECORDER = "import sys; open(sys.argv[1], 'a').write(sys.stdin.read() + '\\n')"


@pytest.fixture(autouse=True)
def _needs_tmux() -> None:
    if not tmux_available():
        message = "tmux is not installed (the interactive CLI runs inside it)"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


def kinds(project: Any) -> list[str]:
    sessions = Path(project.arcguard_home) / "sessions"
    files = sorted(sessions.glob("*.json")) if sessions.is_dir() else []
    state = json.loads(files[0].read_text()) if files else {}
    return [str(entry.get("kind")) for entry in state.get("log", [])]


def test_a_paused_session_sets_the_terminal_title_and_runs_the_notify_command_once(
    claude_bin: Path, claude_project: Any, tmp_path: Path
) -> None:
    project = claude_project()
    user_settings = project.home / ".claude" / "settings.json"
    user_settings.parent.mkdir(parents=True)
    prefix = launch_forms.own_prefix(sys.executable)
    user_settings.write_text(json.dumps({"hooks": merge_plan.desired_hooks(prefix)}))
    events = tmp_path / "events.jsonl"
    env = {"ARCGUARD_NOTIFY_COMMAND": json.dumps([sys.executable, "-c", RECORDER, str(events)])}
    calls = ("echo A >> runs.txt", "echo B >> runs.txt")
    script = [tool_use("Bash", {"command": c}) for _ in range(15) for c in calls]
    with ScriptedAPI(script) as api, interactive_claude(claude_bin, project, api, env) as cli:
        cli.type("get the build green")
        wait_for(lambda: "pause" in kinds(project), 90, "the pause", cli)
        wait_for(lambda: PAUSED_TITLE in cli.raw(), 60, "the window title sequence", cli)
        wait_for(lambda: events.exists() and events.read_text().strip(), 60, "the notify command")
        time.sleep(1)  # a second run of the command would have landed by now

    [event] = [json.loads(line) for line in events.read_text().splitlines()]
    assert event["kind"] == "paused" and event["rule"] == "cycle"
    assert "arcguard paused this session" in event["reason"]


def test_a_limit_wait_that_gives_up_sets_the_terminal_title(
    claude_bin: Path, claude_project: Any
) -> None:
    from scripted_api import rate_limit

    from arcguard.claude_settings import slash_command

    project = claude_project()
    user_settings = project.home / ".claude" / "settings.json"
    user_settings.parent.mkdir(parents=True)
    prefix = launch_forms.own_prefix(sys.executable)
    user_settings.write_text(json.dumps({"hooks": merge_plan.desired_hooks(prefix)}))
    commands = project.path / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / slash_command.COMMAND_NAME).write_text(slash_command.command_template())
    env = {"ARCGUARD_LIMIT_RESUMES_PER_ARC": "0"}
    with ScriptedAPI() as api, interactive_claude(claude_bin, project, api, env) as cli:
        api.add(rate_limit(2, f"Claude AI usage limit reached|{int(time.time()) + 5}"))
        cli.type("/autonomous ship the importer")
        wait_for(lambda: "give-up" in kinds(project), 60, "the give-up", cli)
        wait_for(lambda: GIVE_UP_TITLE in cli.raw(), 60, "the window title sequence", cli)
    assert len(api.requests) == 2


def test_the_status_line_shows_the_arc_segment(claude_bin: Path, claude_project: Any) -> None:
    from scripted_api import text

    from arcguard.claude_settings import slash_command
    from arcguard.claude_settings import statusline_plan

    project = claude_project()
    user_settings = project.home / ".claude" / "settings.json"
    user_settings.parent.mkdir(parents=True)
    prefix = launch_forms.own_prefix(sys.executable)
    user_settings.write_text(
        json.dumps(
            {
                "hooks": merge_plan.desired_hooks(prefix),
                "statusLine": statusline_plan.desired(prefix),
            }
        )
    )
    commands = project.path / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / slash_command.COMMAND_NAME).write_text(slash_command.command_template())
    with (
        ScriptedAPI([text("Parsing the CSV header now.")]) as api,
        interactive_claude(claude_bin, project, api) as cli,
    ):
        cli.type("/autonomous ship the importer")
        wait_for(
            lambda: "arcguard arc ship the importer, continued 0/2 in a row" in cli.screen(),
            60,
            "arcguard's status line segment",
            cli,
        )
