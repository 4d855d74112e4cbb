"""Transcript lines as forensics and replay both read them: bounded, and judged alike.

A transcript is untrusted input (it may come from anyone's repository), so reading it must
stay cheap whatever it holds: a line longer than any real entry is skipped as it streams past,
never held whole; an entry nested deeper than any real one is refused before code that walks
it recursively sees it, and each object a line holds is read into the typed entry
(`transcript.records.parse_entry`). Both tools read every line through `read_lines` and
`judge`, so their counts of turns and malformed lines are the same by construction. They find
and open the files the same way too (`transcript_files`, `open_transcript`): only regular files
are read, so a FIFO or a link to a device among them (git stores symlinks) is skipped, never
waited on.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from arcguard.forensics.analyse import KNOWN_TYPES
from arcguard.storage import regular_file
from arcguard.transcript.records import parse_entry
from arcguard.values import value


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterable
    from collections.abc import Iterator
    from typing import BinaryIO

    from arcguard.jsonio import JSONObject
    from arcguard.transcript.records import Entry

    Loads = Callable[[bytes], object]

# The Messages API refuses a request over 32 MB, and one entry is part of one request: a line
# longer than that was never written by a real session.
MAX_LINE_BYTES = 32 * 1024 * 1024
SKIP_CHUNK = 1024 * 1024
# Real entries nest fewer than ten levels; a hundred leaves a wide margin and keeps every
# recursive walk of an entry (fingerprints, payload encoding) far from Python's limit.
MAX_DEPTH = 100

# Entry types read in full; any other known type is counted by a byte search, unparsed (the
# big ones, `api-request-blob` or `progress`, would cost most of the time otherwise).
PARSED_TYPES = frozenset({"assistant", "user", "system", "attachment"})
SKIPPED_TYPES = KNOWN_TYPES - PARSED_TYPES
_TYPE_KEY = b'"type":"'
_SPACED_TYPE_KEY = b'"type": "'

SUFFIX = ".jsonl"
READ_BUFFER = 1024 * 1024

BLANK = "blank"
MALFORMED = "malformed"
SKIPPED = "skipped"
PARSED = "parsed"


@value
class Line:
    """What one line is: blank, malformed, a skipped entry of `kind`, or parsed `entries`."""

    status: str
    kind: str = ""
    entries: tuple[Entry, ...] = ()


def transcript_files(paths: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """(path, named) for each path given that is not a folder (named), and each `*.jsonl`
    found under a folder given (recursively, sorted; linked folders are not followed)."""
    for root in paths:
        if not os.path.isdir(root):
            yield root, True
            continue
        for directory, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(SUFFIX):
                    yield os.path.join(directory, name), False


def open_transcript(path: str) -> BinaryIO:
    """The transcript at `path`, opened to stream; `regular_file.Refused` if it is anything
    but a regular file (a FIFO, a device, a folder, gone)."""
    return regular_file.open_stream(path, READ_BUFFER)


def read_lines(handle: BinaryIO, limit: int = MAX_LINE_BYTES) -> Iterator[bytes | None]:
    """Each line of `handle`; None for a line over `limit` bytes, skipped without keeping it."""
    while True:
        line = handle.readline(limit)
        if not line:
            return
        if len(line) < limit or line.endswith(b"\n"):
            yield line
            continue
        while line and not line.endswith(b"\n"):
            line = handle.readline(SKIP_CHUNK)
        yield None


def judge(line: bytes | None, loads: Loads) -> Line:
    if line is None:
        return Line(MALFORMED)
    if not line.strip():
        return Line(BLANK)
    if not _looks_whole(line):
        return Line(MALFORMED)
    first = first_type(line)
    if first in SKIPPED_TYPES:
        return Line(SKIPPED, first)
    objects = parse(line, loads)
    if objects is None:
        return Line(MALFORMED)
    return Line(PARSED, "", tuple(map(parse_entry, objects)))


def parse(line: bytes, loads: Loads) -> list[JSONObject] | None:
    """The JSON objects on a line (normally one), or None when it holds no usable entry."""
    try:
        document = loads(line)
    except ValueError:
        return _recover(line)
    if not isinstance(document, dict) or too_deep(document, line):
        return None
    return [document]


def _recover(line: bytes) -> list[JSONObject] | None:
    """Entries written back to back on one line (Claude Code has done it), each kept."""
    import json

    try:
        text = line.decode("utf-8").strip()
    except UnicodeDecodeError:
        return None
    decoder = json.JSONDecoder()
    found: list[JSONObject] = []
    at = 0
    try:
        while at < len(text):
            document, at = decoder.raw_decode(text, at)
            if not isinstance(document, dict) or too_deep(document):
                return None
            found.append(document)
            while at < len(text) and text[at].isspace():
                at += 1
    except (ValueError, RecursionError):
        return None
    return found if len(found) > 1 else None


def too_deep(value: object, line: bytes | None = None) -> bool:
    """Nested deeper than `MAX_DEPTH`. The raw line, when given, settles most cases unwalked."""
    if line is not None and line.count(b"{") + line.count(b"[") <= MAX_DEPTH:
        return False  # fewer openings than levels: cannot be that deep
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return False


def _looks_whole(line: bytes) -> bool:
    """A cheap check that the line is one complete JSON object (a torn write is not)."""
    if line.endswith((b"}\n", b"}")):
        return line[:1] == b"{"
    body = line.rstrip()  # rare: CRLF or trailing spaces
    return body[:1] == b"{" and body[-1:] == b"}"


def first_type(line: bytes) -> str:
    """The first `"type"` value of an unparsed line: often the entry's own, sometimes a nested
    one (an assistant's message, an attachment's kind), so it only decides what to skip."""
    start = line.find(_TYPE_KEY)
    key = _TYPE_KEY
    if start < 0:
        start, key = line.find(_SPACED_TYPE_KEY), _SPACED_TYPE_KEY  # rewritten by other tools
        if start < 0:
            return "(none)"
    start += len(key)
    end = line.find(b'"', start, start + 60)
    if end < 0:
        return "(none)"
    return line[start:end].decode("utf-8", "replace")
