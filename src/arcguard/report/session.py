"""One session's report (its timeline and arcguard's decisions on it) and the totals over many.

`build` reads the transcript once more for the timeline (the replay stops at a pause; the
timeline shows the whole recorded session). Every text a report shows passes `shown`, which
masks secrets as the state does, or, redacted, keeps only its length.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcguard.core.words import redact
from arcguard.forensics import lines
from arcguard.replay import summary
from arcguard.report import decisions as judged
from arcguard.report import timeline as tl
from arcguard.text import clip
from arcguard.values import value


if TYPE_CHECKING:
    from arcguard.forensics.lines import Loads
    from arcguard.replay.replayer import Result

INTERVENTIONS = summary.INTERVENTIONS
LIMIT_KINDS = frozenset({"rate_limit", "overloaded"})


@value
class SessionReport:
    path: str
    session_id: str
    timeline: tl.Timeline
    decisions: list[judged.Shown]
    calls: int
    paused_at: int | None
    clock: str
    agent_id: str | None = None  # set for a subagent's own transcript

    @property
    def turns(self) -> int:
        return self.timeline.turns

    def count(self, kind: str) -> int:
        return sum(1 for i in self.timeline.items if i.kind == kind)

    def decided(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for d in self.decisions:
            counts[d.kind] = counts.get(d.kind, 0) + 1
        return dict(sorted(counts.items()))

    def verdicts(self) -> dict[str, int]:
        counts = {judged.RIGHT: 0, judged.COSTLY: 0, judged.UNCLEAR: 0}
        for d in self.decisions:
            if d.verdict is not None:
                counts[d.verdict] += 1
        return counts

    def dead_seconds(self) -> float:
        """Time between a turn that ended on an API error and the next sign of life."""
        return sum(i.seconds or 0.0 for i in self.timeline.items if i.kind == tl.RESUME)

    def duration(self) -> float:
        span = self.timeline.span
        return span[1] - span[0] if span else 0.0


def build(path: str, result: Result, loads: Loads, *, arc: bool = False) -> SessionReport:
    # The replay's own refused calls, so that the timeline's events are the replay's.
    timeline = tl.Timeline.start(arc=arc, refused=result.refused)
    with lines.open_transcript(path) as handle:
        for raw in lines.read_lines(handle):
            for entry in lines.judge(raw, loads).entries:
                timeline.feed(entry)
    timeline.finish()
    return SessionReport(
        path,
        result.session_id,
        timeline,
        judged.decisions(result.steps, timeline.events),
        summary.tool_calls(result),
        result.paused_at,
        result.clock,
        result.agent_id,
    )


def shown(text: str, redacted: bool, limit: int | None = None) -> str:
    """A session's text as the report shows it: on one line, secrets masked, cut at `limit`;
    redacted, only how long it was."""
    if redacted:
        return f"[{len(text)} chars]" if text else ""
    from arcguard.commands.printable import printable

    body = printable(" ".join(redact.mask(text).split()))
    return body if limit is None else clip(body, limit)


@value
class Totals:
    """Over every session: what forensics counts, from the same timelines and decisions."""

    sessions: int
    calls: int
    turns: int
    decided: dict[str, int]
    verdicts: dict[str, int]
    stalls: dict[str, int]
    dead_seconds: float
    limits: int

    def per_thousand(self) -> dict[str, float | None]:
        return summary.rates(self.decided, self.calls)


def totals(reports: list[SessionReport]) -> Totals:
    decided: dict[str, int] = {}
    verdicts: dict[str, int] = {}
    stalls: dict[str, int] = {}
    for report in reports:
        for kind, n in report.decided().items():
            decided[kind] = decided.get(kind, 0) + n
        for kind, n in report.verdicts().items():
            verdicts[kind] = verdicts.get(kind, 0) + n
        for ending, n in stall_endings(report).items():
            stalls[ending] = stalls.get(ending, 0) + n
    return Totals(
        len(reports),
        sum(r.calls for r in reports),
        sum(r.turns for r in reports),
        decided,
        verdicts,
        stalls,
        sum(r.dead_seconds() for r in reports),
        sum(r.count(tl.LIMIT) for r in reports),
    )


STALL_ENDINGS = ("sent back by a Stop hook", "operator said go on", "operator said more", "ended")


def stall_endings(report: SessionReport) -> dict[str, int]:
    """How each stall (a final message with nothing done) of the recorded session ended."""
    from arcguard.core.arc_keeper.stop import KIND_EMPTY
    from arcguard.core.arc_keeper.stop import KIND_TEXT
    from arcguard.core.arc_keeper.stop import STALL
    from arcguard.core.arc_keeper.stop import Final
    from arcguard.core.arc_keeper.stop import classify
    from arcguard.forensics.entries import is_continue_nudge

    counts = dict.fromkeys(STALL_ENDINGS, 0)
    items = report.timeline.items
    for n, item in enumerate(items):
        if item.kind != tl.TEXT or not item.final:
            continue
        if classify(Final(KIND_TEXT if item.text else KIND_EMPTY, item.text)) != STALL:
            continue
        after = next((i for i in items[n + 1 :] if i.kind != tl.TEXT), None)
        if after is None:
            counts["ended"] += 1
        elif after.kind == tl.CONTINUATION:
            counts["sent back by a Stop hook"] += 1
        elif after.kind == tl.PROMPT and is_continue_nudge(after.text):
            counts["operator said go on"] += 1
        else:
            counts["operator said more"] += 1
    return counts
