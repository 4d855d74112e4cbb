"""The /goal rule: what marks a goal active, and the arc keeper standing aside for it."""

from __future__ import annotations

import json

import pytest

from arcguard.core import render
from arcguard.core.arc_keeper import goal
from arcguard.core.arc_keeper.stop import Final
from arcguard.core.arc_keeper.stop import Harness
from arcguard.core.arc_keeper.stop import Signals
from arcguard.core.arc_keeper.stop import decide_stop
from arcguard.core.config import default_config
from arcguard.core.display import statusline
from arcguard.core.state import fresh_state
from arcguard.transcript import marks
from tests.core.test_stop import NOW
from tests.core.test_stop import with_arc


CFG = default_config()


@pytest.mark.parametrize(
    ("prompt", "after"),
    [
        ("/goal the build is green", "the build is green"),
        ("  /goal   two\nlines  ", "two lines"),
        ("/goal clear", None),
        ("/goal", "kept"),  # prints the usage: the goal stays as it was
        ("/goals x", "kept"),
        ("please /goal x", "kept"),
    ],
)
def test_the_prompt_that_sets_or_clears_a_goal(prompt, after):
    state = fresh_state("s", NOW)
    state["seen"]["goal"] = "kept"
    goal.on_prompt(state, prompt)
    assert state["seen"].get("goal") == after


def test_the_transcript_corrects_the_state():
    state = fresh_state("s", NOW)
    goal.observe(state, None)
    assert not goal.active(state)
    goal.observe(state, goal.Mark(False, "ship it"))
    assert goal.active(state) and state["seen"]["goal"] == "ship it"
    goal.observe(state, None)  # nothing in the tail read: the state's word stands
    assert goal.active(state)
    goal.observe(state, goal.Mark(True, "ship it"))
    assert not goal.active(state)


def test_an_unprintable_condition_is_cleaned():
    state = fresh_state("s", NOW)
    goal.observe(state, goal.Mark(False, "a\x1b]0;x\x07b" + "y" * 400))
    shown = state["seen"]["goal"]
    assert shown.isprintable() and len(shown) == goal.MAX_CONDITION


def _stop(state, final, mark=None, *, resume_id=None):
    final.resume_id = resume_id
    return decide_stop(
        state,
        Signals(final, harness=Harness(goal=mark)),
        CFG,
        NOW,
    )


def test_a_stall_under_an_active_goal_is_left_to_the_goal():
    out, state = _stop(with_arc(), Final.from_text("No response requested."), goal.Mark(False, "c"))
    assert out is None
    assert state["log"][-1]["kind"] == "allow"
    assert "/goal is active and not met" in state["log"][-1]["reason"]
    assert state["arc"]["total_blocks"] == 0


def test_a_met_goal_gives_the_stop_back():
    state = with_arc()
    state["seen"]["goal"] = "c"
    out, state = _stop(state, Final.from_text("No response requested."), goal.Mark(True, "c"))
    assert out is not None and isinstance(out[0], render.Continue)


def test_a_dead_resume_under_an_active_goal_is_left_to_the_goal():
    state = fresh_state("sid", NOW)
    state["seen"]["goal"] = "c"
    out, state = _stop(state, Final.from_text("No response requested."), resume_id="r1")
    assert out is None


def test_the_status_line_shows_a_goal_as_delegated_work():
    state = fresh_state("s", NOW)
    assert statusline.segment(state, CFG, NOW, str, waiter_alive=True) == ""
    state["seen"]["goal"] = "the build is green"
    assert (
        statusline.segment(state, CFG, NOW, str, waiter_alive=True)
        == "arcguard goal the build is green"
    )
    assert goal.delegated(state, CFG, NOW)


def _attachment(**body):
    return {"type": "attachment", "attachment": {"type": "goal_status", **body}}


def _marks(entries_newest_first):
    lines = [json.dumps(e).encode() for e in entries_newest_first]
    return marks.tail_marks([*lines, b"{not json goal_status"], json.loads)


def test_the_newest_goal_status_entry_is_the_one_read():
    entries = [
        _attachment(met=True, condition="new"),
        {"type": "attachment", "attachment": {"type": "goal_status", "met": "yes"}},
        _attachment(met=False, condition="old"),
    ]
    assert _marks(entries).goal == (True, "new")
    assert _marks(entries[1:]).goal == (False, "old")
    assert _marks([{"type": "user"}]).goal is None


def test_a_state_cut_to_its_essentials_keeps_the_goal():
    from arcguard.core.state import essentials

    state = fresh_state("s", NOW)
    state["seen"]["goal"] = "the build is green"
    state["seen"]["overrides"] = ["w1"]
    kept = essentials(json.loads(json.dumps(state)), "s", NOW)
    assert kept["seen"]["goal"] == "the build is green"
    assert kept["seen"]["overrides"] == ["w1"]
