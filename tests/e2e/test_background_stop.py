"""What the Stop hook is told while background work runs, with the real Claude Code CLI: a
background shell command and a monitor are both listed in `background_tasks` as running
shells, so a closing that waits on them is left alone, and Claude Code wakes the session when
the work reports."""

from __future__ import annotations

import pytest
from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use

from conftest import add_handler
from conftest import all_arcguard_settings
from conftest import arcguard_state
from conftest import payload_log


STARTS = {
    "shell": tool_use("Bash", {"command": "sleep 3", "run_in_background": True}),
    "monitor": tool_use("Monitor", {"description": "watch the build", "command": "sleep 3"}),
}


@pytest.mark.parametrize("work", sorted(STARTS))
def test_a_wait_while_background_work_runs_is_let_through(claude_project, run_claude, work):
    project = claude_project()
    log = payload_log(project)
    project.write_settings(add_handler(all_arcguard_settings(), "Stop", log.command()))
    script = [
        STARTS[work],
        text("The build runs in the background. Waiting for the build to finish."),
        text("The build finished. The arc is complete."),
    ]
    with ScriptedAPI([*script, text("unused")]) as api:
        run = run_claude(project, api, "/autonomous ship the build")

    assert run.result is not None, run.describe()
    [task] = log.payloads("Stop")[0]["background_tasks"]
    assert (task["type"], task["status"]) == ("shell", "running")
    [allowed] = [e for e in arcguard_state(project, run.session_id)["log"] if e["hook"] == "stop"]
    assert allowed["kind"] == "allow" and "a background task is running" in allowed["reason"]
    assert len(api.requests) == 3 and "<task-notification>" in api.request_text(2)
