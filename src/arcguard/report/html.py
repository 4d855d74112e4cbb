"""The report as one self-contained HTML page: inline style, inline SVG, no script or asset
fetched from anywhere, so it opens offline from a file.

Per session: a summary, the timeline drawn to scale in time (lanes for the operator, the
model, its tools, the harness and arcguard's decisions), then the turns as a list with each
decision in its place. At the top, the totals as charts. Every decision links to its place.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from arcguard.report import decisions as judged
from arcguard.report import timeline as tl
from arcguard.report.charts import STYLE
from arcguard.report.charts import bar_chart
from arcguard.report.charts import timeline_svg
from arcguard.report.session import INTERVENTIONS
from arcguard.report.session import shown
from arcguard.report.text import LABELS
from arcguard.report.text import calls_text
from arcguard.report.text import clock
from arcguard.report.text import duration
from arcguard.report.text import notice


if TYPE_CHECKING:
    from arcguard.report.session import SessionReport
    from arcguard.report.session import Totals

# Kept inline: a page that failed to run its one script says so in its own markup, where a
# test (or a person with the inspector open) can see it.
ERRORS_SCRIPT = (
    "window.addEventListener('error',function(e){var d=document.documentElement;"
    "d.setAttribute('data-errors',(d.getAttribute('data-errors')||'')+e.message+';')});"
)


def page(reports: list[SessionReport], totals: Totals, *, redacted: bool) -> str:
    body = [
        "<header><h1>arcguard report</h1>",
        f'<p class="notice" id="privacy">{escape(notice(redacted))}</p></header>',
        totals_section(totals, reports),
    ]
    body += [session_section(n, r, redacted) for n, r in enumerate(reports)]
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>arcguard report</title><style>{STYLE}</style>"
        f"<script>{ERRORS_SCRIPT}</script></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def totals_section(totals: Totals, reports: list[SessionReport]) -> str:
    rates = totals.per_thousand()
    per = [(k, rates[k] or 0.0) for k in INTERVENTIONS]
    stalls = [(k, float(n)) for k, n in totals.stalls.items()]
    dead = [(_short_name(r), r.dead_seconds() / 60) for r in reports if r.dead_seconds()]
    plural = "" if totals.sessions == 1 else "s"
    rows = "".join(
        f'<li><a href="#s{n}">{escape(_short_name(r))}</a>: {r.turns} turns, {r.calls} calls,'
        f" {_decided(r)}</li>"
        for n, r in enumerate(reports)
    )
    return (
        '<section id="totals"><h2>All sessions</h2>'
        f'<p class="figures">{totals.sessions} session{plural}, {totals.turns} turns,'
        f" {totals.calls} tool calls; {totals.verdicts.get(judged.COSTLY, 0)} decisions look"
        f" costly; {duration(totals.dead_seconds)} of dead time after"
        f" {totals.limits} API-error endings.</p>"
        '<div class="charts">'
        + bar_chart("chart-interventions", "Interventions per 1,000 tool calls", per, "")
        + bar_chart("chart-stalls", "Stalls, and how they ended", stalls, "")
        + bar_chart("chart-dead-time", "Dead time at API limits (minutes)", dead, " min")
        + f'</div><ol class="sessions">{rows}</ol></section>'
    )


def _short_name(report: SessionReport) -> str:
    return report.path.rsplit("/", 1)[-1]


def _decided(report: SessionReport) -> str:
    decided = report.decided()
    return ", ".join(f"{k} {n}" for k, n in decided.items()) or "no decision"


def session_section(n: int, report: SessionReport, redacted: bool) -> str:
    span = report.timeline.span
    start = span[0] if span else None
    links = "".join(
        f'<li class="{_verdict_class(d)}"><a href="#s{n}-d{d.index}">turn {d.turn}:'
        f" {escape(d.kind)}</a> {escape(d.verdict or '')}</li>"
        for d in report.decisions
    )
    summary = (
        f'<table class="summary"><tr><th>started</th><td>{escape(_started(start))}</td>'
        f"<th>lasted</th><td>{duration(report.duration())}</td>"
        f"<th>turns</th><td>{report.turns}</td><th>tool calls</th><td>{report.calls}</td>"
        f"<th>decisions</th><td>{escape(_decided(report))}</td>"
        f"<th>replayed on</th><td>the {escape(report.clock)} clock</td></tr></table>"
    )
    return (
        f'<section class="session" id="s{n}"><h2>{escape(report.path)}</h2>'
        f'<p class="sid">session {escape(shown(report.session_id, False, 60))}</p>'
        + summary
        + timeline_svg(n, report)
        + (f'<ul class="decision-links">{links}</ul>' if links else "")
        + _items(n, report, start, redacted)
        + "</section>"
    )


def _started(start: float | None) -> str:
    import time

    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(start)) if start else ""


def _verdict_class(d: judged.Shown) -> str:
    return {judged.RIGHT: "right", judged.COSTLY: "costly", judged.UNCLEAR: "unclear"}.get(
        d.verdict or "", "info"
    )


def _items(n: int, report: SessionReport, start: float | None, redacted: bool) -> str:
    by_turn: dict[int, list[judged.Shown]] = {}
    for d in report.decisions:
        by_turn.setdefault(d.turn, []).append(d)
    rows, seen = [], set()
    items = report.timeline.items
    for k, item in enumerate(items):
        anchor = "" if item.turn in seen else f' id="s{n}-t{item.turn}"'
        seen.add(item.turn)
        rows.append(
            f'<li class="item {item.kind}"{anchor}><span class="at">{clock(item.at, start)}</span>'
            f'<span class="turn">{item.turn}</span><span class="who">{LABELS[item.kind]}</span>'
            f'<span class="what">{escape(_body(item, redacted))}</span></li>'
        )
        if k + 1 == len(items) or items[k + 1].turn != item.turn:
            rows += [_decision(n, d, redacted) for d in by_turn.pop(item.turn, [])]
    rows += [_decision(n, d, redacted) for ds in by_turn.values() for d in ds]
    return f'<ol class="items">{"".join(rows)}</ol>'


def _body(item: tl.Item, redacted: bool) -> str:
    if item.kind == tl.TOOLS:
        return calls_text(item.calls or [], redacted)
    if item.kind == tl.RESUME:
        return f"after {duration(item.seconds or 0.0)} of dead time"
    if item.kind == tl.WAIT:
        return f"{duration(item.seconds or 0.0)} without a new entry"
    if item.kind == tl.TEXT and not item.text:
        return "(an empty reply)"
    return shown(item.text, redacted, 600)


def _decision(n: int, d: judged.Shown, redacted: bool) -> str:
    parts = [
        f'<li class="decision {_verdict_class(d)}" id="s{n}-d{d.index}">',
        f"<b>arcguard {escape(d.kind)}</b> ({escape(d.hook)}, turn {d.turn}):"
        f" {escape(shown(d.reason, redacted, 300))}",
    ]
    if d.verdict is None:
        return "".join(parts) + "</li>"  # it changed nothing in the session
    parts.append(f'<div class="on">on: {escape(shown(d.trigger, redacted, 300))}</div>')
    if d.reply is not None:
        parts.append(
            f'<div class="next">operator next: {escape(shown(d.reply, redacted, 300))}</div>'
        )
    elif d.next_move is not None:
        parts.append(
            f'<div class="next">model next: {escape(shown(d.next_move, redacted, 300))}</div>'
        )
    parts.append(f'<div class="verdict">{escape(d.verdict)}: {escape(d.why)}</div>')
    return "".join(parts) + "</li>"
