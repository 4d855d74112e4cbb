"""The user's words are progress, and a deny says what is true when it is given.

A plan sent back with feedback, a question answered, a call refused with a reason: each result
carries something the user said, so the call that brought it is never a blind repeat. Copies of
one call issued together have no result yet, so a deny of the third says they were issued at
once rather than that they "already ran with the same result".
"""

from __future__ import annotations

from testing.guard_driver import Call
from testing.guard_driver import Driver

from arcguard.core import render
from arcguard.core.loop_guard import guard
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import repeat
from arcguard.core.tool_call import ToolCall
from arcguard.core.tool_call import ToolResult


REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it"
    " was a file edit, the new_string was NOT written to the file). To tell you how to proceed,"
    " the user said:\n"
)
PLAN = {"plan": "## Plan\n1. Split the loader.\n2. Test it."}


def _reason(output: object) -> str:
    assert isinstance(output, tuple)
    return next(d.text for d in output if isinstance(d, render.Deny))


def test_a_plan_sent_back_with_feedback_eight_times_is_never_denied_or_paused():
    d = Driver()
    for n in range(8):
        rejected = Call("ExitPlanMode", PLAN, error=REJECTED + f"what about case {'abcdefgh'[n]}?")
        d.turn(rejected)
    d.turn(Call("ExitPlanMode", PLAN, response="User has approved your plan."))
    assert d.denied == []
    assert d.paused is None


def test_a_question_asked_again_after_each_answer_is_never_denied():
    d = Driver()
    ask = {"questions": [{"question": "Which store?", "options": []}]}
    for answer in ("Postgres", "Postgres", "SQLite", "SQLite", "SQLite"):
        d.turn(
            Call("AskUserQuestion", ask, response=f'User has answered your questions: "{answer}"')
        )
    assert d.denied == []


def test_a_command_refused_with_a_reason_is_not_a_run_and_its_reason_is_progress():
    d = Driver()
    said = Call("Bash", {"command": "git push"}, response=REJECTED + "pull first")
    for _ in range(3):
        out = d.turn(said)
    assert d.denied == []
    assert d.state["guard"]["tracks"]["main"]["blocked_rounds"] == 0
    assert not out["context"]


def test_the_users_words_are_recognised_in_every_form_a_result_takes():
    heard = opkey.carries_user_words
    assert heard("Bash", ToolResult(failed=True, error=REJECTED + "use the other branch"))
    assert heard("Bash", ToolResult(response=REJECTED + "not now"))
    assert heard("AskUserQuestion", ToolResult(response="User has answered your questions: x"))
    assert heard("AskUserQuestion", ToolResult(response={"answers": {"q": "a"}}))
    stop = REJECTED.split(" To tell")[0] + " STOP what you are doing and wait for the user."
    assert not heard("ExitPlanMode", ToolResult(failed=True, error=stop))
    assert not heard("Bash", ToolResult(response={"stdout": "the user said: hi"}))
    assert opkey.batch_never_ran(stop)


def test_the_third_of_three_identical_calls_issued_at_once_is_denied_as_a_duplicate():
    d = Driver()
    outputs = []
    for n in range(3):
        call = ToolCall("Bash", {"command": "make test"}, f"toolu_at_once_{n}")
        out, d.state = repeat.decide_pre_tool(d.state, d.cfg, d.now, call)
        outputs.append(out)
    assert outputs[:2] == [None, None]
    reason = _reason(outputs[2])
    assert "issued 3 times at once" in reason
    assert "already ran" not in reason


def test_a_call_whose_result_never_came_in_an_earlier_turn_is_not_a_run():
    # A refused call leaves no result event and, when the batch is abandoned, nothing settles
    # it: once its turn is over it must not count as a run with an "unknown" result.
    d = Driver()
    for n in range(2):
        call = ToolCall("Bash", {"command": "deploy"}, f"toolu_r{n}")
        out, d.state = repeat.decide_pre_tool(d.state, d.cfg, d.now, call)
        assert out is None
        guard.on_narration(d.state)
    call = ToolCall("Bash", {"command": "deploy"}, "toolu_r2")
    out, d.state = repeat.decide_pre_tool(d.state, d.cfg, d.now, call)
    assert out is None
