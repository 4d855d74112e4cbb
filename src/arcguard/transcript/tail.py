"""Read a transcript from its end, never the whole file: how a hook reads one.

Claude Code transcripts reach hundreds of MB (`api-request-blob` entries repeat request
content), and a hook runs on every tool call, so a hook reads at most a bounded tail. The
file is opened as every file named from outside is (`storage.regular_file`).
"""

from __future__ import annotations

import os

from arcguard.errors import ArcguardError
from arcguard.storage import regular_file


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

BLOCK = 64 * 1024


class NotReadable(ArcguardError, OSError):
    """The transcript path is missing, not a regular file, or unreadable."""


def lines_newest_first(path: str, max_bytes: int, *, block: int = BLOCK) -> Iterator[bytes]:
    """Yield the file's lines (without newline), last line first, within the last `max_bytes`.

    The last line is yielded even without a trailing newline (it may be a partial write; the
    caller's parser decides). A line that starts before the byte bound is not yielded.
    """
    fd, size = _open(path)
    try:
        yield from _reverse_lines(fd, size, max_bytes, block)
    finally:
        os.close(fd)


def _reverse_lines(fd: int, size: int, max_bytes: int, block: int) -> Iterator[bytes]:
    floor = max(0, size - max_bytes)
    position = size
    carry = b""  # the start of a line whose beginning is in an earlier block
    while position > floor:
        start = max(floor, position - block)
        chunk = os.pread(fd, position - start, start)
        if not chunk:
            return  # truncated under us
        position = start
        pieces = (chunk + carry).split(b"\n")
        carry = pieces[0]
        for piece in reversed(pieces[1:]):
            if piece:
                yield piece
    if floor == 0 and carry:
        yield carry  # the file's first line; a line cut by the bound is dropped


def mentions(path: str, max_bytes: int, marks: list[bytes], *, block: int = 4 * BLOCK) -> bool:
    """Whether any of `marks` occurs in the file's last `max_bytes`: one search in C per
    block, where looking line by line costs a Python step per line."""
    fd, size = _open(path)
    try:
        floor = max(0, size - max_bytes)
        overlap = max((len(mark) for mark in marks), default=1) - 1
        position = size
        while position > floor:
            start = max(floor, position - block)
            # A mark across the block's end is found with the end of the next block read.
            chunk = os.pread(fd, min(position + overlap, size) - start, start)
            if any(mark in chunk for mark in marks):
                return True
            position = start
        return False
    finally:
        os.close(fd)


def _open(path: str) -> tuple[int, int]:
    try:
        return regular_file.open_fd(path)
    except regular_file.Refused as exc:
        raise NotReadable(str(exc)) from None
