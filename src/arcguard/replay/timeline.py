"""A replay's decisions as a timeline for a terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcguard.text import clip


if TYPE_CHECKING:
    from arcguard.replay.replayer import Result

REASON_CHARS = 110


def short(text: str, limit: int = REASON_CHARS) -> str:
    """The first sentence of a reason, on one line, without arcguard's own tag."""
    body = " ".join(text.replace("[arcguard]", "").split())
    cut = body.find(". ")
    if 0 < cut < limit:
        body = body[: cut + 1]
    return clip(body, limit)


def render(result: Result) -> str:
    lines = [
        f"Replay of {result.path} (session {result.session_id}): {len(result.steps)} hook"
        f" events over {result.turns} turns, {result.executor},"
        f" {result.clock} clock",
        "",
    ]
    decisions = result.decisions
    if decisions:
        lines.append(f"{'turn':>5}  {'hook':<13} {'decision':<10} reason")
    for d in decisions:
        lines.append(f"{d.turn:>5}  {d.hook:<13} {d.kind:<10} {short(d.reason)}")
    if not decisions:
        lines.append("No decisions: arcguard would have stayed silent on this session.")
    lines.append("")
    if result.paused_at is not None:
        lines.append(
            f"arcguard would have paused the session at turn {result.paused_at}; the"
            " replay stops there."
        )
    if result.diverged_at is not None:
        lines.append(
            f"From turn {result.diverged_at} on the recorded session went differently"
            " from what arcguard decided; later decisions assume the recorded events."
        )
    summary = ", ".join(f"{k} {n}" for k, n in result.summary().items()) or "none"
    lines.append(f"Summary: {summary}")
    if result.malformed_lines:
        lines.append(f"Malformed lines skipped: {result.malformed_lines}")
    return "\n".join(lines)
