"""The state schema: what real runs write passes; a wrong type anywhere inside is caught."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from arcguard.core import loop_records
from arcguard.core import schema
from arcguard.core.arc_keeper.arc import new_arc
from arcguard.core.loop_guard.tracks import new_track
from arcguard.core.state import fresh_state


def _full_state() -> Any:
    state: Any = fresh_state("s", 1.0)
    state["arc"] = new_arc("work", ["one", "two"], 1.0).data
    track: Any = new_track(1.0).data
    track["ops"]["op1"] = {
        "label": "Bash: ls",
        "runs": [{"seq": 1, "owner": "t1", "at": 1.0, "outcome": "completed:abc", "spent": None}],
        "edit_seq": 0,
        "compactions": 0,
    }
    track["labels"] = {"fp": "Bash: ls"}
    state["guard"]["tracks"]["main"] = track
    state["guard"]["paused"] = {"kind": "cycle", "reason": "r", "at": 1.0, "denied_since": 2}
    state["events"] = {"compact": 2, "last_api_error": {"error": "overloaded", "at": 1.0}}
    state["log"] = [{"t": 1.0, "hook": "stop", "kind": "block", "reason": "r", "extra": [1]}]
    return state


def test_a_full_state_passes_and_unknown_fields_are_allowed():
    state = _full_state()
    state["added_by_a_newer_version"] = {"x": 1}
    state["guard"]["tracks"]["main"]["also_new"] = "y"
    assert schema.problem(state) is None


@pytest.mark.parametrize(
    ("where", "value", "expected"),
    [
        (("guard", "tracks"), [1], "state.guard.tracks: expected an object"),
        (("guard", "tracks", "main"), 1, "state.guard.tracks.main: expected an object"),
        (("guard", "tracks", "main", "ops"), [], "state.guard.tracks.main.ops: expected an object"),
        (
            ("guard", "tracks", "main", "ops", "op1", "runs", 0, "seq"),
            "x",
            "state.guard.tracks.main.ops.op1.runs[0].seq: expected an integer",
        ),
        (
            ("guard", "tracks", "main", "turn", "denied"),
            True,
            "state.guard.tracks.main.turn.denied: expected an integer",
        ),
        (
            ("guard", "tracks", "main", "results"),
            [None],
            "state.guard.tracks.main.results[0]: expected a string",
        ),
        (("guard", "paused"), "yes", "state.guard.paused: expected an object"),
        (("guard", "edit_seq"), 1.5, "state.guard.edit_seq: expected an integer"),
        (("arc", "milestones"), 3, "state.arc.milestones: expected a list"),
        (("arc", "milestones", 0, "slice"), 7, "state.arc.milestones[0].slice: expected a string"),
        (("arc", "reconcile_count"), "2", "state.arc.reconcile_count: expected an integer"),
        (("seen", "messages"), [1], "state.seen.messages[0]: expected a string"),
        (("events", "compact"), "x", "state.events.compact: expected an integer"),
        # A bool is an int to Python, never to the schema, in a field or inside a container.
        (("events", "compact"), True, "state.events.compact: expected an integer"),
        (("guard", "background"), {"x": False}, "state.guard.background.x: expected a number"),
        (
            ("guard", "tracks", "main", "fresh"),
            [True, 1],
            "state.guard.tracks.main.fresh[1]: expected true or false",
        ),
        (("guard", "wait_since"), True, "state.guard.wait_since: expected a number"),
        # A record field of a record whose other keys are integers is still a record.
        (("events", "last_api_error"), 5, "state.events.last_api_error: expected an object"),
        (("log",), [1], "state.log[0]: expected an object"),
        (("log", 0, "t"), "now", "state.log[0].t: expected a number"),
    ],
)
def test_a_wrong_type_deep_inside_is_found_and_named(where, value, expected):
    state = copy.deepcopy(_full_state())
    target = state
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    assert schema.problem(state) == expected


@pytest.mark.parametrize("missing", ["seq", "ops", "turn", "streak", "turns"])
def test_a_track_missing_a_field_the_guard_indexes_is_invalid(missing):
    state = _full_state()
    del state["guard"]["tracks"]["main"][missing]
    assert schema.problem(state) == f"state.guard.tracks.main: missing {missing}"


def test_a_wrong_schema_number_is_invalid():
    assert schema.problem({**_full_state(), "schema": 2}) == "schema: expected 1"
    assert schema.problem([]) == "state: expected an object"


def _written_details_state() -> Any:
    """A state holding every field the hooks write beyond the basic ones."""
    state = _full_state()
    state["guard"]["tracks"]["main"]["fresh"] = [True, False]
    state["seen"]["resumes"] = ["r1"]
    state["log"] = [
        {"t": 1.0, "hook": "post-batch", "kind": "pause", "reason": "r", "rule": "cycle"},
        {
            "t": 1.0,
            "hook": "pre-tool",
            "kind": "deny",
            "reason": "r",
            "operation": "Bash: ls",
            "runs": 3,
        },
        {
            "t": 1.0,
            "hook": "stop",
            "kind": "block",
            "reason": "r",
            "consecutive": None,
            "lifetime": 2,
        },
    ]
    return state


def test_the_fields_hooks_write_beyond_the_basic_ones_pass():
    assert schema.problem(_written_details_state()) is None


@pytest.mark.parametrize(
    ("where", "value", "expected"),
    [
        (
            ("guard", "tracks", "main", "fresh"),
            [1],
            "state.guard.tracks.main.fresh[0]: expected true or false",
        ),
        (("seen", "resumes"), "r1", "state.seen.resumes: expected a list"),
        (("log", 0, "rule"), 3, "state.log[0].rule: expected a string"),
        (("log", 1, "operation"), None, "state.log[1].operation: expected a string"),
        (("log", 1, "runs"), "3", "state.log[1].runs: expected an integer"),
        (("log", 2, "consecutive"), "1", "state.log[2].consecutive: expected an integer"),
        (("log", 2, "lifetime"), 1.5, "state.log[2].lifetime: expected an integer"),
    ],
)
def test_a_wrong_type_in_a_field_hooks_write_and_read_back_is_found(where, value, expected):
    state = _written_details_state()
    target = state
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    assert schema.problem(state) == expected


def test_every_field_the_loader_checks_is_documented():
    from pathlib import Path

    from arcguard.core.validation import Record

    root = Path(__file__).resolve().parents[2]
    found = [*vars(schema).values(), *vars(loop_records).values()]
    records = {k for k in found if isinstance(k, type) and issubclass(k, Record)} - {Record}
    fields = {name for kind in records for name in kind.fields}
    page = (root / "docs" / "state-format.md").read_text()
    assert fields
    # Named on its own (`field`) or inside an object's shape (`{"field": type}`).
    missing = [f for f in fields if f"`{f}`" not in page and f'"{f}":' not in page]
    assert sorted(missing) == []


def _unattended_state() -> Any:
    """A state holding the fields of limit waits, background waits and queued prompts."""
    state = _full_state()
    state["arc"]["limit_resumes"] = 1
    state["rate_limits"] = {"five_hour": 1_900_000_000.0}
    state["limit_wait"] = {
        "token": "tok",
        "pid": 42,
        "started": 1.0,
        "until": 61.0,
        "error": "rate_limit",
        "source": "backoff",
        "arc": state["arc"]["invoked_at"],
        "attempt": 2,
    }
    guard = state["guard"]
    guard.update({"change_seq": 3, "background": {"bg_1": 1.0}, "wait_since": 1.0})
    track = guard["tracks"]["main"]
    track.update({"quiet": 2, "denied_ids": ["t9"]})
    track["turn"]["new_result"] = True
    track["ops"]["op1"].update({"change_seq": 3, "file_state": "12:1700000000.5"})
    state["seen"]["queued"] = ["q-1"]
    state["log"] = [
        {
            "t": 1.0,
            "hook": "limit-wait",
            "kind": "limit-wait",
            "reason": "r",
            "attempt": 2,
            "of": 3,
        },
        {
            "t": 2.0,
            "hook": "limit-wait",
            "kind": "limit-resume",
            "reason": "r",
            "attempt": 2,
            "of": 3,
        },
    ]
    return state


def test_the_fields_of_unattended_runs_and_background_waits_pass():
    assert schema.problem(_unattended_state()) is None
    without_arc = _unattended_state()
    without_arc["limit_wait"]["arc"] = None
    assert schema.problem(without_arc) is None


@pytest.mark.parametrize(
    ("where", "value", "expected"),
    [
        (("arc", "limit_resumes"), "1", "state.arc.limit_resumes: expected an integer"),
        (("rate_limits",), [1], "state.rate_limits: expected an object"),
        (("rate_limits", "five_hour"), "soon", "state.rate_limits.five_hour: expected a number"),
        (("limit_wait",), "waiting", "state.limit_wait: expected an object"),
        (("limit_wait", "token"), 7, "state.limit_wait.token: expected a string"),
        (("limit_wait", "pid"), "42", "state.limit_wait.pid: expected an integer"),
        (("limit_wait", "started"), None, "state.limit_wait.started: expected a number"),
        (("limit_wait", "until"), "later", "state.limit_wait.until: expected a number"),
        (("limit_wait", "error"), 429, "state.limit_wait.error: expected a string"),
        (("limit_wait", "source"), None, "state.limit_wait.source: expected a string"),
        (("limit_wait", "arc"), 1, "state.limit_wait.arc: expected a string"),
        (("limit_wait", "attempt"), 1.0, "state.limit_wait.attempt: expected an integer"),
        (("guard", "change_seq"), "3", "state.guard.change_seq: expected an integer"),
        (("guard", "background"), ["bg_1"], "state.guard.background: expected an object"),
        (("guard", "background", "bg_1"), "now", "state.guard.background.bg_1: expected a number"),
        (("guard", "wait_since"), True, "state.guard.wait_since: expected a number"),
        (
            ("guard", "tracks", "main", "quiet"),
            None,
            "state.guard.tracks.main.quiet: expected an integer",
        ),
        (
            ("guard", "tracks", "main", "denied_ids"),
            [1],
            "state.guard.tracks.main.denied_ids[0]: expected a string",
        ),
        (
            ("guard", "tracks", "main", "ops", "op1", "change_seq"),
            "3",
            "state.guard.tracks.main.ops.op1.change_seq: expected an integer",
        ),
        (
            ("guard", "tracks", "main", "ops", "op1", "file_state"),
            12,
            "state.guard.tracks.main.ops.op1.file_state: expected a string",
        ),
        (
            ("guard", "tracks", "main", "turn", "new_result"),
            1,
            "state.guard.tracks.main.turn.new_result: expected true or false",
        ),
        (("seen", "queued"), "q-1", "state.seen.queued: expected a list"),
        (("log", 0, "attempt"), "2", "state.log[0].attempt: expected an integer"),
        (("log", 1, "of"), None, "state.log[1].of: expected an integer"),
    ],
)
def test_a_wrong_type_in_a_field_of_unattended_runs_or_background_waits_is_found(
    where, value, expected
):
    state = _unattended_state()
    target = state
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    assert schema.problem(state) == expected
