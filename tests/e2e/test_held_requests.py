"""A request to the model decided at a PreToolUse reaches it even when that call fails.

Releases without PostToolBatch close a turn at the next call's PreToolUse, so a check-in the
closed turn brings is decided there. The oldest supported release drops a PreToolUse hook's
context when the call then fails (pinned first, with fixed hook scripts); arcguard holds such
a request until the call's own result hook, whose context every release delivers.
"""

from __future__ import annotations

import json
from typing import Any

from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use

from conftest import arcguard_settings_for
from conftest import arcguard_state
from conftest import hook_settings
from conftest import log_kinds


EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")


def _fixed_hook(project: Any, event: str) -> str:
    said = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": f"ctx-{event}"}}
    script = project.write_script(event, f"#!/bin/sh\ncat >/dev/null\necho '{json.dumps(said)}'\n")
    return str(script)


def _contexts(api: ScriptedAPI, index: int) -> list[str]:
    said = api.request_text(index)
    return [event for event in EVENTS if f"ctx-{event}" in said]


def test_a_failing_calls_pre_tool_context_is_lost_on_the_oldest_release_only(
    claude_project, run_release, claude_release
):
    project = claude_project({})
    project.write_settings(hook_settings({e: _fixed_hook(project, e) for e in EVENTS}))
    script = [tool_use("Bash", {"command": "false"}), tool_use("Bash", {"command": "true"})]
    with ScriptedAPI([*script, text("done")]) as api:
        run = run_release(project, api, "go")

    assert run.result is not None, run.describe()
    failed, ran = _contexts(api, 1), _contexts(api, 2)
    assert ("PreToolUse" in failed) is (claude_release.role == "newest")
    assert "PostToolUseFailure" in failed
    assert {"PreToolUse", "PostToolUse"} <= set(ran)


BUILD = "#!/bin/sh\necho 'web@1.4.0 build'\necho 'src/app.ts(3,1): error TS2304' >&2\nexit 2\n"
FAILED_ALIKE = "[arcguard] 4 attempts failed the same way"


def test_a_check_in_decided_as_a_failing_call_starts_reaches_the_model(
    claude_project, run_release, claude_release
):
    project = claude_project(arcguard_settings_for(claude_release.version))
    (project.path / "build.sh").write_text(BUILD)
    spellings = ("sh build.sh", "bash build.sh", "sh ./build.sh", "bash ./build.sh", "sh  build.sh")
    script = [tool_use("Bash", {"command": c}) for c in spellings]
    with ScriptedAPI([*script, text("The build fails on one type error.")]) as api:
        run = run_release(project, api, "fix the web build")

    assert run.result is not None, run.describe()
    word = [FAILED_ALIKE in api.request_text(i) for i in range(1, 6)]
    # After the 4th attempt's batch; without it, with the 5th call's result, failed as it is.
    assert word.index(True) == (3 if claude_release.knows_post_tool_batch else 4)
    state = arcguard_state(project, run.session_id)
    assert log_kinds(state) == ["nudge"]
