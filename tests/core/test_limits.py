"""Resuming after an API limit: reset times in error texts, when to wait, when to wake."""

from __future__ import annotations

import pytest
from testing.builders import arc_of
from testing.builders import guard_of

from arcguard.core.arc_keeper import limits
from arcguard.core.arc_keeper import reset_text
from arcguard.core.arc_keeper.arc import new_arc
from arcguard.core.arc_keeper.posture import decide_posture
from arcguard.core.config import default_config
from arcguard.core.config_input import build_config
from arcguard.core.schema import Pause
from arcguard.core.schema import StateFile
from arcguard.core.state import fresh_state


NOW = 1_800_000_000.0
CFG = default_config()


def arc_state(at=NOW):
    state = fresh_state("sid", at)
    StateFile.view(state).arc = new_arc("importer", ["parse", "load"], at)
    return state


def start(state, error="rate_limit", reset=None, cfg=CFG, at=NOW, alive=False, token="t1"):
    return limits.decide_wait(state, error, reset, cfg, at, limits.Claimant(token, 4242, alive))


# --- reset times in error texts ------------------------------------------------------------


def test_the_older_usage_limit_text_gives_an_exact_epoch():
    text = "API Error: Request rejected (429) · Claude AI usage limit reached|1796034749"
    assert reset_text.parse_reset(text) == 1796034749.0
    assert reset_text.parse_reset("Claude AI usage limit reached|1796034749000") == 1796034749.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "You've hit your session limit · resets 2pm (Europe/London)",
            (14, 0, None, None, None, "Europe/London"),
        ),
        ("You've hit your limit · resets 2:30am", (2, 30, None, None, None, None)),
        ("usage limit resets at 12pm (UTC)", (12, 0, None, None, None, "UTC")),
        (
            "You've hit your weekly limit · resets Dec 3, 9am (America/New_York)",
            (9, 0, 12, 3, None, "America/New_York"),
        ),
        ("You've hit your limit · resets Jan 2, 2027, 12:15am", (0, 15, 1, 2, 2027, None)),
    ],
)
def test_clock_times_as_claude_code_writes_them(text, expected):
    found = reset_text.parse_reset(text)
    assert isinstance(found, reset_text.WallTime)
    assert (found.hour, found.minute, found.month, found.day, found.year, found.zone) == expected


@pytest.mark.parametrize(
    "text",
    [
        "API Error: Request rejected (429) · Number of requests has exceeded your rate limit.",
        "API Error: Overloaded",
        "resets soon",
        "resets 13pm",
        "resets 2:75pm",
        "score|12345",
        "This resets auto mode to its defaults",
        "usage limit reached|notanumber",
        "",
    ],
)
def test_texts_without_a_reset_time_give_none(text):
    assert reset_text.parse_reset(text) is None


# --- when to wait --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        "authentication_failed",
        "billing_error",
        "invalid_request",
        "model_not_found",
        "max_output_tokens",
        "unknown",
        "oauth_org_not_allowed",
    ],
)
def test_errors_that_do_not_pass_with_time_start_no_wait(error):
    plan, _, new = start(arc_state(), error)
    assert plan is None and new is None


def test_outside_an_active_arc_nothing_waits():
    assert start(fresh_state("sid", NOW))[0] is None
    state = arc_state()
    arc_of(state).active = False
    assert start(state)[0] is None
    assert start(None)[0] is None


def test_a_paused_session_is_not_resumed():
    state = arc_state()
    guard_of(state).paused = Pause(kind="cycle", reason="loop", at=NOW)
    assert start(state)[0] is None


def test_the_reset_time_from_the_error_text_is_used():
    plan, _, new = start(arc_state(), reset=NOW + 40)
    assert plan.until == NOW + 40 and plan.source == "error text"
    assert new["limit_wait"]["token"] == "t1" and new["limit_wait"]["pid"] == 4242


def test_a_reset_already_past_resumes_at_once():
    plan, _, _ = start(arc_state(), reset=NOW - 100)
    assert plan.until == NOW + limits.MARGIN_EXACT


def test_without_a_reset_time_the_backoff_doubles_with_each_resume_and_is_capped():
    state = arc_state()
    assert start(state)[0].until == NOW + 300
    arc_of(state).limit_resumes = 2
    assert start(state)[0].until == NOW + 1200
    assert start(state, "overloaded")[0].until == NOW + 240
    cfg, _ = build_config({"limit_wait_max_seconds": 100}, {})
    assert start(state, cfg=cfg)[0].until == NOW + 100


def test_a_reset_recorded_from_the_status_line_is_used_when_the_text_has_none():
    state = arc_state()
    windows = {"five_hour": {"resets_at": NOW + 900}, "seven_day": {"resets_at": NOW + 90000}}
    assert limits.record_resets(state, limits.reset_times(windows))
    plan, _, _ = start(state)
    assert plan.until == NOW + 900 + limits.MARGIN_EXACT and plan.source == "status line"


def test_a_reset_beyond_the_longest_wait_gives_up():
    cfg, _ = build_config({"limit_wait_max_seconds": 60}, {})
    plan, why, new = start(arc_state(), reset=NOW + 3600, cfg=cfg)
    assert plan is None and "limit_wait_max_seconds" in why
    assert new["log"][-1]["kind"] == "give-up" and "limit_wait" not in new


def test_past_the_resume_cap_no_wait_starts_and_the_give_up_is_logged():
    state = arc_state()
    arc_of(state).limit_resumes = CFG.limit_resumes_per_arc
    plan, why, new = start(state, reset=NOW + 10)
    assert plan is None and "3 of 3" in why
    assert new["log"][-1]["kind"] == "give-up"


def test_one_waiter_per_session_while_it_lives():
    _, _, state = start(arc_state(), reset=NOW + 40)
    plan, why, new = start(state, reset=NOW + 40, alive=True, token="t2")
    assert plan is None and new is None and "already pending" in why


def test_a_crashed_waiter_does_not_block_the_next_one():
    _, _, state = start(arc_state(), reset=NOW + 40)
    plan, _, new = start(state, reset=NOW + 40, alive=False, token="t2")
    assert plan is not None and new["limit_wait"]["token"] == "t2"


def test_a_live_pid_long_past_its_wait_no_longer_holds_it():
    _, _, state = start(arc_state(), reset=NOW + 40)
    later = NOW + 40 + limits.STALE_AFTER + 1
    plan, _, _ = start(state, reset=later + 40, alive=True, token="t2", at=later)
    assert plan is not None


# --- when to wake --------------------------------------------------------------------------


def test_the_wake_counts_a_resume_and_names_the_arc():
    _, _, state = start(arc_state(), reset=NOW + 40)
    message, new = limits.decide_wake(state, "t1", CFG, NOW + 41)
    assert message.startswith("[arcguard] The API limit that ended the last turn has reset")
    assert "(resume 1/3)" in message and "'importer'" in message and "parse" in message
    assert arc_of(new).limit_resumes == 1 and "limit_wait" not in new
    assert new["log"][-1]["kind"] == "limit-resume"


def test_a_cancelled_wait_does_not_wake():
    _, _, state = start(arc_state(), reset=NOW + 40)
    done, state = limits.cancel(state, NOW + 5, "by hand")
    assert done and state["log"][-1]["kind"] == "limit-cancel"
    assert limits.decide_wake(state, "t1", CFG, NOW + 41) == (None, None)
    assert limits.cancel(state, NOW + 6, "again") == (False, None)


def test_a_wait_taken_over_by_another_waiter_does_not_wake():
    _, _, state = start(arc_state(), reset=NOW + 40)
    _, _, state = start(state, reset=NOW + 40, token="t2")
    assert limits.decide_wake(state, "t1", CFG, NOW + 41) == (None, None)


@pytest.mark.parametrize("change", ["complete", "paused", "new arc"])
def test_no_wake_once_the_arc_is_over_paused_or_replaced(change):
    _, _, state = start(arc_state(), reset=NOW + 40)
    if change == "complete":
        arc_of(state).active = False
    elif change == "paused":
        guard_of(state).paused = Pause(kind="cycle", reason="loop", at=NOW)
    else:
        StateFile.view(state).arc = new_arc("other", [], NOW + 20)
    message, new = limits.decide_wake(state, "t1", CFG, NOW + 41)
    assert message is None and "limit_wait" not in new
    assert new["log"][-1]["kind"] == "limit-cancel"


def test_an_operator_prompt_cancels_a_pending_wait():
    _, _, state = start(arc_state(), reset=NOW + 40)
    _, state = decide_posture(
        state, "how is it going?", CFG, NOW + 5, session_id="sid", command="arcguard"
    )
    assert "limit_wait" not in state
    assert limits.decide_wake(state, "t1", CFG, NOW + 41) == (None, None)


def test_the_harness_wake_prompt_keeps_the_wait():
    _, _, state = start(arc_state(), reset=NOW + 40)
    prompt = "<task-notification>\n<summary>Stop hook feedback</summary>\n</task-notification>"
    _, state = decide_posture(state, prompt, CFG, NOW + 5, session_id="sid", command="arcguard")
    assert state["limit_wait"]["token"] == "t1"


def test_status_line_resets_are_recorded_once_and_in_seconds():
    state = arc_state()
    windows = {"five_hour": {"resets_at": 1_800_000_900_000}}
    assert limits.record_resets(state, limits.reset_times(windows))
    assert state["rate_limits"] == {"five_hour": 1_800_000_900.0}
    assert not limits.record_resets(state, limits.reset_times(windows))
    assert not limits.record_resets(state, limits.reset_times("nonsense"))
    assert limits.recorded_reset(state, NOW) == 1_800_000_900.0
    assert limits.recorded_reset(state, NOW + 10_000) is None


# --- a pending wait keeps its arc alive until the wake -------------------------------------

HOURS = 3600.0
# A weekly limit may reset further ahead than an arc's `stale_seconds` (8 h by default).
LONG_CFG, _ = build_config({"limit_wait_max_seconds": 86400}, {})


def long_wait(reset_in=10 * HOURS):
    _, _, state = start(arc_state(), reset=NOW + reset_in, cfg=LONG_CFG)
    return state


def test_a_wait_longer_than_what_is_left_of_stale_seconds_still_wakes_the_arc():
    assert LONG_CFG.stale_seconds == 8 * HOURS
    state = long_wait()
    message, new = limits.decide_wake(state, "t1", LONG_CFG, NOW + 10 * HOURS + 1)
    assert message is not None and "(resume 1/3)" in message
    assert arc_of(new).limit_resumes == 1 and new["log"][-1]["kind"] == "limit-resume"


def test_a_pending_wait_keeps_its_arc_active_until_the_wake_and_not_past_it():
    state = long_wait()
    assert limits.arc_active(state, LONG_CFG, NOW + 9 * HOURS)
    # A wake that never came (its waiter died, the record stayed): stale after the wake time.
    assert limits.arc_active(state, LONG_CFG, NOW + 10 * HOURS + 7 * HOURS)
    assert not limits.arc_active(state, LONG_CFG, NOW + 10 * HOURS + 8 * HOURS + 10)
    # Without the wait the same arc is stale by then.
    del state["limit_wait"]
    assert not limits.arc_active(state, LONG_CFG, NOW + 9 * HOURS)


def test_a_wait_holds_only_its_own_arc_and_never_longer_than_a_wait_may_be():
    state = long_wait()
    state["limit_wait"]["arc"] = "2020-01-01T00:00:00Z"  # begun for another arc
    assert limits.held_until(state, LONG_CFG, NOW + HOURS) is None
    state = long_wait()
    state["limit_wait"]["until"] = NOW + 1000 * 86400  # hand-edited
    assert limits.held_until(state, LONG_CFG, NOW + HOURS) == NOW + 86400
    state["limit_wait"]["started"] = NOW + 1000 * 86400  # a start in the future counts as now
    assert limits.held_until(state, LONG_CFG, NOW + HOURS) == NOW + HOURS + 86400


def test_during_a_long_wait_the_status_line_and_status_show_the_arc_active():
    from arcguard.commands.status_summary import summarise
    from arcguard.core.display.statusline import segment

    state = long_wait()
    at = NOW + 9 * HOURS
    assert "arc importer" in segment(state, LONG_CFG, at, str, waiter_alive=True)
    assert summarise(state, "f", LONG_CFG, at, waiter_alive=True)["arc"]["state"] == "active"


def test_an_operator_prompt_late_in_a_long_wait_finds_the_arc_still_active():
    state = long_wait()
    arc_of(state).reconcile_count = 2
    output, new = decide_posture(
        state, "/autonomous", LONG_CFG, NOW + 9 * HOURS, session_id="sid", command="x"
    )
    assert "limit_wait" not in new and new["log"][-1]["kind"] == "limit-cancel"
    # The same arc goes on (not replaced by a new one), its consecutive count reset.
    assert arc_of(new).slug == "importer" and arc_of(new).reconcile_count == 0
    assert output is not None and "importer" in str(output)


def test_a_wait_whose_waiter_is_gone_is_ended_as_a_cancel_when_another_takes_over():
    state = long_wait(reset_in=40)
    plan, _, new = start(state, reset=NOW + 40, alive=False, token="t2")
    assert plan is not None
    kinds = [e["kind"] for e in new["log"]]
    assert kinds[-2:] == ["limit-cancel", "limit-wait"]
    assert "waiter is gone" in new["log"][-2]["reason"]


def test_no_wake_once_the_arc_s_resumes_are_spent_by_the_wake_time():
    state = long_wait(reset_in=40)
    arc_of(state).limit_resumes = CFG.limit_resumes_per_arc
    message, new = limits.decide_wake(state, "t1", CFG, NOW + 41)
    assert message is None and new["log"][-1]["kind"] == "limit-cancel"
