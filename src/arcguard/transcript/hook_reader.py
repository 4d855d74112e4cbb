"""The hook path's view of the transcript: a bounded tail, parsed with the fast JSON reader."""

from __future__ import annotations

import itertools
import os
import time

from arcguard import jsonio
from arcguard.core.state import PLAIN_ID_CHARACTERS
from arcguard.storage.paths import SAFE_CHARS
from arcguard.transcript import records
from arcguard.transcript.tail import NotReadable
from arcguard.transcript.tail import lines_newest_first
from arcguard.transcript.tail import mentions


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from arcguard.transcript import marks


def path_for(main: object, agent: object) -> str | None:
    """The transcript of whoever made the calls: a subagent's own file (`agent`), else the
    session's (`main`, the payload's `transcript_path`). Either may be anything a payload held."""
    if not isinstance(main, str) or not main:
        return None
    if isinstance(agent, str) and agent:
        if not set(agent) <= SAFE_CHARS or agent.startswith("."):
            return None
        sid = os.path.basename(main).removesuffix(".jsonl")
        return os.path.join(os.path.dirname(main), sid, "subagents", f"agent-{agent}.jsonl")
    return main


# How often a hook re-reads a transcript that does not yet hold the entry it looks for, and
# for how long at most. Claude Code flushes its transcript on a timer; on every run,
# tests/e2e/test_transcript_lag.py checks that a call's entries land within this bound of its
# hooks starting.
SETTLE_POLL_S = 0.01
SETTLE_WAIT_S = 0.3


def message_with_tool(
    path: str, tool_ids: set[str], max_bytes: int, *, wait_s: float = 0.0
) -> records.Message | None:
    """The assistant message holding one of `tool_ids`, re-reading for up to `wait_s` while
    the transcript does not hold it yet: Claude Code buffers its transcript writes, so a hook
    can run before the entry of the very call it is about is on disk."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            lines = _from_first_mention(
                lines_newest_first(path, max_bytes), tool_ids, path, max_bytes
            )
            found = None
            if lines is not None:
                found = records.message_with_tool(
                    records.assistant_entries(lines, jsonio.loads), tool_ids
                )
        except NotReadable:
            return None
        if found is not None or time.monotonic() + SETTLE_POLL_S > deadline:
            return found
        time.sleep(SETTLE_POLL_S)


def _from_first_mention(
    lines: Iterator[bytes], ids: set[str], path: str, max_bytes: int
) -> Iterator[bytes] | None:
    """`lines` (newest first) whole, or None when none of them names one of `ids`.

    The message looked for is often not on disk yet, and parsing a whole tail of a long
    session to find that out costs milliseconds; looking for the ids' bytes in the tail of
    the file at `path` costs a fraction of it. Only plain ids are looked for as bytes (JSON
    writes them as they are); with any other, every line is kept."""
    if not ids or not all(PLAIN_ID_CHARACTERS.issuperset(i) for i in ids):
        return lines
    marks = [i.encode("ascii") for i in ids]
    if not mentions(path, max_bytes, marks):
        return None
    newer: list[bytes] = []
    for line in lines:
        if any(mark in line for mark in marks):
            return itertools.chain(newer, (line,), lines)
        newer.append(line)
    return None


def last_message(path: str, max_bytes: int) -> records.Message | None:
    """The newest assistant message of the transcript's tail; None if none or unreadable."""
    try:
        lines = lines_newest_first(path, max_bytes)
        return records.last_message(records.assistant_entries(lines, jsonio.loads))
    except NotReadable:
        return None


def last_exchange(path: str, max_bytes: int) -> records.Exchange | None:
    """The newest assistant message and whether a tool result is newer; None if unreadable."""
    try:
        lines = lines_newest_first(path, max_bytes)
        return records.last_exchange(records.conversation_entries(lines, jsonio.loads))
    except NotReadable:
        return None


def tail_marks(path: str, max_bytes: int, *, wait_s: float = 0.0) -> marks.TailMarks:
    """The release, `/goal` status and Stop-cap overrides the tail shows (`marks.TailMarks`);
    nothing of them when unreadable.

    Re-read for up to `wait_s` while no entry names its release: early in a session Claude
    Code may not have flushed a single entry yet (the file may not even exist).
    """
    from arcguard.transcript import marks  # only the Stop hook reads them

    deadline = time.monotonic() + wait_s
    while True:
        try:
            found = marks.tail_marks(lines_newest_first(path, max_bytes), jsonio.loads)
        except NotReadable:
            found = marks.TailMarks([])
        if found.version is not None or time.monotonic() + SETTLE_POLL_S > deadline:
            return found
        time.sleep(SETTLE_POLL_S)


def resume_mark(path: str, max_bytes: int) -> str | None:
    """The newest marker of Claude Code's own usage-limit resume (`marks.resume_mark`)."""
    from arcguard.transcript import marks

    try:
        return marks.resume_mark(lines_newest_first(path, max_bytes), jsonio.loads)
    except NotReadable:
        return None
