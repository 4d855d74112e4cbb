"""A stall that says why only the operator can go on is left alone, and the log says why."""

from __future__ import annotations

import pytest

from arcguard.core import render
from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper import user_needed
from arcguard.core.arc_keeper.stop import Final
from arcguard.core.arc_keeper.stop import Signals
from arcguard.core.arc_keeper.stop import decide_stop
from arcguard.core.config import default_config
from arcguard.core.schema import StateFile
from arcguard.core.state import fresh_state


NOW = 1_800_000_000.0

RIGHTFUL = {
    "a step that cannot be undone": (
        "The script is ready and tested on a copy. Running it drops the legacy orders table in "
        "production, which cannot be undone. Shall I run it?"
    ),
    "something only a person at the machine can do": (
        "The firmware builds, but flashing needs the board plugged back in over USB. Tell me "
        "when it is connected."
    ),
    "the operator's own credentials": (
        "The release is tagged. Publishing asks for the 2FA code from your authenticator app; "
        "want me to publish once you send it?"
    ),
    "work outside the task": (
        "Fixed, and the suite passes. Not part of this task, but the retry helper has the same "
        "issue: want me to fix it too?"
    ),
    "a legal or licensing call": (
        "The font we need is sold under a commercial licence; whether to buy one is a legal "
        "question. Which way do you want to go?"
    ),
}

STALLS = [
    "Tests pass for the parser. Want me to continue with the exporter?",
    "I made the change. Should I also update the docs?",
    "The parser now rejects illegal characters. Shall I add more tests?",  # not "legal"
    "The engine finds no legal move there. Want me to continue with the evaluator?",
    "Should I port the worker to an OTP gen_server next?",
    "The client now tries to reconnect the socket. Shall I add the retry tests?",
    "It is fully reversible, nothing irreversible here. Shall I go on?",
    "Nothing here needs a force push. Want me to continue?",
    "Next is the licensing module from the plan. Shall I start on it?",
    "Next I'll run `git push --force` on the branch.",  # in code: shown, not said
    # A reason said early in a long report is about something else, and an announced step
    # says the model goes on.
    "A force-push rewrote the comment ids.\n\nThe parser is fixed.\n\nTests pass. Shall I go on?",
    "The branch history cannot be undone now. Next I'll update the skill.",
    # A call named in the opening but settled, not handed over: history, as the force-push.
    "Earlier I flagged the licensing question for the font; you answered it, so that's "
    "settled.\n\nThe exporter is half done.\n\nShall I continue with XLSX?",
    "## Licensing call: resolved (MIT)\n\nThe parser is fixed.\n\nTests pass. Shall I go on?",
]


@pytest.mark.parametrize(("why", "text"), RIGHTFUL.items(), ids=list(RIGHTFUL))
def test_a_stop_naming_why_only_the_operator_can_go_on_is_left_alone(why, text):
    assert user_needed.reason(text) == why
    out, state = _stop(text)
    assert out is None or out.get("decision") != "block"
    entry = state.log[-1]
    assert entry.kind == "allow" and f"only the operator can go on ({why})" in entry.reason


@pytest.mark.parametrize("text", STALLS)
def test_a_stall_naming_no_such_reason_or_announcing_a_step_is_still_sent_back(text):
    out, _ = _stop(text)
    assert out is not None and out["decision"] == "block"


def test_a_report_leading_with_a_call_only_the_operator_may_make_is_left_alone():
    # The call to make opens the report; the closing only says what works meanwhile.
    text = (
        "`extract_text()` is in, but which library backs it is a licensing call I can't make "
        "for you.\n\nThe best one is AGPL; the permissive ones miss two samples.\n\n"
        "Meanwhile the branch is usable on the MIT one, with the two misses marked xfail.\n\n"
        "Which way do you want to go?"
    )
    assert user_needed.reason(text) == "a legal or licensing call"
    out, _ = _stop(text)
    assert out is None or out.get("decision") != "block"


def test_work_outside_the_task_is_no_reason_while_milestones_are_left():
    text = RIGHTFUL["work outside the task"]
    assert user_needed.reason(text, work_left=True) is None
    out, _ = _stop(text, milestones=["wire the exporter"])
    assert out is not None and out["decision"] == "block"


def _stop(text, milestones=()):
    state = fresh_state("sid", NOW)
    StateFile.view(state).arc = arcs.new_arc("ship the importer", list(milestones), NOW)
    out, state = decide_stop(state, Signals(Final.from_text(text)), default_config(), NOW)
    return render.output(out, "Stop"), StateFile.view(state)
