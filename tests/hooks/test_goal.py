"""Claude Code's /goal from the hooks' side: the arc keeper stands aside while a goal is
active and not met, and the goal counts as delegated work for the loop guard's backstop."""

from __future__ import annotations

import os

import pytest
from testing import hook_driver
from testing.builders import assistant_entries
from testing.builders import hook_output
from testing.builders import run_hook
from testing.builders import text
from testing.builders import write_transcript

from arcguard.core.config import default_config
from tests.hooks.test_hook_commands import SID
from tests.hooks.test_hook_commands import start_arc
from tests.hooks.test_hook_commands import stop_payload
from tests.reliability import support


NOOP = "No response requested."


def goal_status(met, condition="tests pass", **extra):
    return {
        "type": "attachment",
        "uuid": f"goal-{met}-{len(extra)}",
        "attachment": {"type": "goal_status", "met": met, "condition": condition, **extra},
    }


def _stop(tmp_path, *entries):
    path = write_transcript(
        tmp_path / "t.jsonl", [*entries, *assistant_entries(text(NOOP), version="2.1.328")]
    )
    return hook_output(run_hook("stop", stop_payload(path, NOOP)))


def test_an_active_goal_owns_the_stop_and_the_keeper_logs_why(tmp_path):
    start_arc()
    out = _stop(tmp_path, goal_status(False, sentinel=True), goal_status(False, reason="not yet"))
    assert out is None
    state = support.read_state(os.environ["ARCGUARD_HOME"], SID)
    last = state["log"][-1]
    assert last["kind"] == "allow" and "/goal is active and not met" in last["reason"]
    assert state["seen"]["goal"] == "tests pass"


@pytest.mark.parametrize(
    "last",
    [goal_status(True, iterations=2), goal_status(True, sentinel=True)],  # met, cleared
)
def test_a_goal_met_or_cleared_gives_the_stop_back_to_the_keeper(tmp_path, last):
    start_arc()
    out = _stop(tmp_path, goal_status(False, sentinel=True), last)
    assert out is not None and "additionalContext" in out["hookSpecificOutput"]


def _backstop_pauses(home, *, prompt):
    cfg = default_config()
    cfg.backstop_nudge_turns, cfg.checkin_turns = 1, 1
    cfg.backstop_pause_turns, cfg.backstop_pause_turns_arc = 3, 1000
    hook_driver.dispatch("posture", {"session_id": SID, "prompt": prompt}, home, cfg)
    for n in range(8):
        call = {"tool_name": "Bash", "tool_input": {"command": f"true {n}"}, "tool_use_id": f"t{n}"}
        batch = {"session_id": SID, "tool_calls": [{**call, "tool_response": ""}]}
        out = hook_driver.dispatch("post-batch", batch, home, cfg)
        if out and '"continue": false' in out.replace('"continue":false', '"continue": false'):
            return True
    return False


def test_a_goal_counts_as_delegated_work_for_the_backstop(tmp_path):
    assert _backstop_pauses(tmp_path / "plain", prompt="fix the build")
    assert not _backstop_pauses(tmp_path / "goal", prompt="/goal the build is green")
