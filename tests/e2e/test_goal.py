"""Claude Code's /goal next to the arc keeper, with the real CLI.

`/goal <condition>` installs a session-scoped Stop hook whose judge is a request to the same
Messages API ("has the following stopping condition been satisfied?"), answered here from the
script like any model turn. While the goal is active and not met the judge decides whether a
stop goes on; arcguard's keeper stands aside, so a stop is continued once, by the goal.
"""

from __future__ import annotations

import json

from scripted_api import ScriptedAPI
from scripted_api import text

from conftest import all_arcguard_settings
from conftest import arcguard_state
from conftest import log_kinds


NOOP = "No response requested."
CONDITION = "the importer tests pass"
STALL_REASON = "[arcguard] Autonomous arc 'ship the importer' is still active"


def verdict(ok: bool, reason: str) -> dict[str, object]:
    return text(json.dumps({"ok": ok, "reason": reason}))


def test_a_goal_continues_a_no_op_stop_once_and_the_keeper_stands_aside(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    with ScriptedAPI([text("Started: the importer skeleton is in place.")]) as api:
        first = run_claude(project, api, "/autonomous ship the importer")
        sid = first.session_id
        assert first.result is not None and sid, first.describe()
        api.add(
            text(NOOP),
            verdict(False, "the tests have not been run"),
            text("Ran the importer tests: 12 pass."),
            verdict(True, "the tests pass"),
        )
        second = run_claude(project, api, f"/goal {CONDITION}", extra_args=["--resume", sid])
        after_goal = len(api.requests)
        # The goal is met: the next no-op stop in the arc is the keeper's again.
        api.add(text(NOOP), text("Back on the importer: the writer milestone."))
        third = run_claude(project, api, "what is left?", extra_args=["--resume", sid])

    assert second.result is not None, second.describe()
    assert second.result["terminal_reason"] == "completed", second.describe()
    # The arc's first turn, then: the no-op, the judge, one continuation, the judge.
    assert after_goal == 5, second.describe()
    assert api.fallback_count == 0
    continued = api.request_text(3)
    assert f"[{CONDITION}]: the tests have not been run" in continued
    assert STALL_REASON not in continued
    assert all(STALL_REASON not in api.request_text(i) for i in range(after_goal))
    state = arcguard_state(project, sid)
    assert log_kinds(state).count("continue") == 1  # the one after the goal was met
    stood_aside = [e for e in state["log"] if e["kind"] == "allow"]
    assert stood_aside and "/goal is active and not met" in stood_aside[0]["reason"]
    assert third.result is not None, third.describe()
    assert len(api.requests) == 7, third.describe()
    assert STALL_REASON in api.request_text(6)
    assert state["arc"]["total_blocks"] == 1
    assert "goal" not in state["seen"]
