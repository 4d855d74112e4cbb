"""arcguard's segment of Claude Code's status line: one short line, or nothing.

Shown after every assistant message, so it says only what changes how one watches a session:
the arc and its next step, the continuations spent, whether the loop guard paused or denied,
and a pending wait for an API limit.
"""

from __future__ import annotations

from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper import handover
from arcguard.core.arc_keeper import limits
from arcguard.core.schema import StateFile
from arcguard.text import clip


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from arcguard.core.config import Config
    from arcguard.core.state import State

SEPARATOR = " | "
# An arc's name is its task: as much of it as a status line has room for.
NAME_SHOWN = 32
# While `arcguard off` holds the session's decisions back, that is all there is to say.
SWITCHED_OFF = "arcguard off (arcguard on turns it back on)"


def segment(
    state: State | None,
    cfg: Config,
    now: float,
    clock: Callable[[float], str],
    *,
    waiter_alive: bool,
) -> str:
    """The line for `state` ("" when there is nothing to show); `clock` formats a time;
    `waiter_alive`: the process of the recorded limit wait, if any, still runs."""
    if state is None:
        return ""
    parts = [
        p
        for p in (
            _arc_part(state, cfg, now),
            _goal_part(state),
            _guard_part(state),
            _wait_part(state, cfg, now, clock, alive=waiter_alive),
        )
        if p
    ]
    return ("arcguard " + SEPARATOR.join(parts)) if parts else ""


def _arc_part(state: State, cfg: Config, now: float) -> str:
    arc = StateFile.view(state).arc
    if arc is None:
        return ""
    name = clip(arcs.name_of(arc), NAME_SHOWN)
    if not limits.arc_active(state, cfg, now):
        if arc.ended_by == "stop":
            return f"arc {name} stopped"
        return f"arc {name} complete" if arc.completed_at else ""
    done, total = arcs.milestone_counts(arc)
    steps = f" {done}/{total}" if total else ""
    consecutive, lifetime = arc.reconcile_count, arc.total_blocks
    return (
        f"arc {name}{steps}, continued"
        f" {consecutive}/{cfg.max_consecutive_continuations} in a row,"
        f" {lifetime}/{cfg.max_continuations_per_arc} in the arc"
    )


def _goal_part(state: State) -> str:
    """Claude Code's /goal: delegated work like an arc (its own judge continues the stops)."""
    condition = StateFile.view(state).seen.goal
    return f"goal {condition[:24]}" if condition else ""


def _guard_part(state: State) -> str:
    guard = StateFile.view(state).guard
    paused = guard.paused
    if paused is not None:
        kind = paused.kind if paused.has("kind") else "?"
        return f"PAUSED ({kind[:16]}): send a message to resume"
    denials = sum(t.denials for t in guard.tracks.values())
    return f"{denials} repeat{'s' if denials != 1 else ''} denied" if denials else ""


def _wait_part(
    state: State, cfg: Config, now: float, clock: Callable[[float], str], *, alive: bool
) -> str:
    wait = limits.pending(state)
    until = wait.until if wait is not None else None
    if wait is None or until is None or not limits.waiting(wait, now, alive=alive):
        return ""
    what = (
        "watching Claude Code's own resume"
        if wait.source == handover.SOURCE
        else "waiting for the API limit to reset"
    )
    return f"{what} until {clock(float(until))} (resume {wait.attempt}/{cfg.limit_resumes_per_arc})"
