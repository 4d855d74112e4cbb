"""What Claude Code writes when a Bash command outlives its timeout, next to what a command can
print itself.

The loop guard grants a timeout recovery only for the harness's own shape
(`arcguard.core.loop_guard.opkey.is_harness_timeout`), and reads a command moved to the
background at its timeout, not one the user moved there, as one that did not finish
(`arcguard.core.loop_guard.exit_status`), until the notification of its end says it completed
(`arcguard.core.loop_guard.hangs`); these runs pin those shapes on the real CLI.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from interactive import interactive_claude
from interactive import wait_for
from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use

from arcguard.core.loop_guard import background
from arcguard.core.loop_guard import exit_status
from arcguard.core.loop_guard import hangs
from arcguard.core.loop_guard.opkey import is_harness_timeout
from arcguard.core.state import short_id
from arcguard.core.tool_call import ToolCall
from arcguard.core.tool_call import ToolResult
from arcguard.core.tool_call import read_call
from arcguard.core.tool_call import read_result
from arcguard.core.words.final_words import is_task_notification
from conftest import ClaudeProject
from conftest import ClaudeRun
from conftest import hook_settings
from conftest import payload_log


# Prints, then outlives a 1s timeout by a few seconds, and ends with the status under test.
SLOW = "echo started; sleep 3; exit {code}"
# Each release's Bash report of a command it moved to the background at its timeout, but for
# the task id: only the newest says the timeout moved it, and keeps what it printed.
MOVED_REPORT = {
    "oldest": {
        "stdout": "",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
        "assistantAutoBackgrounded": False,
    },
    "newest": {
        "stdout": "started",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
        "timedOutAfterMs": 1000,
    },
}
# How each release sums up the command's end in its notification.
SUMMARY = {0: "completed (exit code 0)", 3: "failed with exit code 3"}


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


def _outlived(
    claude_project: Callable[..., ClaudeProject],
    run_release: Callable[..., ClaudeRun],
    code: int,
) -> tuple[dict[str, Any], str]:
    """The Bash report of `SLOW` run with a 1s timeout, and the prompt that woke the session
    when it ended. The script ends its turn right after the move: `-p` waits for background
    work, and the notification comes as a prompt of its own, which arcguard reads at
    UserPromptSubmit."""
    project = claude_project()
    log = payload_log(project)
    events = ("PostToolUse", "PostToolUseFailure", "UserPromptSubmit")
    project.write_settings(hook_settings({event: log.command() for event in events}))
    call = tool_use("Bash", {"command": SLOW.format(code=code), "timeout": 1000})
    with ScriptedAPI([call, text("Done.")]) as api:
        run = run_release(project, api, "go")
    assert run.result is not None, run.describe()
    [report] = [p for p in log.payloads() if p["hook_event_name"] != "UserPromptSubmit"]
    prompts = [p["prompt"] for p in log.payloads("UserPromptSubmit")]
    assert len(prompts) == 2 and prompts[0] == "go", prompts
    return report, prompts[1]


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


@pytest.mark.parametrize("code", [0, 3])
def test_fact_a_command_moved_at_its_timeout_is_notified_by_its_task_id_when_it_ends(
    claude_project, run_release, claude_release, code
):
    report, note = _outlived(claude_project, run_release, code)
    assert report["hook_event_name"] == "PostToolUse"  # it still runs: not a failure
    response = report["tool_response"]
    task = response["backgroundTaskId"]
    assert response == {**MOVED_REPORT[claude_release.role], "backgroundTaskId": task}
    # Its end is told by that same task id (and the call's), and whether it exited 0.
    status = "completed" if code == 0 else "failed"
    assert is_task_notification(note)
    assert f"<task-id>{task}</task-id>" in note
    assert f"<tool-use-id>{report['tool_use_id']}</tool-use-id>" in note
    assert f"<status>{status}</status>" in note and SUMMARY[code] in note

    # arcguard counts the move as a hang of the command, kept under the task's id; the
    # notification names that id, and retires the hang only when the command exited 0.
    call = read_call(report, None)
    assert call is not None
    assert exit_status.moved_to_background(call, read_result(report, event=None))
    assert short_id(task) in background.named(note)
    assert (hangs.COMPLETED in note) is (code == 0)


def _moved_by_hand(cli: Any, api: ScriptedAPI) -> bool:
    """Ctrl+B, and whether the session went on: the key was seen to be lost now and then
    (the command then ran its 30 s to the end), so it is pressed again until it takes."""
    cli.keys("C-b")
    end = time.monotonic() + 3
    while time.monotonic() < end and len(api.requests) < 2:
        time.sleep(0.2)
    return len(api.requests) >= 2


@pytest.mark.usefixtures("needs_tmux")
def test_fact_a_command_the_user_moves_to_the_background_says_so(claude_project, claude_release):
    # Ctrl+B while it runs, in the interactive CLI: not a command that outlived its timeout.
    project = claude_project()
    log = payload_log(project)
    events = {"PostToolUse": log.command(), "PostToolUseFailure": log.command()}
    events["PreToolUse"] = log.command()  # when the command starts, on a loaded machine too
    if claude_release.knows_post_tool_batch:
        events["PostToolBatch"] = log.command()
    project.write_settings(hook_settings(events))
    command = "python3 -c 'import time; time.sleep(30)'"
    script = [tool_use("Bash", {"command": command, "timeout": 120_000}), text("Done.")]
    with ScriptedAPI(script) as api, interactive_claude(claude_release.binary, project, api) as cli:
        cli.type("go")
        wait_for(lambda: log.payloads("PreToolUse"), 60, "the command to start", cli)
        wait_for(lambda: _moved_by_hand(cli, api), 25, "the request after the move", cli)
    call = ToolCall("Bash", {"command": command, "timeout": 120_000}, "t1", None)
    payloads = log.payloads()
    responses = [p["tool_response"] for p in payloads if p["hook_event_name"] == "PostToolUse"]
    batches = [p["tool_calls"] for p in payloads if p["hook_event_name"] == "PostToolBatch"]
    responses += [entry["tool_response"] for batch in batches for entry in batch]
    assert responses and responses[0].get("backgroundedByUser") is True, responses
    for response in responses:
        assert not exit_status.moved_to_background(call, ToolResult(response=response)), response
