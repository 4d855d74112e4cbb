"""The posture hook's core: bootstrap, set-if-absent, re-stamp, operator vs harness prompts."""

from __future__ import annotations

from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper.lifecycle import decide_session_start
from arcguard.core.arc_keeper.posture import decide_posture
from arcguard.core.config import default_config
from arcguard.core.state import fresh_state


NOW = 1_800_000_000.0
CFG = default_config()


def posture(state, prompt, at=NOW):
    return decide_posture(state, prompt, CFG, at, session_id="sid", command="arcguard")


def context(out):
    return out["hookSpecificOutput"]["additionalContext"]


def test_autonomous_bootstraps_an_arc_and_restates_the_posture():
    out, state = posture(None, "/autonomous ship it")
    assert state["arc"]["slug"] == "autonomous" and state["arc"]["active"] is True
    assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    text = context(out)
    assert "'autonomous' is active" in text and "`arcguard arc complete sid`" in text


def test_a_mid_prose_mention_starts_nothing():
    out, state = posture(None, "please do not use /autonomous here")
    assert out is None and state["arc"] is None


def test_retyping_autonomous_keeps_the_counters():
    _, state = posture(None, "/autonomous go")
    state["arc"]["total_blocks"] = 3
    _, state = posture(state, "/autonomous go again")
    assert state["arc"]["total_blocks"] == 3


def test_silent_when_no_arc_is_active():
    out, _ = posture(fresh_state("sid", NOW), "hello")
    assert out is None


def test_the_posture_names_the_next_milestone():
    state = fresh_state("sid", NOW)
    state["arc"] = arcs.new_arc("importer", ["parse", "load"], NOW)
    arcs.mark_done(state["arc"], "parse")
    out, _ = posture(state, "how is it going?")
    assert "Next milestone: load." in context(out)


def test_an_operator_prompt_resets_the_consecutive_counter_but_a_notification_does_not():
    _, state = posture(None, "/autonomous go")
    state["arc"]["reconcile_count"] = 2
    state["guard"]["paused"] = {"kind": "cycle", "reason": "r", "at": NOW}
    note = "<task-notification>\n<task-id>x</task-id>\n<status>completed</status>"
    out, after_note = posture(state, note)
    assert after_note["arc"]["reconcile_count"] == 2
    assert after_note["guard"]["paused"] is not None
    assert out is not None  # the posture is still restated to the model
    _, after_person = posture(state, "keep going")
    assert after_person["arc"]["reconcile_count"] == 0
    assert after_person["guard"]["paused"] is None


def test_compaction_resets_nothing_and_restates_the_posture():
    _, state = posture(None, "/autonomous go")
    state["arc"]["reconcile_count"] = 1
    state["guard"]["tracks"] = {"main": {"turns": 150, "fingerprints": ["a"]}}
    out, after = decide_session_start(state, "compact", CFG, NOW, command="arcguard")
    assert after["guard"]["tracks"] == state["guard"]["tracks"]
    assert after["arc"]["reconcile_count"] == 1
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert after["events"]["session_start:compact"] == 1


def test_an_api_error_is_recorded_and_decides_nothing():
    from arcguard.core.arc_keeper.lifecycle import decide_stop_failure

    _, state = posture(None, "/autonomous go")
    out, after = decide_stop_failure(state, "rate_limit", NOW)
    assert out is None
    assert after["events"]["api_error"] == 1
    assert after["events"]["last_api_error"]["error"] == "rate_limit"
    assert after["log"][-1]["kind"] == "api-error"
    assert decide_stop_failure(None, "rate_limit", NOW) == (None, None)
