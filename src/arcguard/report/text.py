"""The report for a terminal: per session a compact timeline with arcguard's decisions beside
the turn they were taken on, then the totals. Colour only through `paint` (the command decides
whether the terminal gets any)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from arcguard.report import decisions as judged
from arcguard.report import timeline as tl
from arcguard.report.session import INTERVENTIONS
from arcguard.report.session import shown


if TYPE_CHECKING:
    from collections.abc import Callable

    from arcguard.report.session import SessionReport
    from arcguard.report.session import Totals

    Paint = Callable[[str, str], str]  # (text, colour name) -> text as shown

WIDTH = 100
LABELS = {
    tl.PROMPT: "operator",
    tl.NOTIFICATION: "harness",
    tl.TEXT: "model",
    tl.TOOLS: "tools",
    tl.COMPACTION: "compacted",
    tl.CONTINUATION: "continued",
    tl.PAUSE: "stopped",
    tl.INTERRUPT: "interrupt",
    tl.LIMIT: "API error",
    tl.RESUME: "resumed",
    tl.WAIT: "waited",
}
COLOURS = {
    tl.PROMPT: "cyan",
    tl.NOTIFICATION: "blue",
    tl.CONTINUATION: "magenta",
    tl.PAUSE: "red",
    tl.LIMIT: "red",
    tl.RESUME: "yellow",
    tl.INTERRUPT: "yellow",
}
VERDICT_COLOURS = {judged.RIGHT: "green", judged.COSTLY: "red", judged.UNCLEAR: "yellow"}


def plain(text: str, _colour: str) -> str:
    return text


def clock(at: float | None, start: float | None) -> str:
    """Time since the session's start, as +H:MM:SS (blank when unknown)."""
    if at is None or start is None:
        return " " * 8
    seconds = int(max(0.0, at - start))
    return f"+{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds // 60 % 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s"


def render(reports: list[SessionReport], totals: Totals, *, redacted: bool, paint: Paint) -> str:
    out = [notice(redacted), ""]
    for report in reports:
        out += session(report, redacted=redacted, paint=paint)
        out.append("")
    out += total_lines(totals, paint)
    return "\n".join(out)


def notice(redacted: bool) -> str:
    if redacted:
        return "Redacted report: message texts are left out, only their shape is shown."
    return (
        "This report contains the text of the sessions it shows (secrets masked): share it"
        " with care, or use --redact."
    )


def session(report: SessionReport, *, redacted: bool, paint: Paint) -> list[str]:
    span = report.timeline.span
    start = span[0] if span else None
    began = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(start)) if start else "time unknown"
    who = "subagent " + shown(report.agent_id, False, 40) + " of " if report.agent_id else ""
    head = (
        f"== {report.path} ({who}session {shown(report.session_id, False, 40)}): {began},"
        f" {duration(report.duration())}, {report.turns} turns, {report.calls} tool calls"
    )
    out = [paint(head, "bold")]
    by_turn: dict[int, list[judged.Shown]] = {}
    for d in report.decisions:
        by_turn.setdefault(d.turn, []).append(d)
    for n, item in enumerate(report.timeline.items):
        out.append(_item(item, start, redacted, paint))
        if _last_of_turn(report.timeline.items, n):
            out += [
                line for d in by_turn.pop(item.turn, []) for line in _decision(d, redacted, paint)
            ]
    out += [line for ds in by_turn.values() for d in ds for line in _decision(d, redacted, paint)]
    out.append(summary_line(report, paint))
    return out


def _last_of_turn(items: list[tl.Item], n: int) -> bool:
    return n + 1 == len(items) or items[n + 1].turn != items[n].turn


def _item(item: tl.Item, start: float | None, redacted: bool, paint: Paint) -> str:
    label = LABELS.get(item.kind, item.kind)
    if item.kind == tl.TOOLS:
        body = calls_text(item.calls or [], redacted)
    elif item.kind == tl.RESUME:
        body = f"after {duration(item.seconds or 0.0)} of dead time"
    elif item.kind == tl.WAIT:
        body = f"{duration(item.seconds or 0.0)} without a new entry"
    elif item.kind == tl.TEXT and not item.text:
        body = "(an empty reply)"
    else:
        body = shown(item.text, redacted, WIDTH - 26)
    line = f"  {clock(item.at, start)} {item.turn:>4}  {label:<10} {body}"
    return paint(line, COLOURS[item.kind]) if item.kind in COLOURS else line


def calls_text(calls: list[tl.Call], redacted: bool) -> str:
    """A turn's calls: each with its outcome when it did not simply succeed."""
    parts = []
    for call in calls:
        name = call.tool if redacted else shown(call.label, False, 48)
        parts.append(name if call.outcome == tl.OK else f"{name} [{call.outcome}]")
    return "; ".join(parts)


def _decision(d: judged.Shown, redacted: bool, paint: Paint) -> list[str]:
    mark = paint(f"  >> arcguard {d.kind}", "yellow")
    lines = [f"{mark} at turn {d.turn} ({d.hook}): {shown(d.reason, redacted, 72)}"]
    if d.verdict is None:
        return lines  # it changed nothing in the session: no story to tell
    lines.append(f"{'':16}on: {shown(d.trigger, redacted, 76)}")
    if d.reply is not None:
        lines.append(f"{'':16}operator next: {shown(d.reply, redacted, 66)}")
    elif d.next_move is not None:
        lines.append(f"{'':16}model next: {shown(d.next_move, redacted, 69)}")
    verdict = paint(d.verdict, VERDICT_COLOURS[d.verdict])
    lines.append(f"{'':16}{verdict}: {d.why}")
    return lines


def summary_line(report: SessionReport, paint: Paint) -> str:
    decided = ", ".join(f"{k} {n}" for k, n in report.decided().items()) or "none"
    verdicts = report.verdicts()
    text = (
        f"  decisions: {decided}; {verdicts[judged.COSTLY]} look costly;"
        f" {report.count(tl.CONTINUATION)} continuations and {report.count(tl.PAUSE)} stops"
        " recorded"
    )
    if report.paused_at is not None:
        text += f"; arcguard would have paused it at turn {report.paused_at}"
    return paint(text, "bold")


def total_lines(totals: Totals, paint: Paint) -> list[str]:
    rates = totals.per_thousand()
    per = ", ".join(f"{k} {'-' if rates[k] is None else rates[k]}" for k in INTERVENTIONS)
    stalls = ", ".join(f"{k} {n}" for k, n in totals.stalls.items()) or "none"
    plural = "" if totals.sessions == 1 else "s"
    return [
        paint(f"Totals over {totals.sessions} session{plural}", "bold"),
        f"  {totals.turns} turns, {totals.calls} tool calls; interventions per 1,000 calls: {per}",
        f"  decisions: {', '.join(f'{k} {n}' for k, n in sorted(totals.decided.items())) or 'none'}"
        f"; {totals.verdicts.get(judged.COSTLY, 0)} look costly",
        f"  stalls: {stalls}",
        f"  dead time after {totals.limits} API-error endings: {duration(totals.dead_seconds)}",
    ]
