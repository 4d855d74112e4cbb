"""The state file's checker: each record of `core.schema`, as a validator a loaded file must pass.

Every field the hooks and verbs read is checked for the type they assume, down to each run of
each operation, so that a file that parses but holds `"tracks": [1]` is set aside like an
unparsable one instead of failing every hook of its session. Fields this version does not know
are allowed (a newer version may add some); a field it knows must have its type, and the
required ones must be present.

Pure: no I/O.
"""

from __future__ import annotations

from arcguard.core.schema import SCHEMA


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeGuard

    from arcguard.core.schema import StateFile

    # A checker returns None for a good value, else what is wrong, with the path to it from
    # the value checked (`.guard.tracks: expected an object`). Paths are only built on the way
    # back from a problem: the hooks check every load, and most loads are good.
    Checker = Callable[[object], "str | None"]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _scalar(test: Callable[[object], bool], what: str) -> Checker:
    problem = f": expected {what}"
    return lambda value: None if test(value) else problem


INT = _scalar(_is_int, "an integer")
NUMBER = _scalar(_is_number, "a number")
STR = _scalar(lambda v: isinstance(v, str), "a string")
BOOL = _scalar(lambda v: isinstance(v, bool), "true or false")
LIST = _scalar(lambda v: isinstance(v, list), "a list")


def optional(check: Checker) -> Checker:
    """`check`, or null."""
    return lambda value: None if value is None else check(value)


def list_of(check: Checker) -> Checker:
    def checked(value: object) -> str | None:
        if not isinstance(value, list):
            return ": expected a list"
        for n, item in enumerate(value):
            wrong = check(item)
            if wrong is not None:
                return f"[{n}]{wrong}"
        return None

    return checked


def map_of(check: Checker) -> Checker:
    def checked(value: object) -> str | None:
        if not isinstance(value, dict):
            return ": expected an object"
        for key, item in value.items():
            wrong = check(item)
            if wrong is not None:
                return f".{key}{wrong}"
        return None

    return checked


# Each record's known fields and required keys, by its checker: tests/core/test_one_source.py
# compares them with the TypedDicts of `core.schema`, so that a field added to one and not the
# other fails.
SHAPES: dict[Checker, tuple[dict[str, Checker], tuple[str, ...]]] = {}


def record(
    fields: dict[str, Checker], required: tuple[str, ...] = (), other: Checker | None = None
) -> Checker:
    """An object: `required` keys present, known keys of their type, others checked by `other`
    (anything goes when it is None)."""

    def checked(value: object) -> str | None:
        if not isinstance(value, dict):
            return ": expected an object"
        for key in required:
            if key not in value:
                return f": missing {key}"
        for key, item in value.items():
            check = fields.get(key, other)
            wrong = None if check is None else check(item)
            if wrong is not None:
                return f".{key}{wrong}"
        return None

    SHAPES[checked] = (fields, required)
    return checked


MILESTONE = record({"slice": STR, "status": STR})
ARC_FIELDS = (
    "active",
    "slug",
    "invoked_at",
    "last_activity",
    "milestones",
    "reconcile_count",
    "total_blocks",
    "last_reconcile",
    "completed_at",
    "limit_resumes",
    "task",
    "ended_by",
)
LIMIT_WAIT_FIELDS = ("token", "pid", "started", "until", "error", "source", "arc", "attempt")
ARC = record(
    {
        "active": BOOL,
        "slug": STR,
        "invoked_at": STR,
        "last_activity": STR,
        "milestones": list_of(MILESTONE),
        "reconcile_count": INT,
        "total_blocks": INT,
        "last_reconcile": optional(STR),
        "completed_at": STR,
        "limit_resumes": INT,
        "task": STR,
        "ended_by": STR,
    }
)
RUN = record(
    {
        "seq": INT,
        "owner": STR,
        "at": NUMBER,
        "outcome": optional(STR),
        "spent": optional(STR),
        "turn": INT,
    }
)
OPERATION = record(
    {
        "label": STR,
        "runs": list_of(RUN),
        "edit_seq": INT,
        "compactions": INT,
        "max_timeout": NUMBER,
        "recovery_used": BOOL,
        "validated_seq": INT,
        "change_seq": INT,
        "file_state": STR,
    },
    required=("label", "runs"),
)
TURN = record(
    {"denied": INT, "progress": BOOL, "label": STR, "new_result": BOOL},
    required=("denied", "progress", "label"),
)
TURN_CALL = record(
    {"op": STR, "label": STR, "allowed": BOOL, "waits": BOOL, "polls": BOOL},
    required=("op", "label", "allowed", "waits"),
)
OPEN_TURN = record(
    {
        "message": optional(STR),
        "tool_only": optional(BOOL),
        "calls": list_of(LIST),
        "ids": list_of(STR),
        "steps": list_of(TURN_CALL),
    },
    required=("message", "calls"),
)
UNCONFIRMED = record({"ids": list_of(STR), "counted": BOOL}, required=("ids", "counted"))
POLL = record(
    {"call": STR, "result": STR, "since": NUMBER, "count": INT, "label": STR},
    required=("call", "result", "since", "count", "label"),
)
STUCK = record(
    {
        "pairs": list_of(STR),
        "results": list_of(STR),
        "runs": map_of(INT),
        "marks": map_of(INT),
        "news": INT,
        "repeats": INT,
        "fail": STR,
        "fails": INT,
        "fail_turn": INT,
        "label": STR,
        "nudged": BOOL,
        "fail_nudged": BOOL,
        "poll": optional(POLL),
        "poll_nudged": BOOL,
    }
)
TRACK = record(
    {
        "seq": INT,
        "ops": map_of(OPERATION),
        "results": list_of(STR),
        "turn": TURN,
        "blocked_rounds": INT,
        "fingerprints": list_of(STR),
        "fresh": list_of(BOOL),
        "streak": INT,
        "checkin_done": BOOL,
        "turns": INT,
        "backstop_nudged_at": optional(NUMBER),
        "denials": INT,
        "updated": NUMBER,
        "labels": map_of(STR),
        "quiet": INT,
        "denied_ids": list_of(STR),
        "open_turn": OPEN_TURN,
        "unconfirmed": UNCONFIRMED,
        "stuck": STUCK,
        "narrations": list_of(STR),
    },
    required=(
        "seq",
        "ops",
        "results",
        "turn",
        "blocked_rounds",
        "fingerprints",
        "streak",
        "checkin_done",
        "turns",
        "denials",
    ),
)
PAUSE = record({"kind": STR, "reason": STR, "at": NUMBER, "denied_since": INT})
GUARD = record(
    {
        "paused": optional(PAUSE),
        "edit_seq": INT,
        "compactions": INT,
        "tracks": map_of(TRACK),
        "resolved": list_of(STR),
        "change_seq": INT,
        "background": map_of(NUMBER),
        "wait_since": NUMBER,
        "batch_fires": BOOL,
        "files": map_of(list_of(STR)),
    }
)
SEEN = record(
    {
        "messages": list_of(STR),
        "tools": list_of(STR),
        "resumes": list_of(STR),
        "queued": list_of(STR),
        "goal": STR,
        "overrides": list_of(STR),
    }
)
# Counters by event name, plus the last API error.
LAST_API_ERROR = record({"error": STR, "at": NUMBER})
EVENTS = record({"last_api_error": LAST_API_ERROR}, other=INT)
LOG_ENTRY = record(
    {
        "t": NUMBER,
        "hook": STR,
        "kind": STR,
        "reason": STR,
        "rule": STR,
        "operation": STR,
        "runs": INT,
        "consecutive": optional(INT),
        "lifetime": optional(INT),
        "attempt": INT,
        "of": INT,
    }
)
LIMIT_WAIT = record(
    {
        "token": STR,
        "pid": INT,
        "started": NUMBER,
        "until": NUMBER,
        "error": STR,
        "source": STR,
        "arc": optional(STR),
        "attempt": INT,
    }
)
STATE = record(
    {
        "schema": INT,  # checked against SCHEMA first, by `problem`
        "session_id": STR,
        "created": NUMBER,
        "updated": NUMBER,
        "arc": optional(ARC),
        "guard": GUARD,
        "seen": SEEN,
        "events": EVENTS,
        "log": list_of(LOG_ENTRY),
        "rate_limits": map_of(NUMBER),
        "limit_wait": LIMIT_WAIT,
        "cwd": STR,
    },
    required=("schema", "session_id", "guard", "seen", "log"),
)


def problem(document: object) -> str | None:
    """Why `document` is not a state file this version can use, or None when it is."""
    if isinstance(document, dict) and document.get("schema") != SCHEMA:
        return f"schema: expected {SCHEMA}"
    wrong = STATE(document)
    return None if wrong is None else "state" + wrong


def is_state(document: object) -> TypeGuard[StateFile]:
    return problem(document) is None
