"""`arcguard status` as text: the table of recent sessions and one session in full."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from arcguard.core.state import iso
from arcguard.core.words import vocabulary
from arcguard.core.words.vocabulary import kind_name
from arcguard.text import clip


if TYPE_CHECKING:
    from arcguard.commands.status_summary import LimitWaitSummary
    from arcguard.commands.status_summary import ReadSummary
    from arcguard.commands.status_summary import SessionSummary
    from arcguard.core.schema import LogEntry

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
OFF_CELL = "arcguard off"
TASK_WIDTH = 40
PROJECT_WIDTH = 24


def _short(text: str, width: int) -> str:
    return clip(" ".join(text.split()), width)


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
    if summary["switched_off"]:
        pause = OFF_CELL if pause == "-" else f"{OFF_CELL}; {pause}"
    if arc is None:
        arc_cells: tuple[str, ...] = ("-",) * 5
    else:
        total = arc["milestones_total"]
        arc_cells = (
            _short(arc["name"], TASK_WIDTH),
            arc["state"],
            f"{arc['milestones_done']}/{total}" if total else "-",
            # As the status line writes them: used/cap.
            f"{arc['consecutive']}/{arc['consecutive_cap']}",
            f"{arc['lifetime']}/{arc['lifetime_cap']}",
        )
    denials, blocked = str(guard["denials"]), str(guard["blocked_rounds"])
    return (when, sid, project, *arc_cells, denials, blocked, pause)


def switch_line(every: bool, sessions_off: int, problem: str | None) -> str:
    """What `arcguard off` holds back, in one line ("" while everything is on)."""
    if problem is not None:
        return (
            f"arcguard is off for every session: its switch file cannot be read ({problem});"
            " `arcguard on` rewrites it"
        )
    if every:
        return "arcguard is off for every session: it decides nothing (`arcguard on` turns it on)"
    if sessions_off:
        return (
            f"arcguard is off for {sessions_off} session{'s' if sessions_off != 1 else ''}"
            " (`arcguard on --session ID` turns one back on)"
        )
    return ""


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
    if summary["switched_off"]:
        out.append(
            f"switch    off: arcguard decides nothing here"
            f" (arcguard on --session {summary['session_id']})"
        )
    arc = summary["arc"]
    if arc is None:
        out.append("arc       none")
    else:
        nxt = f", next: {arc['next_milestone']}" if arc["next_milestone"] else ""
        counts = f"{arc['milestones_done']}/{arc['milestones_total']}"
        milestones = f", milestones {counts}{nxt}" if arc["milestones_total"] else ""
        out.append(f"arc       {arc['name']} ({arc['state']}){milestones}")
        out.append(
            f"continued {arc['consecutive']}/{arc['consecutive_cap']} in a row, "
            f"{arc['lifetime']}/{arc['lifetime_cap']} in this arc"
        )
    overridden = sum(1 for entry in log if entry.kind == vocabulary.OVERRIDDEN)
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
    t = entry.t
    when = iso(float(t)).replace("T", " ").rstrip("Z") if t is not None else "-"
    extra = {k: v for k, v in entry.data.items() if k not in ("t", "hook", "kind", "reason")}
    details = " ".join(f"{k}={v}" for k, v in extra.items())
    reason = _short(entry.reason, 160)
    return " ".join(
        p
        for p in (
            when,
            entry.hook if entry.hook is not None else "?",
            kind_name(entry.kind if entry.has("kind") else "?"),
            details,
            "-",
            reason,
        )
        if p
    )


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
