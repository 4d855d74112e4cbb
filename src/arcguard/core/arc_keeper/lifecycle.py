"""Session lifecycle events that are not the operator: start, compaction, resume, API errors."""

from __future__ import annotations

from arcguard.core.arc_keeper.posture import posture_context
from arcguard.core.schema import MAX_EVENT_KEYS
from arcguard.core.state import add_log
from arcguard.core.state import clone


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.render import Decisions
    from arcguard.core.state import State


def _count(state: State, key: str) -> None:
    events = state.setdefault("events", {})
    counters = len(events) - ("last_api_error" in events)
    if key not in events and counters >= MAX_EVENT_KEYS - 1:
        key = "other"  # a bound on how many counters a stream of odd sources can add
    count = events.get(key, 0)
    # Counter keys hold integers (the schema checks it); only `last_api_error` holds an object.
    events[key] = (count if isinstance(count, int) else 0) + 1


def decide_session_start(
    state: State | None, source: str, cfg: Config, now: float, *, command: str
) -> tuple[Decisions | None, State | None]:
    """Compaction and resume reset nothing; an active arc's posture is restated after them."""
    if state is None:
        return None, None
    state = clone(state)
    _count(state, f"session_start:{source[:20]}")
    if source == "compact":
        guard = state["guard"]
        guard["compactions"] = guard.get("compactions", 0) + 1
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
    state["events"]["last_api_error"] = {"error": error[:40], "at": now}
    add_log(state, {"t": now, "hook": "stop-failure", "kind": "api-error", "reason": error[:40]})
    return None, state
