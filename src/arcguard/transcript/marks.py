"""What a Stop and limit-wait read from the transcript's tail besides the final message.

Pure, over typed entries (`records.Entry`): the release writing the transcript, the newest
`/goal` status, Claude Code's Stop-cap override warnings, and its own usage-limit resume marks.
Only lines that may carry a mark are parsed.
"""

from __future__ import annotations

from arcguard.transcript.records import parsed
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterable

    from arcguard.transcript.records import Entry

GOAL_STATUS = "goal_status"
# Claude Code's warning when its Stop-hook cap (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP) overrode a
# hook: "A hook blocked the turn from ending 9 consecutive times—overriding and ending turn."
CAP_OVERRIDE = "overriding and ending turn"
MAX_OVERRIDES = 16


@value
class TailMarks:
    """The ids of Claude Code's Stop-cap override warnings, newest first; the release writing
    the transcript (`version`); the newest `/goal` status as (met, condition)."""

    overrides: list[str]
    version: str | None = None
    goal: tuple[bool, str] | None = None


def tail_marks(lines_newest_first: Iterable[bytes], loads: Callable[[bytes], object]) -> TailMarks:
    """One pass over the tail; only lines that may carry a mark are parsed."""
    marks = TailMarks([])
    for line in lines_newest_first:
        wanted = (
            (marks.version is None and b'"version"' in line)
            or (marks.goal is None and b'"goal_status"' in line)
            or (CAP_OVERRIDE.encode() in line and len(marks.overrides) < MAX_OVERRIDES)
        )
        if not wanted:
            continue
        entry = parsed(line, loads)
        if entry is not None:
            _mark(marks, entry)
    return marks


def _mark(marks: TailMarks, entry: Entry) -> None:
    version = entry.get("version")
    if marks.version is None and version:
        marks.version = version
    if marks.goal is None:
        marks.goal = goal_status(entry)
    if is_cap_override(entry) and "uuid" in entry:
        marks.overrides.append(entry["uuid"])


def goal_status(entry: Entry) -> tuple[bool, str] | None:
    """(met, condition) of a `goal_status` attachment (Claude Code's `/goal`): written with
    `met: false` when a goal is set and after each stop that did not meet it, `met: true` when
    it is met or cleared. None for any other entry."""
    if entry.get("type") != "attachment":
        return None
    body = entry.get("attachment", {})
    if body.get("type") != GOAL_STATUS or "met" not in body:
        return None
    return body["met"], body.get("condition", "")


def is_cap_override(entry: Entry) -> bool:
    """Claude Code's system warning that its Stop-hook cap ended a turn a hook kept blocking."""
    return entry.get("type") == "system" and CAP_OVERRIDE in entry.get("content", "")


# What Claude Code writes about its own resume at a usage limit: a system entry when it arms
# ("Usage limit reached · continuing automatically at 7:11am · esc to cancel" on 2.1.328,
# "... · set to continue automatically at 7:11am" on 2.1.332), when the user cancels it
# ("Automatic continue cancelled · ...") and when it resumes, then its resume prompt.
ARMED_START, ARMED_WORD = "Usage limit reached", "automatically"
RESUME_MARKS = (
    ("Automatic continue cancelled", "cancelled"),
    ("Usage limit reset · Continuing automatically", "resumed"),
    ("Your claude.ai usage limit has reset.", "resumed"),
)
_RESUME_BYTES = (b"Usage limit", b"usage limit has reset", b"Automatic continue cancelled")


def resume_mark(
    lines_newest_first: Iterable[bytes], loads: Callable[[bytes], object]
) -> str | None:
    """The newest of Claude Code's resume markers in the lines: "armed", "cancelled",
    "resumed" (`core.arc_keeper.handover`), or None when there is none."""
    for line in lines_newest_first:
        if not any(b in line for b in _RESUME_BYTES):
            continue
        entry = parsed(line, loads)
        found = None if entry is None else _resume_mark(entry)
        if found is not None:
            return found
    return None


def _resume_mark(entry: Entry) -> str | None:
    kind = entry.get("type")
    if kind == "system":
        content: object = entry.get("content")
    elif kind == "user" and entry.get("isMeta") is True:
        content = entry.get("message", {}).get("content")
    else:
        return None
    if not isinstance(content, str):
        return None
    if content.startswith(ARMED_START) and ARMED_WORD in content:
        return "armed"
    for start, mark in RESUME_MARKS:
        if content.startswith(start):
            return mark
    return None
