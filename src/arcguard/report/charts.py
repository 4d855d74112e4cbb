"""Inline SVG for the HTML report: bar charts for the totals and a session's timeline drawn to
scale in time, and the page's style sheet."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from arcguard.report import timeline as tl
from arcguard.report.text import LABELS
from arcguard.report.text import duration


if TYPE_CHECKING:
    from arcguard.report.session import SessionReport

WIDTH, LANE, LEFT = 960, 22, 90
LANES = ("operator", "model", "tools", "harness", "arcguard")
LANE_OF = {
    tl.PROMPT: 0,
    tl.INTERRUPT: 0,
    tl.TEXT: 1,
    tl.TOOLS: 2,
    tl.NOTIFICATION: 3,
    tl.COMPACTION: 3,
    tl.CONTINUATION: 3,
    tl.PAUSE: 3,
    tl.LIMIT: 3,
    tl.RESUME: 3,
    tl.WAIT: 3,
}

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1040px;padding:1em;color:#222}
h1{margin:.2em 0}h2{font-size:1.1em;margin:1.2em 0 .3em;word-break:break-all}
.notice{background:#fff4d6;border:1px solid #e0c060;padding:.5em .8em;border-radius:4px}
.charts{display:flex;flex-wrap:wrap;gap:1em}.charts figure{margin:0}
figcaption{font-weight:600;font-size:.9em}
table.summary{border-collapse:collapse;font-size:.85em;margin:.3em 0}
table.summary th{font-weight:500;color:#666;padding:0 .3em 0 .8em}
svg text{font:11px system-ui,sans-serif;fill:#333}
ol.items{list-style:none;padding:0;font-size:.85em;max-height:36em;overflow:auto;
border:1px solid #ddd}
ol.items li{display:flex;gap:.6em;padding:1px .4em;border-bottom:1px solid #f0f0f0}
.at{color:#888;font-family:monospace;min-width:6em}.turn{color:#888;min-width:2.5em;
text-align:right}.who{min-width:6em;color:#555}.what{white-space:pre-wrap;word-break:break-word}
li.prompt .what{color:#06c}li.continuation,li.pause,li.limit{background:#fbeef4}
ol.items li.decision{display:block;background:#fff8e0;border-left:4px solid #d9a400;margin:2px 0}
li.decision.costly{border-color:#c0392b;background:#fdeceb}
li.decision.right{border-color:#2e8b57}.decision-links li.costly a{color:#c0392b}
.on,.next,.verdict{margin-left:1.5em;color:#444}:target{outline:2px solid #06c}
.sid{color:#777;margin:0;font-size:.85em}
"""
COLOURS = {"ok": "#8aa", "failed": "#e67e22", "denied": "#c0392b", "rejected": "#8e44ad"}


def bar_chart(ident: str, title: str, bars: list[tuple[str, float]], unit: str) -> str:
    """Horizontal bars, one per (label, value), scaled to the largest."""
    height = max(1, len(bars)) * 20 + 6
    top = max([v for _, v in bars] or [0.0]) or 1.0
    rows = []
    for n, (label, value) in enumerate(bars):
        y, width = 4 + n * 20, int(220 * value / top)
        rows.append(
            f'<text x="0" y="{y + 12}">{escape(label[:24])}</text>'
            f'<rect x="160" y="{y}" width="{width}" height="14" fill="#4a7fb5">'
            f"<title>{escape(label)}: {value:g}{unit}</title></rect>"
            f'<text x="{164 + width}" y="{y + 12}">{value:.4g}{unit}</text>'
        )
    if not bars:
        rows.append('<text x="0" y="16">none</text>')
    return (
        f'<figure id="{ident}"><figcaption>{escape(title)}</figcaption>'
        f'<svg width="440" height="{height}" role="img" aria-label="{escape(title)}">'
        + "".join(rows)
        + "</svg></figure>"
    )


def timeline_svg(n: int, report: SessionReport) -> str:
    """The session on a time axis: one lane per actor, each mark where it happened."""
    span = report.timeline.span
    height = LANE * len(LANES) + 24
    if span is None:
        return '<p class="timeline">No timestamps: no time axis to draw.</p>'
    start, length = span[0], max(1.0, span[1] - span[0])

    def x(at: float) -> float:
        return round(LEFT + (WIDTH - LEFT - 10) * (at - start) / length, 1)

    marks = [f'<text x="0" y="{LANE * k + 15}">{lane}</text>' for k, lane in enumerate(LANES)]
    marks.append(f'<text x="{LEFT}" y="{height - 4}">0</text>')
    marks.append(
        f'<text x="{WIDTH - 10}" y="{height - 4}" text-anchor="end">{duration(length)}</text>'
    )
    for item in report.timeline.items:
        if item.kind in (tl.RESUME, tl.WAIT) and item.at is not None and item.seconds:
            # Dead time and long waits as bars that end where the session went on.
            left = x(item.at - item.seconds)
            dead = item.kind == tl.RESUME
            marks.append(
                f'<rect class="{"dead" if dead else "wait"}" x="{left}" y="{LANE * 3 + 8}"'
                f' width="{x(item.at) - left + 1}" height="6"'
                f' fill="{"#e0c060" if dead else "#ccc"}"><title>'
                f"{'dead' if dead else 'quiet'} for {duration(item.seconds)}</title></rect>"
            )
        elif item.at is not None:
            marks.append(_mark(n, item, x(item.at)))
    for d in report.decisions:
        if d.at is not None:
            marks.append(
                f'<a href="#s{n}-d{d.index}"><rect class="mark-decision" x="{x(d.at) - 3}"'
                f' y="{LANE * 4 + 3}" width="7" height="16" fill="{_decision_colour(d.verdict)}">'
                f"<title>turn {d.turn}: arcguard {escape(d.kind)}</title></rect></a>"
            )
    return (
        f'<svg class="timeline" id="s{n}-timeline" width="{WIDTH}" height="{height}"'
        f' viewBox="0 0 {WIDTH} {height}" role="img" aria-label="timeline">'
        + "".join(marks)
        + "</svg>"
    )


def _mark(n: int, item: tl.Item, at: float) -> str:
    lane = LANE_OF[item.kind]
    colour = "#06c" if lane == 0 else "#999"
    if item.kind == tl.TOOLS:
        outcomes = {c.outcome for c in item.calls or []}
        worst = next((o for o in ("denied", "rejected", "failed") if o in outcomes), "ok")
        colour = COLOURS[worst]
    elif lane == 3:
        colour = "#c2185b" if item.kind in (tl.CONTINUATION, tl.PAUSE, tl.LIMIT) else "#777"
    title = f"turn {item.turn}: {LABELS[item.kind]}"
    return (
        f'<a href="#s{n}-t{item.turn}"><rect x="{at}" y="{LANE * lane + 4}" width="3"'
        f' height="14" fill="{colour}"><title>{escape(title.strip())}</title></rect></a>'
    )


def _decision_colour(verdict: str | None) -> str:
    return {"costly": "#c0392b", "looks right": "#2e8b57"}.get(verdict or "", "#d9a400")
