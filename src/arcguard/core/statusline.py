"""arcguard's segment of Claude Code's status line: one short line, or nothing.

Shown after every assistant message, so it says only what changes how one watches a session:
the arc and its next step, the continuations spent, whether the loop guard paused or denied,
and a pending wait for an API limit.
"""

from __future__ import annotations

from arcguard.core import arc as arcs
from arcguard.core import limits


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from arcguard.core.config import Config
    from arcguard.core.state import State

SEPARATOR = " | "


def segment(state: State | None, cfg: Config, now: float,
            clock: Callable[[float], str]) -> str:
    """The line for `state` ("" when there is nothing to show); `clock` formats a time."""
    if state is None:
        return ""
    parts = [p for p in (_arc_part(state, cfg, now), _guard_part(state),
                         _wait_part(state, cfg, clock)) if p]
    return ("arcguard " + SEPARATOR.join(parts)) if parts else ""


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _arc_part(state: State, cfg: Config, now: float) -> str:
    arc = state.get("arc")
    if not isinstance(arc, dict) or not arcs.is_active(arc, cfg, now):  # type: ignore[arg-type]
        return ""
    done, total = arcs.milestone_counts(arc)  # type: ignore[arg-type]
    steps = f" {done}/{total}" if total else ""
    consecutive, lifetime = _int(arc.get("reconcile_count")), _int(arc.get("total_blocks"))
    return (f"arc {str(arc.get('slug') or arcs.DEFAULT_SLUG)[:24]}{steps}, continued"
            f" {consecutive}/{cfg.max_consecutive_continuations} in a row,"
            f" {lifetime}/{cfg.max_continuations_per_arc} in the arc")


def _guard_part(state: State) -> str:
    guard = state.get("guard")
    if not isinstance(guard, dict):
        return ""
    paused = guard.get("paused")
    if isinstance(paused, dict):
        return f"PAUSED ({str(paused.get('kind', '?'))[:16]}): send a message to resume"
    tracks = guard.get("tracks")
    denials = sum(_int(t.get("denials")) for t in (tracks or {}).values()
                  if isinstance(t, dict)) if isinstance(tracks, dict) else 0
    return f"{denials} repeat{'s' if denials != 1 else ''} denied" if denials else ""


def _wait_part(state: State, cfg: Config, clock: Callable[[float], str]) -> str:
    wait = limits.pending(state)
    until = (wait or {}).get("until")
    if wait is None or not isinstance(until, int | float):
        return ""
    return (f"waiting for the API limit to reset until {clock(float(until))}"
            f" (resume {_int(wait.get('attempt'))}/{cfg.limit_resumes_per_arc})")
