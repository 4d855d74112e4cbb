"""`stop_policy`, the DECISION NEEDED protocol and dead resumes in the Stop decision."""

from __future__ import annotations

import pytest
from testing.builders import arc_of
from testing.builders import guard_of

from arcguard.core import render
from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper.stop import DECISION
from arcguard.core.arc_keeper.stop import KIND_TEXT
from arcguard.core.arc_keeper.stop import PRODUCTIVE
from arcguard.core.arc_keeper.stop import STALL
from arcguard.core.arc_keeper.stop import STALL_ANNOUNCED
from arcguard.core.arc_keeper.stop import STALL_OTHER
from arcguard.core.arc_keeper.stop import STALL_QUESTION
from arcguard.core.arc_keeper.stop import STALL_UNVERIFIED
from arcguard.core.arc_keeper.stop import Final
from arcguard.core.arc_keeper.stop import Signals
from arcguard.core.arc_keeper.stop import classify
from arcguard.core.arc_keeper.stop import decide_stop
from arcguard.core.config import default_config
from arcguard.core.config_input import build_config
from arcguard.core.schema import Pause
from arcguard.core.schema import StateFile
from arcguard.core.state import fresh_state


NOW = 1_800_000_000.0
QUESTION = "The parser handles quoted fields now. Want me to run the tests next?"
ANNOUNCED = "The parser handles quoted fields now. Next, I'll run the test suite."
SUMMARY = "The parser handles quoted fields now, with tests."
DECIDE = "DECISION NEEDED: the next step drops the legacy table, which destroys its data."


def policy(name):
    cfg, problems = build_config({}, {"stop_policy": name})
    assert not problems
    return cfg


def with_arc():
    state = fresh_state("sid", NOW)
    StateFile.view(state).arc = arcs.new_arc("demo", ["slice one"], NOW)
    return state


def stop(state, final, cfg, *, active=False, background=False):
    """The Stop decision as the hook prints it on a release without Stop context."""
    out, state = decide_stop(
        state,
        Signals(final, stop_hook_active=active, background_running=background),
        cfg,
        NOW,
    )
    return render.output(out, "Stop"), state


@pytest.mark.parametrize(
    ("text", "noop", "ask", "strict"),
    [
        ("No response requested.", STALL, STALL, STALL),
        ("", STALL, STALL, STALL),
        (QUESTION, PRODUCTIVE, STALL_QUESTION, STALL_QUESTION),
        (ANNOUNCED, PRODUCTIVE, STALL_ANNOUNCED, STALL_ANNOUNCED),
        (SUMMARY, PRODUCTIVE, PRODUCTIVE, STALL_OTHER),
        ("Do you want the cleanup included?", PRODUCTIVE, STALL_QUESTION, STALL_QUESTION),
        (DECIDE, DECISION, DECISION, DECISION),
        ("decision needed: shall I force-push main?", DECISION, DECISION, DECISION),
    ],
)
def test_what_each_policy_continues(text, noop, ask, strict):
    final = Final.from_text(text)
    assert [classify(final, p) for p in ("noop", "ask", "strict")] == [noop, ask, strict]


def test_the_default_policy_is_ask_and_the_environment_can_change_it():
    assert default_config().stop_policy == "ask"
    assert policy("STRICT").stop_policy == "strict"
    cfg, problems = build_config({}, {"stop_policy": "always"})
    assert cfg.stop_policy == "ask" and "stop_policy" in problems[0]
    cfg, problems = build_config({"stop_policy": 3}, {})
    assert cfg.stop_policy == "ask" and problems


@pytest.mark.parametrize(
    ("text", "seen"),
    [
        (QUESTION, "asking for permission or a choice"),
        (ANNOUNCED, "announcing a next step without taking it"),
    ],
)
def test_a_question_or_announced_step_mid_arc_is_sent_back_with_the_protocol(text, seen):
    out, state = stop(with_arc(), Final.from_text(text), policy("ask"))
    assert out is not None and out["decision"] == "block"
    assert seen in out["reason"]
    assert "start" in out["reason"] and "DECISION NEEDED:" in out["reason"]
    assert "proceed with your own recommendation" in out["reason"]
    assert arc_of(state).total_blocks == 1


def test_strict_sends_back_any_other_text_mid_arc():
    out, _ = stop(with_arc(), Final.from_text(SUMMARY), policy("strict"))
    assert out is not None and out["decision"] == "block"


@pytest.mark.parametrize("name", ["noop", "ask", "strict"])
def test_decision_needed_is_always_let_through_and_logged(name):
    out, state = stop(with_arc(), Final.from_text(DECIDE), policy(name))
    assert out is None
    assert arc_of(state).active is True and arc_of(state).total_blocks == 0
    assert state["log"][-1]["kind"] == "decision"


@pytest.mark.parametrize("name", ["noop", "ask", "strict"])
def test_a_completion_is_released_under_every_policy(name):
    out, state = stop(with_arc(), Final.from_text("The arc is complete."), policy(name))
    assert out is None and arc_of(state).active is False


def test_noop_policy_leaves_questions_alone():
    out, state = stop(
        with_arc(), Final.from_text("Do you want the cleanup included?"), policy("noop")
    )
    assert out is None and arc_of(state).total_blocks == 0


def test_caps_hold_across_a_mix_of_classes():
    cfg = policy("strict")
    state = with_arc()
    texts = ["", QUESTION, ANNOUNCED, SUMMARY, "No response requested.", QUESTION, ANNOUNCED]
    blocks = []
    for text in texts:
        out, state = stop(state, Final.from_text(text), cfg, active=True)
        blocks.append(out is not None)
        if out is None:
            _, state = stop(state, Final("tool_use"), cfg)  # the operator's next real turn
    assert blocks.count(True) == cfg.max_continuations_per_arc
    assert blocks[:3] == [True, True, False]  # two in a row, then the consecutive cap


@pytest.mark.parametrize(
    ("background", "paused", "synthetic"),
    [(True, False, False), (False, True, False), (False, False, True)],
)
def test_questions_are_never_continued_where_no_op_stops_are_not(background, paused, synthetic):
    state = with_arc()
    if paused:
        guard_of(state).paused = Pause(kind="cycle", reason="r", at=NOW)
    final = Final("text", QUESTION, synthetic=synthetic)
    out, new = stop(state, final, policy("ask"), background=background)
    assert out is None and arc_of(new).total_blocks == 0


@pytest.mark.parametrize("name", ["noop", "ask"])
@pytest.mark.parametrize(
    "text",
    [
        "No response requested. Stopping here and awaiting input.",
        "Acknowledged.",
        "Okay.",
        "Got it.",
        "Done.",
        "Here is the full analysis with a recommendation.",
        "The first task is complete, moving on to the next slice now.",
    ],
)
def test_earlier_near_misses_stay_left_alone_under_noop_and_ask(name, text):
    out, state = stop(with_arc(), Final.from_text(text), policy(name))
    assert out is None and arc_of(state).total_blocks == 0


# --- dead resumes ------------------------------------------------------------------------


def resumed(text="No response requested.", resume_id="uuid-resume-1", **kwargs):
    return Final("text" if text else "empty", text, resume_id=resume_id, **kwargs)


@pytest.mark.parametrize("arc", [False, True])
def test_a_dead_resume_is_continued_once_with_or_without_an_arc(arc):
    state = with_arc() if arc else fresh_state("sid", NOW)
    out, state = stop(state, resumed(synthetic=True), default_config())
    assert out is not None and out["decision"] == "block"
    assert "interrupted" in out["reason"] and "pick up where you were" in out["reason"]
    assert ("arc complete" in out["reason"]) is arc
    again, state = stop(state, resumed(synthetic=True), default_config())
    if arc:  # the arc keeper may still act on it, but not as a resume
        assert "interrupted" not in (again or {}).get("reason", "")
    else:
        assert again is None


def test_an_empty_answer_to_a_resume_is_continued_too():
    out, _ = stop(fresh_state("sid", NOW), resumed(""), default_config())
    assert out is not None


def test_a_new_resume_is_continued_again():
    _, state = stop(fresh_state("sid", NOW), resumed(resume_id="r1"), default_config())
    out, _ = stop(state, resumed(resume_id="r2"), default_config())
    assert out is not None


def test_a_real_answer_to_a_resume_is_left_alone():
    out, _ = stop(fresh_state("sid", NOW), resumed("Picking up the parser work."), default_config())
    assert out is None


@pytest.mark.parametrize(("background", "paused"), [(True, False), (False, True)])
def test_a_dead_resume_is_not_continued_while_paused_or_waiting(background, paused):
    state = fresh_state("sid", NOW)
    if paused:
        guard_of(state).paused = Pause(kind="cycle", reason="r", at=NOW)
    out, _ = stop(state, resumed(), default_config(), background=background)
    assert out is None


def test_a_no_op_without_a_resume_prompt_is_left_alone_outside_an_arc():
    out, _ = stop(
        fresh_state("sid", NOW), Final.from_text("No response requested."), default_config()
    )
    assert out is None


COURTESY = "The parser handles quoted fields now. Let me know if you need anything else."


def test_a_courtesy_closing_with_milestones_left_is_sent_back_under_ask():
    out, state = stop(with_arc(), Final.from_text(COURTESY), policy("ask"))
    assert out is not None and out["decision"] == "block"
    assert "slice one" in out["reason"] and "offering further help" in out["reason"]
    assert state["log"][-1]["reason"].startswith("courtesy")


def test_a_courtesy_closing_with_no_milestone_left_is_let_through_under_ask():
    state = fresh_state("sid", NOW)
    StateFile.view(state).arc = arcs.new_arc("demo", [], NOW)  # an arc of one task, no milestones
    out, _ = stop(state, Final.from_text(COURTESY), policy("ask"))
    assert out is None


@pytest.mark.parametrize(("name", "blocked"), [("noop", False), ("strict", True)])
def test_a_courtesy_closing_under_noop_and_strict(name, blocked):
    state = fresh_state("sid", NOW)
    StateFile.view(state).arc = arcs.new_arc("demo", [], NOW)
    out, _ = stop(state, Final.from_text(COURTESY), policy(name))
    assert (out is not None) is blocked


PAUSE = "Trimming is done and tested. This is a good place to pause."


@pytest.mark.parametrize("milestones", [["slice one"], []])
def test_a_stop_partway_is_sent_back_under_ask_with_or_without_milestones(milestones):
    state = fresh_state("sid", NOW)
    StateFile.view(state).arc = arcs.new_arc("demo", milestones, NOW)
    out, state = stop(state, Final.from_text(PAUSE), policy("ask"))
    assert out is not None and "stopping partway" in out["reason"]
    assert state["log"][-1]["rule"] == "paused"


@pytest.mark.parametrize(
    ("background", "sent_back"),
    [(False, True), (True, False), (None, False)],
    ids=["nothing-running", "a-task-running", "release-does-not-say"],
)
def test_a_wait_on_ci_is_sent_back_only_when_nothing_is_known_to_run(background, sent_back):
    # Before 2.1.145 the payload has no `background_tasks`: the wait may be on work that runs.
    final = Final.from_text("The fix is pushed. Waiting for CI to complete.")
    out, state = stop(with_arc(), final, policy("ask"), background=background)
    assert (out is not None) is sent_back
    assert state["log"][-1]["kind"] == ("continue" if sent_back else "allow")


def test_a_stop_partway_is_left_alone_under_noop():
    out, state = stop(with_arc(), Final.from_text(PAUSE), policy("noop"))
    assert out is None and arc_of(state).total_blocks == 0


@pytest.mark.parametrize("milestones", [["slice one"], []])
def test_a_hand_back_that_names_no_step_is_a_stall_only_with_milestones_left(milestones):
    state = fresh_state("sid", NOW)
    StateFile.view(state).arc = arcs.new_arc("demo", milestones, NOW)
    out, _ = stop(state, Final.from_text("The parser is in. Over to you."), policy("ask"))
    assert (out is not None) is bool(milestones)


# Finished or rightly stopped work that reads, in its last words, like work left or a step
# handed over: a finished task's known limits, a step only the user can take or that only
# uses the result, a step left out on purpose. A reader of notes and hand-overs tried on
# such reports sent back nearly half of them; none is a stall.
FINISHED_REPORTS = [
    "All done! The exporter ships with tests.\n\nKnown limitations:\n- Windows isn't tested yet",
    "The feature is complete and all tests pass.\n\nCaveats:\n\n- its colors aren't updated yet",
    "The importer is in, with 14 new tests, all passing. Run `make install` to pick it up.",
    "The migration file is ready. Apply it in production with `alembic upgrade head` during"
    " the maintenance window.",
    "The code change is in and tested. The staging deploy isn't run yet; it needs the VPN.",
    "Nothing is deployed yet \u2014 deploys go through the release manager.",
    "Created issues:\n\n- #231 \u2014 the retry budget isn't configurable yet\n- #232 docs",
    "The report is generated. Run `open out/report.html` to view it.",
    "The plan is filed as six beads.\n\nRun `bd ready` to see available work.",
]


@pytest.mark.parametrize("text", FINISHED_REPORTS)
def test_a_finished_report_with_limits_or_a_step_for_the_user_is_no_stall(text):
    assert not classify(Final.from_text(text), "ask").startswith("stall")


SAID_DONE = [
    "`web` and `api` lint clean under the new setup. Migration's done.",
    "All done.",
    "The flat config is in place for every package; the migration is complete.",
    "Done: the flat config is in place for every package.",
    "No errors left in web or api. Migration's done.",
]
LINT_FAILED = "Exit code 1\npackages/shared/src/index.ts\n  3:1  error  'x' is not defined"


def _after(text, *failures):
    return Final(KIND_TEXT, text, failures=failures)


@pytest.mark.parametrize("text", SAID_DONE)
def test_done_said_right_after_a_call_failed_is_sent_back(text):
    out, state = stop(with_arc(), _after(text, LINT_FAILED), policy("ask"))
    assert out is not None and "right after a call failed" in out["reason"]
    assert state["log"][-1]["rule"] == "unverified" and arc_of(state).active is True


@pytest.mark.parametrize("text", SAID_DONE)
def test_done_said_after_calls_that_passed_is_no_stall(text):
    assert classify(_after(text), "ask") != STALL_UNVERIFIED


@pytest.mark.parametrize(
    "text",
    [
        "The shared package's lint failure is pre-existing, not ours. Migration's done.",
        "The deploy step needs credentials I cannot reach; the code change is done.",
        "Nothing is done.",
        "The migration is not yet complete.",
        "Migration's done. Want me to open the PR?",
        "I'll stop here for now; the first part is done.",
        "Shared still fails lint; the rest is migrated.",
    ],
)
def test_a_failure_owned_up_to_or_no_claim_of_done_is_no_such_stall(text):
    assert classify(_after(text, LINT_FAILED), "ask") != STALL_UNVERIFIED


@pytest.mark.parametrize(
    "failure",
    [
        "Exit code 1",  # `test -f x`, `grep -q`: the exit status is the answer
        "Exit code 1\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new",  # `git diff --exit-code`
        "<tool_use_error>Sibling tool call errored</tool_use_error>",
        "The user doesn't want to proceed with this tool use. The tool use was rejected.",
        "PreToolUse:Bash hook error: [arcguard] Denied as a repeat",
    ],
)
def test_a_call_that_never_ran_or_only_answered_no_is_no_failed_check(failure):
    assert classify(_after(SAID_DONE[0], failure), "ask") != STALL_UNVERIFIED


def test_noop_policy_leaves_done_after_a_failure_alone():
    out, _ = stop(with_arc(), _after(SAID_DONE[0], LINT_FAILED), policy("noop"))
    assert out is None
