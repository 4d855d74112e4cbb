"""The Stop decision (stall rules, caps and staleness), table-driven."""

from __future__ import annotations

import pytest
from testing.builders import arc_of
from testing.builders import guard_of

from arcguard.core import render
from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper.stop import COMPLETE
from arcguard.core.arc_keeper.stop import PRODUCTIVE
from arcguard.core.arc_keeper.stop import SKIP
from arcguard.core.arc_keeper.stop import STALL
from arcguard.core.arc_keeper.stop import Final
from arcguard.core.arc_keeper.stop import Harness
from arcguard.core.arc_keeper.stop import Signals
from arcguard.core.arc_keeper.stop import classify
from arcguard.core.arc_keeper.stop import decide_stop
from arcguard.core.config import default_config
from arcguard.core.schema import Pause
from arcguard.core.schema import StateFile
from arcguard.core.state import fresh_state


NOW = 1_800_000_000.0
CFG = default_config()


def with_arc(milestones=("slice one",)):
    state = fresh_state("sid", NOW)
    StateFile.view(state).arc = arcs.new_arc("demo", list(milestones), NOW)
    return state


def stop(state, final, *, active=False, background=False, at=NOW):
    """The Stop decision as the hook prints it on a release without Stop context."""
    out, state = decide_stop(
        state,
        Signals(final, stop_hook_active=active, background_running=background),
        CFG,
        at,
    )
    return render.output(out, "Stop"), state


@pytest.mark.parametrize(
    ("final", "verdict"),
    [
        (Final("tool_use"), PRODUCTIVE),
        (Final("text", "No response requested."), STALL),
        (Final("empty"), STALL),
        (Final("text", "   "), STALL),
        (Final("text", "Here is the full analysis with a recommendation."), PRODUCTIVE),
        (Final("thinking"), SKIP),
        (Final("text", "Answer."), PRODUCTIVE),  # thinking + substantive text
        (Final("other"), PRODUCTIVE),  # an image-only or server-tool-only turn is content
        (Final("text", "The arc is complete."), COMPLETE),
    ],
)
def test_classification(final, verdict):
    assert classify(final) == verdict


def test_a_stall_mid_arc_is_blocked_with_slug_next_milestone_and_the_way_to_complete():
    out, state = stop(with_arc(), Final.from_text("No response requested."))
    assert out["decision"] == "block"
    assert "'demo'" in out["reason"] and "slice one" in out["reason"]
    # Claude Code prints the reason on the screen: it names the command, the posture holds it.
    assert "`arc complete` command from arcguard's note" in out["reason"]
    assert "sid" not in out["reason"]
    assert arc_of(state).reconcile_count == 1 and arc_of(state).total_blocks == 1
    assert state["log"][-1]["kind"] == "continue"


def test_a_release_that_takes_stop_context_is_continued_with_it_and_the_same_caps():
    state = with_arc()
    outs = []
    for _ in range(3):
        out, new = decide_stop(
            state,
            Signals(
                Final.from_text("No response requested."),
                stop_hook_active=bool(outs),
                harness=Harness(via_context=True),
            ),
            CFG,
            NOW,
        )
        outs.append(render.output(out, "Stop", via_context=True))
        state = new or state
    first = outs[0]["hookSpecificOutput"]
    assert "decision" not in outs[0]
    assert first["hookEventName"] == "Stop" and "'demo'" in first["additionalContext"]
    assert "`arc complete` command from arcguard's note" in first["additionalContext"]
    assert outs[2] is None  # the consecutive cap counts these continuations too
    assert [e["kind"] for e in state["log"]] == ["continue", "continue", "cap"]


@pytest.mark.parametrize(
    "text",
    [
        "No response requested. Stopping here and awaiting input.",
        "Acknowledged.",
        "Okay.",
        "Got it.",
        "Done.",
    ],
)
def test_anything_but_the_two_no_ops_is_left_alone(text):
    out, state = stop(with_arc(), Final.from_text(text))
    assert out is None
    assert arc_of(state).total_blocks == 0


def test_an_inactive_arc_is_never_blocked():
    state = with_arc()
    arcs.complete(arc_of(state), NOW)
    assert stop(state, Final.from_text("No response requested."))[0] is None
    assert stop(fresh_state("sid", NOW), Final.from_text(""))[0] is None
    assert stop(None, Final.from_text(""))[0] is None


def test_a_stale_arc_is_never_blocked():
    later = NOW + CFG.stale_seconds + 1
    assert stop(with_arc(), Final.from_text(""), at=later)[0] is None


def test_staleness_counts_from_the_last_activity_not_from_set():
    state = with_arc()
    arcs.touch(arc_of(state), NOW + 7 * 3600)
    out, _ = stop(state, Final.from_text(""), at=NOW + 9 * 3600)
    assert out is not None


@pytest.mark.parametrize(
    "text", ["All milestones shipped.", "All done!", "The arc is complete.", "Task complete."]
)
def test_a_completion_claim_releases_the_arc(text):
    out, state = stop(with_arc(), Final.from_text(text), active=True)
    assert out is None
    assert arc_of(state).active is False and arc_of(state).has("completed_at")
    assert state["log"][-1]["kind"] == "release"


# A summary of the finished work, as models write one: opened with "Done", or closed by a claim
# that the work landed and its checks pass.
LONG_COMPLETIONS = [
    "Done: the `retries` option is read from the config now.\n\n- `client.py` passes it to the"
    " session\n- `test_client.py` covers 0, 1 and 5 retries\n\nThe suite is green (88 passed).",
    "All done. Here is what changed:\n\n1. the parser keeps line numbers\n2. errors quote them",
    "The importer streams rows now:\n\n- a cursor instead of `fetchall`\n- one flush per 1000"
    " rows\n\nThe migration is finished and verified.",
    "Both endpoints page by cursor.\n\nAll four checklist items are done; typecheck is clean and"
    " the full suite passes (97 tests).",
]
# The same openings and closings where the closing still hands work back.
NOT_COMPLETIONS = [
    "Done with the parser: it keeps line numbers now. The lexer is next.",
    "Done: the parser keeps line numbers.\n\nWant me to do the lexer the same way?",
    "Done: the parser keeps line numbers. Remaining: the lexer.",
    "The parser keeps line numbers.\n\nThe lexer still needs the same change.",
    "Done. But 3 tests in `tests/test_lexer.py` still fail on tabs.",
    "Done: 14 of the 20 handlers use the new session API.\n\nThe other six wait on the adapter.",
    "All done with the parser. The lexer comes after it.",
    "Implemented the exporter.\n\nStill to do: the importer and the CLI.\n\nThe exporter is"
    " committed and its tests pass.",
    "Milestone 1 of 3 complete and verified.",
    "Done. The deploy script is updated.\n\nCould you run `./deploy.sh --prod` from your machine?",
]


@pytest.mark.parametrize("text", LONG_COMPLETIONS)
def test_a_summary_that_says_the_work_is_done_releases_the_arc(text):
    out, state = stop(with_arc(), Final.from_text(text), active=True)
    assert out is None
    assert arc_of(state).active is False
    assert state["log"][-1]["kind"] == "release"


def test_a_bare_done_leaves_the_arc_as_it_was():
    _, state = stop(with_arc(), Final.from_text("Done."), active=True)
    assert arc_of(state).active is True


@pytest.mark.parametrize("text", NOT_COMPLETIONS)
def test_a_summary_with_work_left_or_handed_back_does_not_release_the_arc(text):
    _, state = stop(with_arc(), Final.from_text(text), active=True)
    assert arc_of(state).active is True


def test_productive_turn_outside_a_chain_resets_the_consecutive_counter():
    state = with_arc()
    arc_of(state).reconcile_count = 2
    _, state = stop(state, Final("tool_use"), active=False)
    assert arc_of(state).reconcile_count == 0


def test_trivial_turns_inside_a_chain_do_not_reset_the_cap():
    state = with_arc()
    results = []
    for _ in range(3):
        out, state = stop(state, Final.from_text(""), active=True)
        results.append(bool(out))
        _, state = stop(state, Final("tool_use"), active=True)
    assert results == [True, True, False]


def test_lifetime_cap_allows_exactly_five_continuations():
    state = with_arc()
    blocks = 0
    for _ in range(7):
        out, state = stop(state, Final.from_text(""))
        blocks += bool(out)
        _, state = stop(state, Final("tool_use"), active=False)  # a real turn in between
    assert blocks == 5
    assert state["log"][-2]["kind"] == "cap"


def test_caps_are_configurable_but_stay_under_claude_codes_block_cap():
    from arcguard.core.config_input import build_config

    cfg, problems = build_config({"max_consecutive_continuations": 9}, {})
    assert problems and cfg.max_consecutive_continuations == 2
    cfg, problems = build_config({}, {"max_consecutive_continuations": "4"})
    assert not problems and cfg.max_consecutive_continuations == 4


@pytest.mark.parametrize(
    ("final", "background", "paused"),
    [
        (Final("text", "No response requested.", synthetic=True), False, False),
        (Final.from_text("No response requested."), True, False),
        (Final.from_text(""), False, True),
    ],
)
def test_never_continued_api_errors_background_waits_and_paused_sessions(final, background, paused):
    state = with_arc()
    if paused:
        guard_of(state).paused = Pause(kind="cycle", reason="r", at=NOW)
    out, new = stop(state, final, background=background)
    assert out is None
    assert arc_of(new).total_blocks == 0
    assert new["log"][-1]["kind"] == "allow"


def test_no_final_message_is_never_blocked():
    out, _ = stop(with_arc(), None)
    assert out is None


def test_narration_at_stop_clears_the_cycle_history_but_a_no_op_does_not():
    state = with_arc()
    state["guard"]["tracks"] = {
        "main": {"fingerprints": ["a", "b"], "streak": 2, "checkin_done": False, "turns": 2}
    }
    _, after_noop = stop(state, Final.from_text("No response requested."))
    assert after_noop["guard"]["tracks"]["main"]["fingerprints"] == ["a", "b"]
    _, after_text = stop(state, Final.from_text("Here is where things stand."))
    assert after_text["guard"]["tracks"]["main"]["fingerprints"] == []
    assert after_text["guard"]["tracks"]["main"]["turns"] == 3
