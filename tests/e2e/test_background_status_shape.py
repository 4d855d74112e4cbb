"""What Claude Code reports of a background command the model asks after, or stops.

The loop guard reads a status call's report (`background.observe_result`): a task it says
completed ended well (a hang of it was none: `hangs`), one it says failed or that was stopped
did not, and one it says runs is waited on. These runs pin the reports on the oldest and newest
supported releases, and feed the oldest's to that reading. The newest lends no status tool: a
background command's end reaches the session only as a task notification.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from scripted_api import Recorded
from scripted_api import ScriptedAPI
from scripted_api import Turn
from scripted_api import text
from scripted_api import tool_use

from arcguard.core.config import default_config
from arcguard.core.loop_guard import background
from arcguard.core.state import fresh_state
from arcguard.core.tool_call import read_call
from arcguard.core.tool_call import read_result
from conftest import ClaudeProject
from conftest import ClaudeRelease
from conftest import ClaudeRun
from conftest import PayloadLog
from conftest import hook_settings
from conftest import payload_log


# Long enough that the first status call, sent right after the launch, finds it running.
COMMAND = "sh -c 'sleep 2; echo done; exit {code}'"
LAUNCHED = re.compile(r"Command running in background with ID: (\w+)")
NO_SUCH_TOOL = "<tool_use_error>Error: No such tool available: {tool}</tool_use_error>"
NO_TASK = "<tool_use_error>No task found with ID: {task}</tool_use_error>"
BATCH = "PostToolBatch"
Report = dict[str, Any]  # a hook payload, or one entry of a batch
# How each release sums up a background command's end in its task notification.
SUMMARY = {0: "completed (exit code 0)", 3: "failed with exit code 3"}


class TaskScript(ScriptedAPI):
    """A script whose turns after the first name the background task it started: Claude Code
    picks the task id, so each later turn is made from it when its request arrives."""

    def __init__(self, first: dict[str, Any], *later: Callable[[str], dict[str, Any]]) -> None:
        super().__init__([first])
        self._later = list(later)
        self._turns = 0
        self.task_id = ""

    def _admit(self, recorded: Recorded) -> Turn | None:
        if recorded.kind == "main":
            self._turns += 1
        if recorded.kind == "main" and self._turns > 1 and self._later:
            if not self.task_id:
                found = LAUNCHED.search(json.dumps(recorded.body.get("messages")))
                assert found, "the request after the launch names no background task"
                self.task_id = found.group(1)
            self.add(self._later.pop(0)(self.task_id))
        return super()._admit(recorded)


def _lent(api: ScriptedAPI) -> set[str]:
    return {str(tool.get("name")) for tool in api.requests[0].get("tools", [])}


def _content(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def _logged(project: ClaudeProject, release: ClaudeRelease) -> PayloadLog:
    """A log of every tool result event `release` knows (an older one ignores a settings file
    naming an event it does not know)."""
    log = payload_log(project)
    events = ["PostToolUse", "PostToolUseFailure"]
    if release.knows_post_tool_batch:
        events.append(BATCH)
    project.write_settings(hook_settings({event: log.command() for event in events}))
    return log


def _observer(launch: Report) -> tuple[Callable[[Report], bool], Callable[[], bool]]:
    """arcguard's reading of a session that has just launched a background command: whether it
    reads a report as that task completed, and whether it then takes work to be running."""
    state, cfg, now = fresh_state("s", 1000.0), default_config(), 1000.0

    def observe(report: Report) -> bool:
        call = read_call(report, None)
        assert call is not None
        return (
            background.observe_result(state, now, call, read_result(report, event=None)) is not None
        )

    assert not observe(launch)
    return observe, lambda: background.running(state, cfg, now)


@dataclass
class StatusRun:
    """One session: a background command, then a status call while it runs, one that waits
    for its end, and one right after it ended."""

    run: ClaudeRun
    api: TaskScript
    payloads: list[dict[str, Any]]

    @property
    def task(self) -> str:
        return self.api.task_id

    def post_tool_use(self, tool: str) -> list[dict[str, Any]]:
        return [
            p
            for p in self.payloads
            if p["hook_event_name"] == "PostToolUse" and p["tool_name"] == tool
        ]

    def batch_entries(self, tool: str) -> list[dict[str, Any]]:
        batches = [p["tool_calls"] for p in self.payloads if p["hook_event_name"] == BATCH]
        return [entry for batch in batches for entry in batch if entry["tool_name"] == tool]

    def notification(self) -> str:
        texts = [self.api.request_text(i) for i in range(len(self.api.requests))]
        return next(t for t in texts if "<task-notification>" in t)


_RUNS: dict[tuple[str, int], StatusRun] = {}


def _status_run(
    claude_project: Callable[..., ClaudeProject],
    run_release: Callable[..., ClaudeRun],
    release: ClaudeRelease,
    code: int,
) -> StatusRun:
    """The session for `release` and exit status `code`, run once for every test that reads
    it."""
    key = (release.version, code)
    if key in _RUNS:
        return _RUNS[key]
    project = claude_project()
    log = _logged(project, release)
    command = COMMAND.format(code=code)
    api = TaskScript(
        tool_use("Bash", {"command": command, "run_in_background": True}),
        lambda task: tool_use("TaskOutput", {"task_id": task, "block": False, "timeout": 1000}),
        lambda task: tool_use("TaskOutput", {"task_id": task, "block": True, "timeout": 10_000}),
        lambda task: tool_use("TaskOutput", {"task_id": task, "block": False, "timeout": 1000}),
        lambda task: text("Done."),
    )
    with api:
        run = run_release(project, api, "go")
    assert run.result is not None, run.describe()
    assert api.task_id, run.describe()
    _RUNS[key] = StatusRun(run, api, log.payloads())
    return _RUNS[key]


def _task(task: str, code: int, status: str, output: str, exit_code: int | None) -> dict[str, Any]:
    return {
        "task_id": task,
        "task_type": "local_bash",
        "status": status,
        "description": COMMAND.format(code=code),
        "output": output,
        "exitCode": exit_code,
    }


@pytest.mark.parametrize("code", [0, 3])
def test_fact_the_oldest_release_alone_has_a_status_tool_and_it_says_how_the_command_ended(
    claude_project, run_release, claude_release, code
):
    done = _status_run(claude_project, run_release, claude_release, code)
    lent = _lent(done.api)
    assert "BashOutput" not in lent
    assert ("TaskOutput" in lent) == (claude_release.role == "oldest"), sorted(lent)
    if "TaskOutput" not in lent:
        # Refused before it runs: no PostToolUse nor PostToolUseFailure, only the batch's text.
        assert done.post_tool_use("TaskOutput") == []
        entries = done.batch_entries("TaskOutput")
        assert [e["tool_response"] for e in entries] == [NO_SUCH_TOOL.format(tool="TaskOutput")] * 3
        return

    schema = next(t for t in done.api.requests[0]["tools"] if t["name"] == "TaskOutput")
    assert sorted(schema["input_schema"]["properties"]) == ["block", "task_id", "timeout"]
    # The ended command's status says how it exited; its code is under `exitCode` only. The
    # third call, refused, fires no hook.
    status = "completed" if code == 0 else "failed"
    calls = done.post_tool_use("TaskOutput")
    running, ended = (p["tool_response"] for p in calls)
    assert running == {
        "retrieval_status": "not_ready",
        "task": _task(done.task, code, "running", "", None),
    }
    assert ended == {
        "retrieval_status": "success",
        "task": _task(done.task, code, status, "done\n", code),
    }
    recorded = {
        entry["message"]["content"][0]["tool_use_id"]: entry["toolUseResult"]
        for entry in done.run.transcript_entries()
        if "toolUseResult" in entry
    }
    assert recorded[calls[1]["tool_use_id"]] == ended
    [model_saw] = done.api.tool_results(3)
    assert _content(model_saw) == (
        f"<retrieval_status>success</retrieval_status>\n\n<task_id>{done.task}</task_id>\n\n"
        f"<task_type>local_bash</task_type>\n\n<status>{status}</status>\n\n"
        f"<exit_code>{code}</exit_code>\n\n<output>\ndone\n</output>"
    )
    # Once it has ended and been reported, the task is gone: a later status call is refused
    # before any hook runs.
    [gone] = done.api.tool_results(4)
    assert gone["is_error"] is True and _content(gone) == NO_TASK.format(task=done.task)


@pytest.mark.parametrize("code", [0, 3])
def test_fact_each_release_notifies_a_background_commands_end_with_its_status(
    claude_project, run_release, claude_release, code
):
    # On the oldest it comes even though a status call has already reported that end.
    done = _status_run(claude_project, run_release, claude_release, code)
    note = done.notification()
    status = "completed" if code == 0 else "failed"
    assert f"<task-id>{done.task}</task-id>" in note
    assert f"<status>{status}</status>" in note and SUMMARY[code] in note


@pytest.mark.parametrize(("tool", "key"), [("TaskStop", "task_id"), ("KillShell", "shell_id")])
def test_fact_the_stop_tool_and_its_old_name_report_the_task_they_stopped(
    claude_project, run_release, claude_release, tool, key
):
    project = claude_project()
    log = _logged(project, claude_release)
    api = TaskScript(
        tool_use("Bash", {"command": "sleep 30", "run_in_background": True}),
        lambda task: tool_use(tool, {key: task}),
        lambda task: text("Done."),
    )
    with api:
        run = run_release(project, api, "go")
    assert run.result is not None, run.describe()

    # The newest lends it deferred, yet a call by name runs.
    assert ("TaskStop" in _lent(api)) == (claude_release.role == "oldest")
    task = api.task_id
    stopped = {
        "message": f"Successfully stopped task: {task} (sleep 30)",
        "task_id": task,
        "task_type": "local_bash",
        "command": "sleep 30",
    }
    # PostToolUse names the tool by its own name whatever name the call used.
    [post] = [p for p in log.payloads("PostToolUse") if p["tool_name"] != "Bash"]
    assert (post["tool_name"], post["tool_input"], post["tool_response"]) == (
        "TaskStop",
        {key: task},
        stopped,
    )
    reports = [post]
    if claude_release.knows_post_tool_batch:
        # The batch names it as the call did, and gives the text the model saw.
        entries = [entry for p in log.payloads(BATCH) for entry in p["tool_calls"]]
        [entry] = [e for e in entries if e["tool_name"] != "Bash"]
        assert entry["tool_name"] == tool
        assert entry["tool_response"] == json.dumps(stopped, separators=(",", ":"))
        reports.append(entry)

    # Stopped is no completion, and nothing runs after it, whichever report arcguard reads.
    [launch] = [p for p in log.payloads("PostToolUse") if p["tool_name"] == "Bash"]
    for report in reports:
        observe, running = _observer(launch)
        assert running()
        assert not observe(report) and not running()


@pytest.mark.parametrize("claude_release", ["oldest"], indirect=True)
@pytest.mark.parametrize("code", [0, 3])
def test_arcguard_reads_a_finished_command_as_completed_only_when_it_exited_0(
    claude_project, run_release, claude_release, code
):
    done = _status_run(claude_project, run_release, claude_release, code)
    [launch] = done.post_tool_use("Bash")
    still, ended = done.post_tool_use("TaskOutput")
    observe, running = _observer(launch)
    assert running()
    assert not observe(still) and running()
    # A command that exited 0 did its work; a failed one is left to the rules for failures.
    assert observe(ended) is (code == 0)
    assert not running()
