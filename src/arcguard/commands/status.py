"""`arcguard status`: what arcguard knows about recent sessions (arcs, loop guard, decisions).

Reads state files without the lock: writers replace them whole (`os.replace`), so a read sees
one complete version even while hooks are writing.

JSON schema (`--json`, `"schema": 1`; keys are only ever added):
    {"schema": 1, "state_dir": str, "sessions": [SESSION, ...]}       newest first
    SESSION = {"session_id": str | null, "file": str, "updated": float | null (epoch seconds),
               "updated_iso": str | null, "error": str | null (the file cannot be read),
               "project": str | null (the folder the session first reported),
               "arc": null | {"slug": str, "state": "active" | "stale" | "complete" | "inactive",
                              "milestones_done": int, "milestones_total": int,
                              "next_milestone": str, "consecutive": int, "lifetime": int,
                              "task": str (typed after /autonomous; "" when none),
                              "consecutive_cap": int, "lifetime_cap": int},
               "guard": {"paused": null | {"kind": str, "reason": str, "at": float},
                         "denials": int, "blocked_rounds": int,
                         "last_pause": null | {"rule": str, "reason": str, "t": float}},
               "limit_wait": null | {"until": float, "until_iso": str, "error": str,
                                     "attempt": int, "of": int, "waiter_alive": bool,
                                     "waiting": bool (alive and its time not come)}}
    With --session ID: {"schema": 1, "state_dir": str, "session": SESSION + {"log": [DECISION, ...],
    "events": {...}}} where DECISION = {"t": float, "hook": str, "kind": str, "reason": str, ...}
    as the hooks wrote it (oldest first, at most the last 50).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from arcguard.commands.common import config
from arcguard.commands.common import home
from arcguard.commands.common import json_option
from arcguard.commands.common import now
from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper.limits import held_until
from arcguard.core.state import iso
from arcguard.storage import paths
from arcguard.storage import store


if TYPE_CHECKING:
    from typing import TypedDict

    from arcguard.core.config import Config
    from arcguard.core.schema import Arc
    from arcguard.core.schema import LogEntry
    from arcguard.core.schema import Pause
    from arcguard.core.schema import Track
    from arcguard.core.state import State

    # The `--json` document's parts (see the module's docstring).
    class ArcSummary(TypedDict):
        slug: str
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
        paused: Pause | None
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

    SessionSummary = ReadSummary | UnreadableSummary

SCHEMA = 1


# --- summaries (pure) ----------------------------------------------------------------------


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
    elif arc.get("active") is True:
        state = "stale"
    else:
        state = "complete" if arc.get("completed_at") else "inactive"
    done, total = arcs.milestone_counts(arc)
    return {
        "slug": arc.get("slug") or arcs.DEFAULT_SLUG,
        "state": state,
        "milestones_done": done,
        "milestones_total": total,
        "next_milestone": arcs.next_milestone(arc),
        "consecutive": arc.get("reconcile_count", 0),
        "lifetime": arc.get("total_blocks", 0),
        "task": arc.get("task", ""),
        "consecutive_cap": cfg.max_consecutive_continuations,
        "lifetime_cap": cfg.max_continuations_per_arc,
    }


def guard_summary(state: State) -> GuardSummary:
    guard = state["guard"]
    tracks: list[Track] = list(guard.get("tracks", {}).values())
    paused: Pause | None = guard.get("paused")
    pauses = [e for e in state["log"] if e.get("kind") == "pause"]
    last = pauses[-1] if pauses else None
    return {
        "paused": paused,
        "denials": sum(t["denials"] for t in tracks),
        "blocked_rounds": max((t["blocked_rounds"] for t in tracks), default=0),
        "last_pause": None
        if last is None
        else {"rule": last.get("rule", ""), "reason": last.get("reason", ""), "t": last.get("t")},
    }


def limit_wait_summary(state: State, cfg: Config, at: float) -> LimitWaitSummary | None:
    """A recorded wait for an API limit to reset, as `arcguard hook limit-wait` recorded it;
    `waiting` is the rule the status line uses too (`core.arc_keeper.limits.waiting`)."""
    from arcguard.core.arc_keeper import handover
    from arcguard.core.arc_keeper import limits
    from arcguard.hooks.limit_wait import waiter_alive

    wait = limits.pending(state)
    until = wait.get("until") if wait is not None else None
    if wait is None or until is None:
        return None
    alive = waiter_alive(wait.get("pid"))
    return {
        "until": float(until),
        "until_iso": iso(float(until)),
        "error": wait.get("error", ""),
        "attempt": wait.get("attempt", 0),
        "of": cfg.limit_resumes_per_arc,
        "waiter_alive": alive,
        "waiting": limits.waiting(wait, at, alive=alive),
        "watching": wait.get("source") == handover.SOURCE,
    }


def limit_wait_text(wait: LimitWaitSummary) -> str:
    when = wait["until_iso"].replace("T", " ").rstrip("Z")
    what = "rate limit" if wait["error"] == "rate_limit" else "API"
    if wait["watching"] and wait["waiting"]:
        return (
            f"Claude Code resumes the session itself after the {what} resets; arcguard wakes"
            f" it at {when} UTC only if that has not happened (resume"
            f" {wait['attempt']}/{wait['of']})"
        )
    if not wait["waiting"]:
        why = (
            "its time has passed"
            if wait["waiter_alive"]
            else "its waiter is gone, nothing will wake this session"
        )
        return (
            f"the wait for the {what} to reset is over (due {when} UTC, "
            f"resume {wait['attempt']}/{wait['of']}): {why}"
        )
    return (
        f"waiting for the {what} to reset until {when} UTC (resume {wait['attempt']}/{wait['of']})"
    )


def summarise(state: State, path: str, cfg: Config, at: float) -> ReadSummary:
    updated = state.get("updated")
    updated = float(updated) if updated is not None else None
    return {
        "session_id": state["session_id"],
        "file": path,
        "updated": updated,
        "updated_iso": iso(updated) if updated is not None else None,
        "error": None,
        "project": state.get("cwd"),
        "arc": arc_summary(state.get("arc"), cfg, at, held_until=held_until(state, cfg, at)),
        "guard": guard_summary(state),
        "limit_wait": limit_wait_summary(state, cfg, at),
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
    }


# --- reading -------------------------------------------------------------------------------


def collect(state_dir: str, cfg: Config, at: float, limit: int) -> list[SessionSummary]:
    found: list[SessionSummary] = []
    for path, mtime in store.list_sessions(state_dir)[:limit]:
        try:
            state = store.read_state(path)
        except (store.Unreadable, OSError) as exc:
            found.append(unreadable(path, mtime, str(exc)))
            continue
        if state is not None:
            found.append(summarise(state, path, cfg, at))
    found.sort(key=lambda s: s["updated"] or 0.0, reverse=True)
    return found


def find_session(state_dir: str, session_id: str) -> tuple[str, State]:
    """The state of `session_id`, or of the one session whose id starts with it."""
    path = paths.session_path(state_dir, session_id)
    state = _read(path)
    if state is not None:
        return path, state
    matches = []
    for candidate, _ in store.list_sessions(state_dir):
        other = _read(candidate)
        if other is not None and other["session_id"].startswith(session_id):
            matches.append((candidate, other))
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise click.ClickException(
            f"{len(matches)} sessions start with {session_id!r}; give more of the id"
        )
    raise click.ClickException(f"no state for session {session_id!r} in {state_dir}")


def _read(path: str) -> State | None:
    try:
        return store.read_state(path)
    except store.Unreadable as exc:
        raise click.ClickException(f"{path}: {exc}") from None
    except OSError:
        return None


# --- text output ---------------------------------------------------------------------------

COLUMNS = (
    "UPDATED (UTC)",
    "SESSION",
    "PROJECT",
    "TASK",
    "STATE",
    "MILESTONES",
    "IN A ROW",
    "IN ARC",
    "DENIALS",
    "BLOCKED",
    "PAUSE",
)
MILESTONES = COLUMNS.index("MILESTONES")
TASK_WIDTH = 40
PROJECT_WIDTH = 24


def _short(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _folder(path: str | None, user_home: str) -> str:
    """The project folder, under `~` when in the home folder, clipped from the left (the end of
    a path is the part that tells projects apart)."""
    if not path:
        return "-"
    if user_home and (path == user_home or path.startswith(user_home.rstrip("/") + "/")):
        path = "~" + path[len(user_home.rstrip("/")) :]
    path = " ".join(path.split())
    return path if len(path) <= PROJECT_WIDTH else "…" + path[-(PROJECT_WIDTH - 1) :]


def table_rows(sessions: list[SessionSummary], user_home: str = "") -> list[tuple[str, ...]]:
    """The header and one row per session; the milestone column only when an arc has some."""
    rows = [COLUMNS, *(table_row(s, user_home) for s in sessions)]
    if any(s["arc"] is not None and s["arc"]["milestones_total"] for s in sessions):
        return rows
    return [row[:MILESTONES] + row[MILESTONES + 1 :] for row in rows]


def table_row(summary: SessionSummary, user_home: str = "") -> tuple[str, ...]:
    when = (summary["updated_iso"] or "-").replace("T", " ").rstrip("Z")
    sid = _short(str(summary["session_id"] or os.path.basename(summary["file"])), 12)
    project = _folder(summary["project"], user_home)
    arc = summary["arc"]
    guard = summary["guard"]
    if summary["error"] is not None or guard is None:
        return (
            when,
            sid,
            project,
            "-",
            "unreadable",
            *("-",) * 5,
            _short(summary["error"] or "", 50),
        )
    paused = guard["paused"]
    pause = (
        f"{paused.get('kind', '?')}: {_short(str(paused.get('reason', '')), 60)}" if paused else "-"
    )
    wait = summary["limit_wait"]
    if wait is not None and not paused:
        pause = limit_wait_text(wait)
    if arc is None:
        arc_cells: tuple[str, ...] = ("-",) * 5
    else:
        total = arc["milestones_total"]
        arc_cells = (
            _short(arc["task"] or arc["slug"], TASK_WIDTH),
            arc["state"],
            f"{arc['milestones_done']}/{total}" if total else "-",
            # As the status line writes them: used/cap.
            f"{arc['consecutive']}/{arc['consecutive_cap']}",
            f"{arc['lifetime']}/{arc['lifetime_cap']}",
        )
    denials, blocked = str(guard["denials"]), str(guard["blocked_rounds"])
    return (when, sid, project, *arc_cells, denials, blocked, pause)


def render_table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    return "\n".join(lines)


def render_session(summary: ReadSummary, log: list[LogEntry]) -> str:
    out = [
        f"session   {summary['session_id']}",
        f"file      {summary['file']}",
        f"updated   {summary['updated_iso']}",
        f"project   {summary['project'] or '-'}",
    ]
    arc = summary["arc"]
    if arc is None:
        out.append("arc       none")
    else:
        nxt = f", next: {arc['next_milestone']}" if arc["next_milestone"] else ""
        counts = f"{arc['milestones_done']}/{arc['milestones_total']}"
        milestones = f", milestones {counts}{nxt}" if arc["milestones_total"] else ""
        out.append(f"arc       {arc['slug']} ({arc['state']}){milestones}")
        if arc["task"]:
            out.append(f"task      {arc['task']}")
        out.append(
            f"continued {arc['consecutive']}/{arc['consecutive_cap']} in a row, "
            f"{arc['lifetime']}/{arc['lifetime_cap']} in this arc"
        )
    overridden = sum(1 for entry in log if entry.get("kind") == "overridden")
    if overridden:
        # Such a turn ends as if it had completed (`-p` says "completed"): it did not.
        out.append(
            f"overridden {overridden} turn(s) ended by Claude Code's Stop-hook cap, not completed"
        )
    guard = summary["guard"]
    out.append(f"guard     {guard['denials']} denials, {guard['blocked_rounds']} blocked rounds")
    paused = guard["paused"]
    out.append(
        f"paused    {paused.get('kind')}: {paused.get('reason')}" if paused else "paused    no"
    )
    wait = summary["limit_wait"]
    if wait is not None:
        out.append(f"limit     {limit_wait_text(wait)}")
    last = guard["last_pause"]
    if last and not paused:
        out.append(f"last pause {iso(float(last['t'] or 0))} {last['rule']}: {last['reason']}")
    out.append(f"decisions ({len(log)}, oldest first):" if log else "decisions none")
    out.extend(f"  {decision_line(entry)}" for entry in log)
    return "\n".join(out)


def decision_line(entry: LogEntry) -> str:
    t = entry.get("t")
    when = iso(float(t)).replace("T", " ").rstrip("Z") if isinstance(t, (int, float)) else "-"
    extra = {k: v for k, v in entry.items() if k not in ("t", "hook", "kind", "reason")}
    details = " ".join(f"{k}={v}" for k, v in extra.items())
    reason = _short(str(entry.get("reason", "")), 160)
    return " ".join(
        p
        for p in (
            when,
            str(entry.get("hook", "?")),
            str(entry.get("kind", "?")),
            details,
            "-",
            reason,
        )
        if p
    )


# --- the command ---------------------------------------------------------------------------


@click.command()
@json_option
@click.option(
    "--session",
    "session_id",
    metavar="ID",
    help="Show one session in full, with its recent decisions (an id prefix works).",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="How many recent sessions to list.",
)
@click.option(
    "--cost",
    "show_cost",
    is_flag=True,
    help="Show what arcguard's hooks cost on this machine instead: median and 95th "
    "percentile wall time per hook, for command and resident mode.",
)
def status(as_json: bool, session_id: str | None, limit: int, show_cost: bool) -> None:
    """Show arcs and loop-guard state of recent sessions, newest first.

    One line per session: its project folder, its arc (the task typed after /autonomous, or
    the arc's name; its state; milestones done/total when it has any; continuations used/cap
    in a row and in the arc, as the status line writes them), the loop guard (denials, worst
    run of blocked rounds) and a pause with its reason. --session shows one session with the
    decisions arcguard made in it.

    \b
    Examples:
      arcguard status
      arcguard status --session 3f2a9c1e
      arcguard status --json
      arcguard status --cost
    """
    import json

    from arcguard.commands.printable import printable

    if show_cost:
        from arcguard.commands import cost_report

        state_dir = home()
        found = cost_report.rows(state_dir)
        if as_json:
            document = {"schema": SCHEMA, "state_dir": state_dir, "cost": found}
            click.echo(json.dumps(document, indent=2))
        else:
            click.echo(printable(cost_report.render(state_dir, found)))
        return
    state_dir, cfg, at = home(), config(), now()
    if session_id is not None:
        path, state = find_session(state_dir, session_id)
        summary = summarise(state, path, cfg, at)
        log = state["log"]
        if as_json:
            document = {**summary, "log": log, "events": state.get("events") or {}}
            click.echo(
                json.dumps(
                    {"schema": SCHEMA, "state_dir": state_dir, "session": document}, indent=2
                )
            )
        else:
            click.echo(printable(render_session(summary, log)))
        return
    sessions = collect(state_dir, cfg, at, limit)
    from arcguard.resident import files

    resident = files.describe(state_dir)
    if as_json:
        listing: dict[str, object] = {
            "schema": SCHEMA,
            "state_dir": state_dir,
            "sessions": sessions,
        }
        if resident is not None:
            listing["resident"] = {"running": resident != files.NOT_RUNNING, "text": resident}
        click.echo(json.dumps(listing, indent=2))
        return
    if not sessions:
        click.echo(printable(f"no sessions yet in {state_dir}"))
    else:
        rows = table_rows(sessions, os.path.expanduser("~"))
        click.echo(printable(render_table(rows)))
    if resident is not None:
        click.echo(printable(resident))
