"""What `arcguard status` says about a session, from its state as read (pure).

The summaries are the parts of the `--json` document (its schema is in `commands/status.py`);
the text output is drawn from them too (`commands/status_text.py`). Whether a limit waiter still
runs is asked of the system by the reader, and passed in here as `waiter_alive`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper import handover
from arcguard.core.arc_keeper import limits
from arcguard.core.schema import StateFile
from arcguard.core.state import iso
from arcguard.core.words import vocabulary


if TYPE_CHECKING:
    from typing import TypedDict

    from arcguard.core.config import Config
    from arcguard.core.schema import Arc
    from arcguard.core.state import State
    from arcguard.jsonio import JSONObject

    # The `--json` document's parts (see the docstring of `commands/status.py`).
    class ArcSummary(TypedDict):
        slug: str
        name: str
        state: str
        milestones_done: int
        milestones_total: int
        next_milestone: str
        consecutive: int
        lifetime: int
        task: str
        consecutive_cap: int
        lifetime_cap: int

    class LastPause(TypedDict):
        rule: str
        reason: str
        t: float | None

    class GuardSummary(TypedDict):
        paused: JSONObject | None  # the pause as the state file holds it
        denials: int
        blocked_rounds: int
        last_pause: LastPause | None

    class LimitWaitSummary(TypedDict):
        until: float
        until_iso: str
        error: str
        attempt: int
        of: int
        waiter_alive: bool
        waiting: bool
        watching: bool  # a watch on Claude Code's own resume (core.arc_keeper.handover), not a wait

    class ReadSummary(TypedDict):
        session_id: str
        file: str
        updated: float | None
        updated_iso: str | None
        error: None
        project: str | None
        arc: ArcSummary | None
        guard: GuardSummary
        limit_wait: LimitWaitSummary | None
        switched_off: bool

    class UnreadableSummary(TypedDict):
        session_id: None
        file: str
        updated: float
        updated_iso: str
        error: str
        project: None
        arc: None
        guard: None
        limit_wait: None
        switched_off: bool

    SessionSummary = ReadSummary | UnreadableSummary


# The states passed in here were validated on load (`store.read_state`): every field has the
# type the schema gives it, so only optional fields need a default.


def arc_summary(
    arc: Arc | None, cfg: Config, at: float, *, held_until: float | None = None
) -> ArcSummary | None:
    """`held_until`: when a wait for an API limit pending for the arc wakes it (it keeps the
    arc active until then, see `core.arc_keeper.limits.held_until`)."""
    if arc is None:
        return None
    if arcs.is_active(arc, cfg, at, held_until=held_until):
        state = "active"
    elif arc.active is True:
        state = "stale"
    elif arc.ended_by == "stop":
        state = "stopped"
    else:
        state = "complete" if arc.completed_at else "inactive"
    done, total = arcs.milestone_counts(arc)
    return {
        "slug": arc.slug or arcs.DEFAULT_SLUG,
        "name": arcs.name_of(arc),
        "state": state,
        "milestones_done": done,
        "milestones_total": total,
        "next_milestone": arcs.next_milestone(arc),
        "consecutive": arc.reconcile_count,
        "lifetime": arc.total_blocks,
        "task": arc.task,
        "consecutive_cap": cfg.max_consecutive_continuations,
        "lifetime_cap": cfg.max_continuations_per_arc,
    }


def guard_summary(state: State) -> GuardSummary:
    record = StateFile.view(state)
    guard = record.guard
    tracks = list(guard.tracks.values())
    paused = guard.paused
    pauses = [e for e in record.log if e.kind == vocabulary.PAUSE]
    last = pauses[-1] if pauses else None
    return {
        "paused": paused.data if paused is not None else None,
        "denials": sum(t.denials for t in tracks),
        "blocked_rounds": max((t.blocked_rounds for t in tracks), default=0),
        "last_pause": None
        if last is None
        else {"rule": last.rule or "", "reason": last.reason, "t": last.t},
    }


def limit_wait_summary(
    state: State, cfg: Config, at: float, *, waiter_alive: bool
) -> LimitWaitSummary | None:
    """A recorded wait for an API limit to reset, as `arcguard hook limit-wait` recorded it;
    `waiting` is the rule the status line uses too (`core.arc_keeper.limits.waiting`)."""
    wait = limits.pending(state)
    until = wait.until if wait is not None else None
    if wait is None or until is None:
        return None
    return {
        "until": float(until),
        "until_iso": iso(float(until)),
        "error": wait.error,
        "attempt": wait.attempt,
        "of": cfg.limit_resumes_per_arc,
        "waiter_alive": waiter_alive,
        "waiting": limits.waiting(wait, at, alive=waiter_alive),
        "watching": wait.source == handover.SOURCE,
    }


def summarise(
    state: State,
    path: str,
    cfg: Config,
    at: float,
    *,
    waiter_alive: bool,
    switched_off: bool = False,
) -> ReadSummary:
    """`waiter_alive`: the process of the state's pending limit wait still runs;
    `switched_off`: `arcguard off` holds the session's decisions back."""
    record = StateFile.view(state)
    updated = float(record.updated) if record.has("updated") else None
    return {
        "session_id": record.session_id,
        "file": path,
        "updated": updated,
        "updated_iso": iso(updated) if updated is not None else None,
        "error": None,
        "project": record.cwd if record.has("cwd") else None,
        "arc": arc_summary(record.arc, cfg, at, held_until=limits.held_until(state, cfg, at)),
        "guard": guard_summary(state),
        "limit_wait": limit_wait_summary(state, cfg, at, waiter_alive=waiter_alive),
        "switched_off": switched_off,
    }


def unreadable(path: str, mtime: float, why: str) -> UnreadableSummary:
    return {
        "session_id": None,
        "file": path,
        "updated": mtime,
        "updated_iso": iso(mtime),
        "error": why,
        "project": None,
        "arc": None,
        "guard": None,
        "limit_wait": None,
        "switched_off": False,
    }
