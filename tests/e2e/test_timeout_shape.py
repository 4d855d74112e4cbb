"""What Claude Code writes when a Bash command outlives its timeout, next to what a command can
print itself.

The loop guard grants a timeout recovery only for the harness's own shape
(`arcguard.core.loop_guard.opkey.is_harness_timeout`); these runs pin that shape on the real CLI.
"""

from __future__ import annotations

from typing import Any

from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use

from arcguard.core.loop_guard.opkey import is_harness_timeout
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
