"""The per-session state document: a fresh one, cheap copies, time stamps, the bounded log.

The state is plain JSON data (dicts, lists, strings, numbers) so that it serialises with no
conversion step; the core reads and writes it through the records of `core.schema`
(`StateFile.view(state)`), whose fields are its shape, and whose checks a loaded file passes.
"""

from __future__ import annotations

import marshal

from arcguard.core.schema import ID_CHARS
from arcguard.core.schema import MAX_MILESTONES
from arcguard.core.schema import MILESTONE_BYTES
from arcguard.core.schema import REASON_BYTES
from arcguard.core.schema import SCHEMA as SCHEMA
from arcguard.core.schema import SLUG_BYTES
from arcguard.core.schema import TASK_CHARS
from arcguard.core.schema import Arc
from arcguard.core.schema import Guard
from arcguard.core.schema import LimitWait
from arcguard.core.schema import Milestone
from arcguard.core.schema import Pause
from arcguard.core.schema import Seen
from arcguard.core.schema import StateFile
from arcguard.core.schema import is_state
from arcguard.core.validation import Many
from arcguard.text import ELLIPSIS


LOG_LIMIT = 50

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    from arcguard.core.schema import LogEntry
    from arcguard.jsonio import JSONObject

    # The document the core's functions take and return, as parsed: they read and write it
    # through its records (`StateFile.view(state)`).
    State = JSONObject
    T = TypeVar("T")


def current_pause(guard: Guard) -> Pause | None:
    """The session's pause, None when it is not paused (an empty pause is none)."""
    paused = guard.paused
    return paused if paused is not None and paused.data else None


def is_paused(state: State) -> bool:
    return current_pause(StateFile.view(state).guard) is not None


def batch_fires(state: State) -> bool:
    """PostToolBatch has fired in this session: it closes every turn from now on."""
    return StateFile.view(state).guard.batch_fires is True


def fresh_state(session_id: str, now: float) -> State:
    return {
        "schema": SCHEMA,
        "session_id": session_id,
        "created": now,
        "updated": now,
        "arc": None,
        "guard": {"paused": None, "edit_seq": 0, "tracks": {}},
        "seen": {"messages": [], "tools": []},
        "events": {},
        "log": [],
    }


def clone(value: T) -> T:
    """Deep copy of JSON data; the core never mutates the state it was given.

    Through `marshal`, which copies a state of tens of KB in C, several times faster than a
    walk of it in Python (hooks copy the state on every decision); every JSON type comes back
    as the type it was."""
    copied: T = marshal.loads(marshal.dumps(value))  # type: ignore[arg-type]  # JSON data
    return copied


def iso(ts: float) -> str:
    """UTC ISO-8601 with whole seconds, as arc files store it."""
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def parse_iso(text: object) -> float | None:
    """Seconds since the epoch for `YYYY-MM-DDTHH:MM:SS[.fff](Z|+00:00)`, else None.

    Hand-rolled because `time.strptime` imports `_strptime`, `locale` and `datetime`.
    """
    if not isinstance(text, str) or len(text) < 19 or text[4] != "-" or text[10] not in "T ":
        return None
    try:
        year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
        hour, minute, second = int(text[11:13]), int(text[14:16]), int(text[17:19])
    except ValueError:
        return None
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return None
    return float(_days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second)


def _days_from_civil(year: int, month: int, day: int) -> int:
    # Howard Hinnant's days_from_civil: days since 1970-01-01 in the proleptic Gregorian calendar.
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def add_log(state: State, entry: LogEntry) -> None:
    """Append to the bounded decision log kept in the state."""
    if entry.has("reason"):
        entry.reason = clip_json(entry.reason, REASON_BYTES)
    log = StateFile.view(state).log
    log.append(entry)
    log.keep_last(LOG_LIMIT)


# The most bytes one character can take in the state file: an astral one, escaped as a
# surrogate pair, twelve ASCII bytes.
MAX_CHAR_BYTES = 12
# The most a /goal's condition takes in the state file (core.arc_keeper.goal keeps it to one line).
GOAL_BYTES = 600
# The arc's record of its named checks, which a file cut to its essentials does without: its
# lists have no bound of their own, and without them nothing is sent back for a check.
CHECK_FIELDS = frozenset({"checks", "checks_passed", "checks_asked"})


def json_size(text: str) -> int:
    """The bytes `text` takes in the state file, quotes left out."""
    from arcguard import jsonio

    return len(jsonio.dumps(text)) - 2


def clip_json(text: str, max_bytes: int) -> str:
    """`text`, cut short (ending in "…") so that it takes at most `max_bytes` in the state
    file however its characters are escaped there. Text that fits is returned as it is."""
    if len(text) * MAX_CHAR_BYTES <= max_bytes or json_size(text) <= max_bytes:
        return text
    room = max_bytes - json_size(ELLIPSIS)
    low, high = 0, len(text)  # the longest prefix that fits lies in [low, high)
    while high - low > 1:
        middle = (low + high) // 2
        if json_size(text[:middle]) <= room:
            low = middle
        else:
            high = middle
    return text[:low] + ELLIPSIS


# The characters of a plain id: one from a payload or transcript made only of these is kept
# as it is when short (and JSON writes it as it is).
PLAIN_ID_CHARACTERS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:"
)


def short_id(value: str) -> str:
    """An id as the state keeps it: itself when at most `ID_CHARS` plain characters (real
    ids always are), else a digest of it, so that no id can make the state large. Every place
    that stores or compares an id passes it through this, so one id always maps to one key."""
    if len(value) <= ID_CHARS and PLAIN_ID_CHARACTERS.issuperset(value):
        return value
    from arcguard.core.hashing import digest

    return "~" + digest(value)


def remember(items: list[str], value: str, limit: int) -> None:
    value = short_id(value)
    if value in items:
        return
    items.append(value)
    del items[:-limit]


def essentials(document: JSONObject, session_id: str, now: float) -> State:
    """What a state too large to keep whole must not lose, as a valid state of its own: the arc
    with its caps and continuation counts, the pause, a pending wait for an API limit, the
    counters the repeat guard's exceptions compare with, and the ids already judged. The rest
    (tracks, the log, events, reset times) is history, and goes.

    `document` is any parsed JSON object: each part is kept only if it passes its check."""
    old = StateFile.view(document)
    fresh = fresh_state(session_id, old.created if old.valid("created") else now)
    kept = StateFile.view({**fresh})
    if old.valid("arc") and old.arc is not None:
        kept.arc = _bounded_arc(old.arc)
    kept.guard = _kept_guard(StateFile.view(fresh).guard, old)
    if old.valid("limit_wait") and old.limit_wait is not None:
        wait = old.limit_wait.data
        kept.limit_wait = LimitWait.view(
            {
                k: (v[:ID_CHARS] if isinstance(v, str) else v)
                for k, v in wait.items()
                if k in LimitWait.fields
            }
        )
    seen = StateFile.view(fresh).seen
    kept.seen = _kept_seen(seen, old.seen) if old.valid("seen") else seen
    # Each part was checked above, so this holds; the check is what makes it a `State`. Were
    # it ever not to, a fresh state is what any file that fails its check gets.
    return kept.data if is_state(kept.data) else fresh


def _kept_guard(fresh: Guard, document: StateFile) -> Guard:
    kept = Guard.view({**fresh.data})
    raw = document.raw("guard")
    if not isinstance(raw, dict):
        return kept
    old = Guard.view(raw)
    if old.valid("edit_seq"):
        kept.edit_seq = old.edit_seq
    if old.valid("compactions"):
        kept.compactions = old.compactions
    if old.valid("change_seq"):
        kept.change_seq = old.change_seq
    if old.valid("batch_fires") and old.batch_fires:
        kept.batch_fires = True
    if old.valid("paused") and old.paused is not None:
        paused = Pause.view({**old.paused.data})
        paused.reason = clip_json(old.paused.reason, REASON_BYTES)
        kept.paused = paused
    return kept


def _kept_seen(fresh: Seen, old: Seen) -> Seen:
    kept = Seen.view({**fresh.data})
    kept.messages = _kept_ids(old.messages, 16)
    kept.resumes = _kept_ids(old.resumes, 16)
    kept.queued = _kept_ids(old.queued, 32)
    kept.overrides = _kept_ids(old.overrides, 16)
    if old.goal:
        # An active /goal is delegated work, like the arc: it is not history.
        kept.goal = clip_json(old.goal, GOAL_BYTES)
    return kept


def _kept_ids(values: list[str], limit: int) -> list[str]:
    ids: list[str] = []
    for value in values[-limit:]:
        remember(ids, value, limit)
    return ids


def _bounded_arc(arc: Arc) -> Arc:
    kept_fields = set(Arc.fields) - CHECK_FIELDS
    bounded = Arc.view({k: v for k, v in arc.data.items() if k in kept_fields})
    for name in ("invoked_at", "last_activity", "last_reconcile", "completed_at"):
        value = bounded.data.get(name)
        if isinstance(value, str):
            bounded.data[name] = value[:ID_CHARS]
    if bounded.has("slug"):
        bounded.slug = clip_json(bounded.slug, SLUG_BYTES)
    if bounded.has("task"):
        bounded.task = bounded.task[:TASK_CHARS]
    kept = list(arc.milestones)[:MAX_MILESTONES]
    bounded.milestones = Many.over(Milestone, [_bounded_milestone(m).data for m in kept])
    return bounded


def _bounded_milestone(milestone: Milestone) -> Milestone:
    bounded = Milestone()
    if milestone.has("slice"):
        bounded.slice = clip_json(milestone.slice, MILESTONE_BYTES)
    if milestone.has("status"):
        bounded.status = milestone.status[:ID_CHARS]
    return bounded
