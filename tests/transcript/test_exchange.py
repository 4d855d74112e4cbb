"""`records.last_exchange`: the newest assistant message and whether a tool result followed it."""

from __future__ import annotations

import json

from testing.builders import assistant_entries
from testing.builders import noise
from testing.builders import text
from testing.builders import tool_result
from testing.builders import tool_use
from testing.builders import user_prompt

from arcguard.transcript import records


def _exchange(entries):
    lines = [json.dumps(e).encode() for e in reversed(entries)]
    return records.last_exchange(records.conversation_entries(lines, json.loads))


def test_a_tool_result_after_the_newest_message_is_pending():
    entries = assistant_entries(tool_use("Bash", {"command": "ls"}, tool_id="t1"))
    exchange = _exchange(entries + [tool_result("t1", "a b"), noise()])
    assert exchange.result_pending and exchange.message.kind == "tool_use"


def test_an_answer_after_the_tool_result_is_not_pending():
    entries = (
        assistant_entries(tool_use("Bash", {"command": "ls"}, tool_id="t1"))
        + [tool_result("t1", "a b")]
        + assistant_entries(text("Listed."))
    )
    exchange = _exchange(entries)
    assert not exchange.result_pending and exchange.message.text == "Listed."


def test_an_operator_prompt_is_not_a_tool_result():
    exchange = _exchange(assistant_entries(text("Hi.")) + [user_prompt("tool_result please")])
    assert not exchange.result_pending


def test_a_subagent_tool_result_does_not_count():
    result = tool_result("t9", "x")
    result["isSidechain"] = True
    exchange = _exchange(assistant_entries(text("Hi.")) + [result])
    assert not exchange.result_pending


def _checked(failed: bool) -> list:
    return assistant_entries(tool_use("Bash", {"command": "pnpm -r lint"}, tool_id="t1")) + [
        tool_result("t1", "Exit code 1\nlint failed" if failed else "ok", is_error=failed)
    ]


def test_the_failed_results_the_final_message_answers_are_kept():
    failures = _exchange(_checked(True) + assistant_entries(text("Done."))).failures
    assert failures == ("Exit code 1\nlint failed",)
    assert _exchange(_checked(False) + assistant_entries(text("Done."))).failures == ()


def test_every_failed_result_of_a_parallel_batch_is_kept():
    calls = assistant_entries(
        *(tool_use("Bash", {"command": f"check {n}"}, tool_id=f"t{n}") for n in range(3))
    )
    results = [
        tool_result("t0", "HTTP 404", is_error=True),
        tool_result("t1", "pushed"),
        tool_result("t2", "3 errors", is_error=True),
    ]
    failures = _exchange(calls + results + assistant_entries(text("Done."))).failures
    assert sorted(failures) == ["3 errors", "HTTP 404"]


def test_a_message_not_written_yet_answers_no_failure():
    exchange = _exchange(_checked(True))
    assert exchange.result_pending and exchange.failures == ()


def test_a_failure_before_the_operator_spoke_is_not_the_final_message_s():
    entries = _checked(True) + assistant_entries(text("It fails.")) + [user_prompt("go on")]
    assert _exchange(entries + assistant_entries(text("Done."))).failures == ()


def test_a_failure_the_operator_spoke_after_is_not_the_final_message_s():
    entries = _checked(True) + [user_prompt("just wrap up")] + assistant_entries(text("Done."))
    assert _exchange(entries).failures == ()
