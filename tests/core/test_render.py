"""The decision records and Claude Code's output for them (`core.render`)."""

from __future__ import annotations

import pytest

from arcguard.core import render
from arcguard.core.render import Alert
from arcguard.core.render import Context
from arcguard.core.render import Continue
from arcguard.core.render import Deny
from arcguard.core.render import Notice
from arcguard.core.render import Pause


def test_nothing_decided_prints_nothing():
    assert render.output(None, "PreToolUse") is None
    assert render.output((), "Stop") is None


def test_each_decision_has_its_own_field_addressed_to_the_hook_event():
    assert render.output((Deny("again"),), "PreToolUse") == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "again",
        }
    }
    assert render.output((Pause("loop"),), "PostToolBatch") == {
        "continue": False,
        "stopReason": "loop",
    }
    assert render.output((Context("note"),), "SessionStart") == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "note"}
    }
    assert render.output((Notice("line"), Alert("\a")), "Stop") == {
        "systemMessage": "line",
        "terminalSequence": "\a",
    }


def test_a_continuation_is_a_block_or_stop_context_by_release():
    assert render.output((Continue("go on"),), "Stop") == {"decision": "block", "reason": "go on"}
    assert render.output((Continue("go on"),), "Stop", via_context=True) == {
        "hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "go on"}
    }


def test_a_pause_with_a_deny_and_a_line_is_one_object():
    decided = render.merge((Deny("p"), Pause("p")), None, (Notice("n"),))
    assert decided == (Deny("p"), Pause("p"), Notice("n"))
    printed = render.output(decided, "PreToolUse")
    assert printed is not None and printed["continue"] is False
    assert printed["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert printed["systemMessage"] == "n"
    assert render.merge(None, ()) is None


def test_several_texts_for_the_model_reach_it_as_one_in_order():
    printed = render.output((Context("first"), Context("second")), "PreToolUse")
    assert printed is not None
    assert printed["hookSpecificOutput"]["additionalContext"] == "first\n\nsecond"
    assert render.context_text((Pause("p"), Context("a"))) == "a"
    assert render.only_pauses((Context("a"), Pause("p"))) == (Pause("p"),)


@pytest.mark.parametrize(
    ("decided", "event", "via_context"),
    [
        ((Deny("d"), Pause("d"), Notice("n")), "PreToolUse", False),
        ((Context("c"), Alert("\a")), "PostToolBatch", False),
        ((Continue("c"),), "Stop", False),
        ((Continue("c"),), "Stop", True),
    ],
)
def test_what_is_printed_reads_back_as_the_same_decisions(decided, event, via_context):
    printed = render.output(decided, event, via_context=via_context)
    assert render.read(dict(printed)) == decided


def test_context_goes_first_into_a_printed_output():
    printed = render.output((Context("b"),), "UserPromptSubmit")
    assert printed is not None
    joined = render.with_context_first(dict(printed), "UserPromptSubmit", "a")
    assert render.read(joined) == (Context("a\n\nb"),)
    assert render.read(render.with_context_first({}, "PreToolUse", "a")) == (Context("a"),)
