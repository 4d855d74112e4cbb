"""The user's line about each decision: one per hook run, worded per kind, never for the model."""

from __future__ import annotations

import pytest

from arcguard.core.arc_keeper.stop import Final
from arcguard.core.arc_keeper.stop import Signals
from arcguard.core.arc_keeper.stop import decide_stop
from arcguard.core.config import default_config
from arcguard.core.display import notices
from arcguard.core.state import fresh_state
from tests.core.test_stop import NOW
from tests.core.test_stop import with_arc


CFG = default_config()


def test_a_continuation_says_which_in_a_row_and_why():
    entry = {"kind": "block", "rule": "question", "consecutive": 1, "reason": "x"}
    assert notices.user_line([entry], CFG) == (
        "arcguard sent the model back to work (1 of 2 in a row):"
        " it stopped to ask permission mid-arc"
    )


def test_the_stop_decision_logs_what_the_line_needs():
    out, state = decide_stop(
        with_arc(),
        Signals(Final.from_text("Want me to run the tests?")),
        CFG,
        NOW,
        command="arcguard",
    )
    assert out is not None
    line = notices.user_line(state["log"], CFG)
    assert line == (
        "arcguard sent the model back to work (1 of 2 in a row):"
        " it stopped to ask permission mid-arc"
    )
    assert line not in out["reason"]  # the model's text is another one


@pytest.mark.parametrize(
    ("entry", "start"),
    [
        ({"kind": "deny", "operation": "Bash: ls", "runs": 2}, "arcguard denied a repeated call"),
        (
            {"kind": "pause", "reason": "arcguard paused this session: x. Send a message."},
            "arcguard paused this session: x.",
        ),
        ({"kind": "nudge", "reason": "[arcguard] 8 turns"}, "arcguard asked the model to check"),
        ({"kind": "resume", "reason": "operator message"}, "arcguard: your message cleared"),
        (
            {"kind": "give-up", "reason": "no resume after the API limit: spent"},
            "arcguard will not",
        ),
        ({"kind": "cap", "reason": "cap"}, "arcguard let the model stop mid-arc"),
        ({"kind": "limit-wait", "attempt": 1, "of": 3}, "arcguard will wake this session"),
        ({"kind": "block", "rule": "dead-resume"}, "arcguard sent the model back to work"),
    ],
)
def test_each_acting_kind_has_its_own_line(entry, start):
    assert notices.user_line([entry], CFG).startswith(start)


def test_a_kind_without_a_text_of_its_own_still_gets_one():
    entry = {"kind": "check-in-soon", "reason": "[arcguard] the model was asked\nto report"}
    assert notices.user_line([entry], CFG) == (
        "arcguard (check-in-soon): the model was asked to report"
    )


@pytest.mark.parametrize("kind", sorted(notices.SILENT))
def test_what_arcguard_only_saw_says_nothing(kind):
    assert notices.user_line([{"kind": kind, "reason": "r"}], CFG) is None


def test_of_several_decisions_the_weightiest_is_told():
    deny = {"kind": "deny", "operation": "Bash: ls", "runs": 3}
    pause = {"kind": "pause", "reason": "arcguard paused this session: a cycle."}
    assert notices.user_line([deny, pause], CFG) == "arcguard paused this session: a cycle."


def test_the_line_is_one_bounded_line():
    entry = {"kind": "pause", "reason": "arcguard paused\n" + "x" * 1000}
    line = notices.user_line([entry], CFG)
    assert "\n" not in line and len(line) == notices.MAX_LINE


def test_attach_adds_the_line_or_makes_an_output_of_it():
    assert notices.attach(None, None) is None
    assert notices.attach(None, "hi") == {"systemMessage": "hi"}
    assert notices.attach({"decision": "block", "reason": "r"}, "hi") == {
        "decision": "block",
        "reason": "r",
        "systemMessage": "hi",
    }


def test_a_fresh_state_has_nothing_to_tell():
    assert notices.user_line(fresh_state("s", NOW)["log"], CFG) is None
