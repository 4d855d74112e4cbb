"""The per-session state document: a fresh one, cheap copies, time stamps, the bounded log.

The state is plain JSON data (dicts, lists, strings, numbers) so that it serialises with no
conversion step; its shape is written down, and checked on load, in `core.schema`.
"""

from __future__ import annotations

from arcguard.core.schema import SCHEMA as SCHEMA
from arcguard.core.schema import problem


LOG_LIMIT = 50

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from typing import TypeVar

    from arcguard.core.schema import Arc as Arc
    from arcguard.core.schema import LogEntry
    from arcguard.core.schema import Milestone as Milestone
    from arcguard.core.schema import StateFile
    from arcguard.core.schema import Track as Track

    # The name the core's functions take; the shape is the state file's.
    State = StateFile
    T = TypeVar("T")


def batch_fires(state: State) -> bool:
    """PostToolBatch has fired in this session: it closes every turn from now on."""
    return state["guard"].get("batch_fires") is True


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


def is_valid(state: object) -> bool:
    """True for a document this version can use: right schema, every known field well typed."""
    return problem(state) is None


def clone(value: T) -> T:
    """Deep copy of JSON data; the core never mutates the state it was given."""
    copied: T = _copy(value)
    return copied


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


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
    log = state["log"]
    log.append(entry)
    del log[:-LOG_LIMIT]


def remember(items: list[str], value: str, limit: int) -> None:
    if value in items:
        return
    items.append(value)
    del items[:-limit]
