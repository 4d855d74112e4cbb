"""What Claude Code writes when a Bash command outlives its timeout, next to what a command can
print itself.

The loop guard grants a timeout recovery only for the harness's own shape
(`arcguard.core.loop_guard.opkey.is_harness_timeout`), and reads a command moved to the
background at its timeout, not one the user moved there, as one that did not finish
(`arcguard.core.loop_guard.exit_status`); these runs pin those shapes on the real CLI.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from interactive import interactive_claude
from interactive import wait_for
from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use

from arcguard.core.loop_guard import exit_status
from arcguard.core.loop_guard.opkey import is_harness_timeout
from arcguard.core.tool_call import ToolCall
from arcguard.core.tool_call import ToolResult
from conftest import hook_settings
from conftest import payload_log


def _payloads(claude_project, run_claude, command: str, timeout_ms: int) -> list[dict[str, Any]]:
    project = claude_project()
    log = payload_log(project)
    project.write_settings(
        hook_settings({"PostToolUse": log.command(), "PostToolUseFailure": log.command()})
    )
    call = tool_use("Bash", {"command": command, "timeout": timeout_ms})
    with ScriptedAPI([call, text("Done.")]) as api:
        run = run_claude(project, api, "go")
    assert run.result is not None, run.describe()
    return log.payloads()


def test_fact_a_silent_command_killed_at_its_timeout_gets_the_harness_frame(
    claude_project, run_claude
):
    [payload] = _payloads(claude_project, run_claude, "sleep 5", 1000)
    assert payload["hook_event_name"] == "PostToolUseFailure"
    assert payload["error"] == "Exit code 143\nCommand timed out after 1s"
    assert is_harness_timeout(payload["error"])


def test_fact_a_command_with_output_is_moved_to_the_background_not_failed(
    claude_project, run_claude
):
    [payload] = _payloads(claude_project, run_claude, "echo started; sleep 5", 1000)
    assert payload["hook_event_name"] == "PostToolUse"  # not a failure: it still runs
    response = payload["tool_response"]
    assert response["timedOutAfterMs"] == 1000 and response["backgroundTaskId"]


def test_fact_a_command_printing_the_timeout_words_is_not_the_harness(claude_project, run_claude):
    command = "echo 'Command timed out after 1s'; echo done; exit 143"
    [payload] = _payloads(claude_project, run_claude, command, 60_000)
    assert payload["hook_event_name"] == "PostToolUseFailure"
    assert payload["error"].startswith("Exit code 143\n")
    assert not is_harness_timeout(payload["error"]), payload["error"]


def test_fact_a_silent_command_not_starting_with_sleep_is_moved_to_the_background(
    claude_project, run_claude
):
    # So a command that hangs shows as a new task each time, not as a failure.
    command = "python3 -c 'import time; time.sleep(5)'"
    [payload] = _payloads(claude_project, run_claude, command, 1000)
    assert payload["hook_event_name"] == "PostToolUse"
    response = payload["tool_response"]
    assert response["timedOutAfterMs"] == 1000 and response["backgroundTaskId"]
    assert response["stdout"] == ""


@pytest.mark.usefixtures("needs_tmux")
def test_fact_a_command_the_user_moves_to_the_background_says_so(claude_project, claude_release):
    # Ctrl+B while it runs, in the interactive CLI: not a command that outlived its timeout.
    project = claude_project()
    log = payload_log(project)
    events = {"PostToolUse": log.command(), "PostToolUseFailure": log.command()}
    if claude_release.knows_post_tool_batch:
        events["PostToolBatch"] = log.command()
    project.write_settings(hook_settings(events))
    command = "python3 -c 'import time; time.sleep(30)'"
    script = [tool_use("Bash", {"command": command, "timeout": 120_000}), text("Done.")]
    with ScriptedAPI(script) as api, interactive_claude(claude_release.binary, project, api) as cli:
        cli.type("go")
        time.sleep(4)
        cli.keys("C-b")
        wait_for(lambda: len(api.requests) >= 2, 40, "the request after the move", cli)
    call = ToolCall("Bash", {"command": command, "timeout": 120_000}, "t1", None)
    payloads = log.payloads()
    responses = [p["tool_response"] for p in payloads if p["hook_event_name"] == "PostToolUse"]
    batches = [p["tool_calls"] for p in payloads if p["hook_event_name"] == "PostToolBatch"]
    responses += [entry["tool_response"] for batch in batches for entry in batch]
    assert responses and responses[0]["backgroundedByUser"] is True
    for response in responses:
        assert not exit_status.moved_to_background(call, ToolResult(response=response)), response
