"""Replay over many sessions: per file and in total, what arcguard would have done.

This is how a user checks arcguard on their own history before enabling it: the interventions
(the decisions that change what a session does) are reported per 1,000 tool calls, so corpora
of different sizes compare.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from arcguard.core.words import vocabulary


if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import TypedDict

    from arcguard.replay.replayer import Result

    class FileRow(TypedDict):
        transcript: str
        session_id: str
        agent_id: str | None
        tool_calls: int
        turns: int
        malformed_lines: int
        paused_at_turn: int | None
        decisions: dict[str, int]

    # Replays of many sessions as `arcguard replay --json` prints them.
    class SummaryDoc(TypedDict):
        sessions: int
        tool_calls: int
        turns: int
        decisions: dict[str, int]
        interventions: dict[str, int]
        interventions_per_1000_tool_calls: dict[str, float | None]
        files: list[FileRow]


INTERVENTIONS = (vocabulary.DENY, vocabulary.PAUSE, vocabulary.CONTINUE, vocabulary.NUDGE)
PER_CALLS = 1000


def transcripts(paths: Iterable[str], refused: list[str] | None = None) -> list[str]:
    """The transcript files named or found (recursively, sorted) under the given paths; each
    one refused (a FIFO, a device, anything but a regular file) adds a line to `refused`."""
    from arcguard.forensics import lines
    from arcguard.storage import regular_file

    found: list[str] = []
    for path, _ in lines.transcript_files(paths):
        try:
            regular_file.look(path)
        except regular_file.Refused as exc:
            if refused is not None:
                refused.append(f"skipped {exc}")
            continue
        found.append(path)
    return found


def tool_calls(result: Result) -> int:
    return sum(1 for step in result.steps if step.event.event == "PreToolUse")


def rates(counts: dict[str, int], calls: int) -> dict[str, float | None]:
    """Interventions per 1,000 tool calls (None without a tool call to divide by)."""
    return {
        kind: (round(PER_CALLS * counts.get(kind, 0) / calls, 2) if calls else None)
        for kind in INTERVENTIONS
    }


def summarise(results: list[Result]) -> SummaryDoc:
    rows: list[FileRow] = [
        {
            "transcript": r.path,
            "session_id": r.session_id,
            "agent_id": r.agent_id,
            "tool_calls": tool_calls(r),
            "turns": r.turns,
            "malformed_lines": r.malformed_lines,
            "paused_at_turn": r.paused_at,
            "decisions": r.summary(),
        }
        for r in results
    ]
    totals: dict[str, int] = {}
    for row in rows:
        for kind, n in row["decisions"].items():
            totals[kind] = totals.get(kind, 0) + n
    calls = sum(row["tool_calls"] for row in rows)
    return {
        "sessions": len(rows),
        "tool_calls": calls,
        "turns": sum(row["turns"] for row in rows),
        "decisions": dict(sorted(totals.items())),
        "interventions": {kind: totals.get(kind, 0) for kind in INTERVENTIONS},
        "interventions_per_1000_tool_calls": rates(totals, calls),
        "files": rows,
    }


def render(data: SummaryDoc) -> str:
    kinds = list(INTERVENTIONS) + [k for k in data["decisions"] if k not in INTERVENTIONS]
    width = max([len("total"), *(len(_name(r)) for r in data["files"])])
    head = f"{'transcript':<{width}}  {'calls':>6} {'turns':>6} " + " ".join(
        f"{k:>8}" for k in kinds
    )
    lines = [head]
    for row in data["files"]:
        lines.append(
            _row(_name(row), row["tool_calls"], row["turns"], row["decisions"], kinds, width)
        )
    lines.append(_row("total", data["tool_calls"], data["turns"], data["decisions"], kinds, width))
    per = data["interventions_per_1000_tool_calls"]
    shown = ", ".join(f"{k} {'-' if v is None else f'{v:.2f}'}" for k, v in per.items())
    plural = "" if data["sessions"] == 1 else "s"
    lines += [
        "",
        f"{data['sessions']} session{plural}, {data['tool_calls']} tool calls. "
        f"Interventions per 1,000 tool calls: {shown}",
    ]
    return "\n".join(lines)


def _name(row: FileRow) -> str:
    name = os.path.basename(row["transcript"])
    return f"{name} (subagent)" if row["agent_id"] else name


def _row(
    name: str, calls: int, turns: int, decisions: dict[str, int], kinds: list[str], width: int
) -> str:
    cells = " ".join(f"{decisions.get(k, 0):>8}" for k in kinds)
    return f"{name:<{width}}  {calls:>6} {turns:>6} {cells}"
