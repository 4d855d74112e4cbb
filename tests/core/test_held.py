"""A request decided at a PreToolUse waits for the call's result, where a failure keeps it."""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.loop_guard import held
from tests.core.test_turns import Session


def _asked() -> tuple[Session, render.Decisions]:
    """A session on a release without PostToolBatch whose last call closed a turn with a
    request, and that request."""
    s = Session(checkin_turns=3)
    for n in range(5):
        s.message(f"cat notes{n}.txt", result="unchanged")
    [closed] = [o for o in s.outputs if o and render.context_text(o)]
    return s, closed


def _nudges(state) -> list[dict]:
    return [e for e in state["log"] if e["kind"] == "nudge"]


def test_a_request_is_held_with_its_log_entry_then_given_and_logged_once():
    s, closed = _asked()
    [entry] = _nudges(s.state)
    kept, state = held.hold(s.state, closed, None, s.now)
    assert kept is None
    assert _nudges(state) == [] and state["guard"]["tracks"]["main"]["held"] == [entry]
    assert _nudges(s.state) == [entry]  # the state it was given is not changed

    given, state = held.give(state, None, s.now)
    assert given == closed
    assert _nudges(state) == [entry] and state["guard"]["tracks"]["main"]["held"] == []
    assert held.give(state, None, s.now) == (None, state)


def test_a_denied_call_keeps_its_request_as_a_deny_always_reaches_the_model():
    s, closed = _asked()
    decided = (*closed, render.Deny("denied"))
    assert held.hold(s.state, decided, None, s.now) == (decided, s.state)


def test_a_request_is_given_with_its_own_agents_result_only():
    s, closed = _asked()
    _, state = held.hold(s.state, closed, None, s.now)
    assert held.give(state, "agent-7", s.now) == (None, state)
    assert held.give(state, None, s.now)[0] == closed


def test_only_the_latest_requests_are_held_and_only_the_newest_of_alike_ones_moves():
    s, closed = _asked()
    state = s.state
    [entry] = _nudges(state)
    for n in range(3):
        state["log"].append({**entry, "t": n})
        _, state = held.hold(state, closed, None, s.now)
    assert [e["t"] for e in state["guard"]["tracks"]["main"]["held"]] == [0, 1, 2][-held.MAX_HELD :]


def test_a_request_decided_as_the_model_stops_waits_as_a_stop_cannot_carry_it():
    # Added context on a Stop would send the model back to work: it is not sent there.
    s = Session(checkin_turns=3)
    for n in range(4):  # the check-in comes as the 4th turn closes, at the stop
        s.message(f"cat notes{n}.txt", result="unchanged")
    assert s.stop() is None
    assert _nudges(s.state) == [] and len(s.state["guard"]["tracks"]["main"]["held"]) == 1
