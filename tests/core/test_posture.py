"""The posture hook's core: bootstrap, set-if-absent, re-stamp, operator vs harness prompts."""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper.lifecycle import decide_session_start
from arcguard.core.arc_keeper.posture import decide_posture
from arcguard.core.config import default_config
from arcguard.core.schema import Arc
from arcguard.core.schema import Guard
from arcguard.core.schema import Pause
from arcguard.core.schema import StateFile
from arcguard.core.state import fresh_state


NOW = 1_800_000_000.0
CFG = default_config()


def posture(state, prompt, at=NOW):
    return decide_posture(state, prompt, CFG, at, session_id="sid", command="arcguard")


def context(out):
    return render.context_text(out)


def _arc(state) -> Arc | None:
    """The session's arc, read through its record."""
    return StateFile.view(state).arc


def _guard(state) -> Guard:
    return StateFile.view(state).guard


def test_autonomous_bootstraps_an_arc_and_restates_the_posture():
    out, state = posture(None, "/autonomous Ship it!")
    assert _arc(state).slug == "ship-it" and _arc(state).active is True
    text = context(out)
    assert "'Ship it!' is active" in text and "`arcguard arc complete sid`" in text


def test_autonomous_alone_names_its_arc_autonomous():
    out, state = posture(None, "/autonomous")
    assert _arc(state).slug == "autonomous" and "'autonomous' is active" in context(out)


def test_a_mid_prose_mention_starts_nothing():
    out, state = posture(None, "please do not use /autonomous here")
    assert out is None and _arc(state) is None


def test_retyping_autonomous_or_its_task_keeps_the_arc_and_its_counters():
    _, state = posture(None, "/autonomous go")
    _arc(state).total_blocks = 3
    for again in ("/autonomous go", "/autonomous", "  /AUTONOMOUS   go "):
        out, state = posture(state, again)
        assert _arc(state).total_blocks == 3 and _arc(state).task == "go"
        assert "new arc" not in context(out)


def test_autonomous_with_another_task_starts_a_new_arc_with_fresh_caps():
    _, state = posture(None, "/autonomous ship the importer")
    _arc(state).total_blocks = 3
    _arc(state).reconcile_count = 2
    out, state = posture(state, "/autonomous fix the greeting script")
    arc = _arc(state)
    assert (arc.task, arc.total_blocks, arc.reconcile_count) == (
        "fix the greeting script",
        0,
        0,
    )
    text = context(out)
    assert "new arc" in text and "'ship the importer' is over" in text
    assert "'fix the greeting script' is active" in text
    assert state["log"][-1]["kind"] == "arc-new"


def test_autonomous_stop_ends_the_arc_and_says_so():
    _, state = posture(None, "/autonomous ship the importer")
    out, state = posture(state, "/autonomous stop")
    assert _arc(state).active is False and _arc(state).ended_by == "stop"
    assert "ended the autonomous arc 'ship the importer'" in context(out)
    assert "is active" not in context(out)  # no posture for an arc that is over
    assert state["log"][-1]["kind"] == "arc-stop"
    out, state = posture(state, "what now?")
    assert out is None  # nothing restated after the stop


def test_autonomous_stop_without_an_arc_changes_nothing():
    out, state = posture(None, "/autonomous Stop.")
    assert _arc(state) is None and "no autonomous arc was active" in context(out)


def test_a_checklist_in_the_prompt_becomes_the_milestones():
    prompt = (
        "/autonomous ship the importer\n"
        "- [ ] parse the CSV\n"
        "- [x] read the spec\n"
        "* [ ] load it\n"
        "1. report\n"
        "- not a step\n"
    )
    _, state = posture(None, prompt)
    arc = _arc(state)
    assert arc.task == "ship the importer - not a step"
    assert [(m.slice, m.status) for m in arc.milestones] == [
        ("parse the CSV", "todo"),
        ("read the spec", "done"),
        ("load it", "todo"),
        ("report", "todo"),
    ]
    assert arcs.next_milestone(arc) == "parse the CSV"


def test_a_numbered_list_becomes_the_milestones():
    _, state = posture(None, "/autonomous tidy up:\n1) lint\n2) format\n10. commit")
    assert [m.slice for m in _arc(state).milestones] == ["lint", "format", "commit"]
    assert _arc(state).task == "tidy up:"


def test_silent_when_no_arc_is_active():
    out, _ = posture(fresh_state("sid", NOW), "hello")
    assert out is None


def test_the_posture_names_the_next_milestone():
    state = fresh_state("sid", NOW)
    state["arc"] = arcs.new_arc("importer", ["parse", "load"], NOW).data
    arcs.mark_done(Arc.view(state["arc"]), "parse")
    out, _ = posture(state, "how is it going?")
    assert "Next milestone: load." in context(out)


def test_an_operator_prompt_resets_the_consecutive_counter_but_a_notification_does_not():
    _, state = posture(None, "/autonomous go")
    _arc(state).reconcile_count = 2
    _guard(state).paused = Pause(kind="cycle", reason="r", at=NOW)
    note = "<task-notification>\n<task-id>x</task-id>\n<status>completed</status>"
    out, after_note = posture(state, note)
    assert _arc(after_note).reconcile_count == 2
    assert _guard(after_note).paused is not None
    assert out is not None  # the posture is still restated to the model
    _, after_person = posture(state, "keep going")
    assert _arc(after_person).reconcile_count == 0
    assert _guard(after_person).paused is None


def test_compaction_resets_nothing_and_restates_the_posture():
    _, state = posture(None, "/autonomous go")
    _arc(state).reconcile_count = 1
    state["guard"]["tracks"] = {"main": {"turns": 150, "fingerprints": ["a"]}}
    out, after = decide_session_start(state, "compact", CFG, NOW, command="arcguard")
    assert after["guard"]["tracks"] == state["guard"]["tracks"]
    assert _arc(after).reconcile_count == 1
    assert out is not None and "is active" in context(out)
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
