"""Every text arcguard hands Claude Code fits, whole, under Claude Code's 10,000-character cap
(longer context is moved to a file and the model sees only a preview)."""

from __future__ import annotations

from typing import Any

import pytest

from arcguard.core import render
from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper.posture import posture_context
from arcguard.core.arc_keeper.stop import Final
from arcguard.core.arc_keeper.stop import Signals
from arcguard.core.arc_keeper.stop import decide_stop
from arcguard.core.config import default_config
from arcguard.core.state import fresh_state


CAP = 10_000
NOW = 1_000_000.0
COMMAND = "arcguard"
SID = "s1"


def _state(slug: str, milestone: str) -> Any:
    state = fresh_state(SID, NOW)
    state["arc"] = arcs.new_arc(slug, [milestone], NOW).data
    return state


@pytest.mark.parametrize(
    ("slug", "milestone"), [("s" * 10_000, "m"), ("s", "m" * 20_000), ("é" * 12_000, "☃" * 12_000)]
)
def test_a_huge_slug_or_milestone_keeps_the_posture_context_under_the_cap(slug, milestone):
    out = posture_context(_state(slug, milestone), default_config(), NOW, command=COMMAND)
    text = render.output(out, "UserPromptSubmit")["hookSpecificOutput"]["additionalContext"]
    assert len(text) < CAP
    assert f"arc complete {SID}" in text[-200:]  # the way out is never cut off


@pytest.mark.parametrize(("slug", "milestone"), [("s" * 10_000, "m"), ("s", "m" * 20_000)])
def test_a_huge_slug_or_milestone_keeps_the_stop_reason_under_the_cap(slug, milestone):
    out, _ = decide_stop(
        _state(slug, milestone),
        Signals(Final.from_text("No response requested.")),
        default_config(),
        NOW,
    )
    printed = render.output(out, "Stop")
    assert printed is not None and printed["decision"] == "block"
    assert len(printed["reason"]) < CAP
    assert "`arc complete` command" in printed["reason"][-200:]


def test_every_output_text_is_bounded_whatever_it_is_given():
    huge = "x" * 50_000
    outputs = [
        render.output((render.Continue(huge),), "Stop"),
        render.output((render.Deny(huge),), "PreToolUse"),
        render.output((render.Pause(huge),), "PostToolBatch"),
        render.output((render.Context(huge),), "PostToolBatch"),
    ]
    texts = [
        outputs[0]["reason"],
        outputs[1]["hookSpecificOutput"]["permissionDecisionReason"],
        outputs[2]["stopReason"],
        outputs[3]["hookSpecificOutput"]["additionalContext"],
    ]
    assert all(len(text) < CAP and text.endswith("…") for text in texts)


def test_a_short_text_is_passed_on_unchanged():
    assert render.output((render.Continue("go on"),), "Stop") == {
        "decision": "block",
        "reason": "go on",
    }
