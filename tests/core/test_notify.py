"""Which decisions the user hears about, and the terminal sequence Claude Code is asked to emit."""

from __future__ import annotations

from arcguard.core import notify
from arcguard.core.schema import LogEntry
from arcguard.core.state import LOG_LIMIT
from arcguard.core.state import add_log
from arcguard.core.state import clone
from arcguard.core.state import fresh_state


NOW = 1_800_000_000.0


def with_entries(state, *kinds):
    state = clone(state)
    for i, kind in enumerate(kinds):
        add_log(
            state,
            LogEntry(
                t=NOW + i,
                hook="post-batch",
                kind=kind,
                reason=f"why {kind}",
                rule="cycle",
            ),
        )
    return state


def test_a_pause_a_cap_and_a_limit_give_up_are_events_other_decisions_are_not():
    old = fresh_state("sid", NOW)
    new = with_entries(old, "deny", "pause", "nudge", "cap", "give-up", "block")
    found = notify.events(old, new)
    assert [e["kind"] for e in found] == ["paused", "cap", "limit-give-up"]
    assert found[0] == {
        "session_id": "sid",
        "kind": "paused",
        "reason": "why pause",
        "rule": "cycle",
        "time": NOW + 1,
        "hook": "post-batch",
    }


def test_only_entries_added_by_this_change_count_even_in_a_full_log():
    old = with_entries(fresh_state("sid", NOW), *(["deny"] * (LOG_LIMIT - 1)), "pause")
    assert len(old["log"]) == LOG_LIMIT
    assert notify.events(old, old) == []
    new = with_entries(old, "cap")
    assert len(new["log"]) == LOG_LIMIT
    assert [e["kind"] for e in notify.events(old, new)] == ["cap"]


def test_the_terminal_sequence_is_a_window_title_then_a_bell():
    found = notify.events(None, with_entries(fresh_state("sid", NOW), "pause"))
    assert notify.terminal_sequence(found) == "\x1b]0;arcguard: paused\x07\x07"
    assert notify.terminal_sequence([]) is None


def test_a_limit_wait_that_ends_without_a_wake_is_an_event_with_its_own_title():
    old = fresh_state("sid", NOW)
    new = with_entries(old, "limit-wait", "limit-cancel", "limit-resume")
    found = notify.events(old, new)
    assert [e["kind"] for e in found] == ["limit-cancel"]
    assert notify.sequence_for("limit-cancel") == (
        "\x1b]0;arcguard: limit wait ended without a resume\x07\x07"
    )
