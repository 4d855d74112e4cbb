"""Session lifecycle events that are not the operator: start, compaction, resume, API errors."""

from __future__ import annotations

from arcguard.core.arc_keeper.posture import posture_context
from arcguard.core.schema import MAX_EVENT_KEYS
from arcguard.core.schema import LastApiError
from arcguard.core.schema import LogEntry
from arcguard.core.schema import StateFile
from arcguard.core.state import add_log
from arcguard.core.state import clone


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.render import Decisions
    from arcguard.core.state import State


def _count(state: State, key: str) -> None:
    record = StateFile.view(state)
    events = record.events
    record.events = events
    counters = len(events.data) - events.has("last_api_error")
    if key not in events.data and counters >= MAX_EVENT_KEYS - 1:
        key = "other"  # a bound on how many counters a stream of odd sources can add
    events.bump(key)


def decide_session_start(
    state: State | None, source: str, cfg: Config, now: float, *, command: str
) -> tuple[Decisions | None, State | None]:
    """Compaction and resume reset nothing; an active arc's posture is restated after them."""
    if state is None:
        return None, None
    state = clone(state)
    _count(state, f"session_start:{source[:20]}")
    if source == "compact":
        StateFile.view(state).guard.compactions += 1
    output = None
    if source in ("compact", "resume"):
        output = posture_context(state, cfg, now, command=command)
    return output, state


def decide_stop_failure(
    state: State | None, error: str, now: float
) -> tuple[Decisions | None, State | None]:
    if state is None:
        return None, None
    state = clone(state)
    _count(state, "api_error")
    StateFile.view(state).events.last_api_error = LastApiError(error=error[:40], at=now)
    add_log(state, LogEntry(t=now, hook="stop-failure", kind="api-error", reason=error[:40]))
    return None, state
