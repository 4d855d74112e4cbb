"""Stream transcripts from disk into the analyser: constant memory, bytes-level prefilters.

Only lines that can be message entries are parsed (orjson); the large entries Claude Code
interleaves (`api-request-blob`, `progress`, `file-history-snapshot`, ...) are recognised by a
byte search and counted by type without being parsed.
"""

from __future__ import annotations

import os

from arcguard.forensics.analyse import KNOWN_TYPES
from arcguard.forensics.analyse import PAUSE_MARK
from arcguard.forensics.analyse import SessionScan
from arcguard.forensics.report import Report


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterable
    from collections.abc import Iterator

    from arcguard.core.config import Config

    Progress = Callable[[int, int], None]

SUFFIX = ".jsonl"
# Entry types the analyser reads; any line holding one of these markers is parsed. Claude Code
# writes compact JSON; the spaced forms cover transcripts rewritten by other tools.
_ASSISTANT, _USER, _SYSTEM = b'"type":"assistant"', b'"type":"user"', b'"type":"system"'
_SPACED = b'"type": "'
_PARSED_TYPES = frozenset({"assistant", "user", "system"})
_SKIPPED_TYPES = KNOWN_TYPES - _PARSED_TYPES
_SPACED_WANTED = (b'"type": "assistant"', b'"type": "user"', b'"type": "system"')
_TYPE_KEY = b'"type":"'
_PAUSE = PAUSE_MARK.encode()
READ_BUFFER = 1024 * 1024


def discover(paths: Iterable[str], report: Report, since: float | None) -> list[tuple[str, int]]:
    """(path, size) of every transcript under `paths`, sorted; skips are counted in `report`."""
    found: list[tuple[str, int]] = []
    for root in paths:
        if os.path.isdir(root):
            for directory, dirs, files in os.walk(root):
                dirs.sort()
                for name in sorted(files):
                    if name.endswith(SUFFIX):
                        _consider(os.path.join(directory, name), report, since, found)
        elif os.path.exists(root):
            if root.endswith(SUFFIX):
                _consider(root, report, since, found)
            else:
                report.skipped["not a .jsonl file"] += 1
        else:
            report.skipped["path does not exist"] += 1
    return found


def _consider(path: str, report: Report, since: float | None,
              found: list[tuple[str, int]]) -> None:
    try:
        info = os.stat(path)
    except OSError:
        report.skipped["unreadable"] += 1
        return
    if since is not None and info.st_mtime < since:
        report.skipped["not modified since --since"] += 1
    elif info.st_size == 0:
        report.skipped["empty file"] += 1
    else:
        found.append((path, info.st_size))


def is_subagent_file(path: str) -> bool:
    return os.path.basename(os.path.dirname(path)) == "subagents"


def scan_paths(paths: Iterable[str], config: Config, *, since: float | None = None,
               progress: Progress | None = None) -> Report:
    """Scan every transcript under `paths` into one `Report` (the benchmark's entry point)."""
    import orjson

    report = Report()
    files = discover(paths, report, since)
    total = sum(size for _, size in files)
    done = 0
    for path, size in files:
        scan_file(path, config, report, orjson.loads)
        done += size
        if progress is not None:
            progress(done, total)
    return report


def scan_file(path: str, config: Config, report: Report,
              loads: Callable[[bytes], object]) -> None:
    """Analyse one transcript into `report`; an unreadable file is a counted skip, not an error."""
    scan = SessionScan(report, config, sidechain_file=True if is_subagent_file(path) else None)
    try:
        with open(path, "rb", buffering=READ_BUFFER) as handle:
            size = os.fstat(handle.fileno()).st_size
            _feed(scan, handle, report, loads)
    except OSError:
        report.skipped["unreadable"] += 1
        return
    scan.finish()
    if scan.messages == 0:
        # Nothing the model said (a session killed at once, a metadata-only file); what its
        # lines held is still counted above.
        report.skipped["no assistant messages"] += 1
        return
    report.files_scanned += 1
    report.bytes_scanned += size
    if scan.sidechain_file:
        report.subagent_files += 1
    else:
        report.sessions += 1


def _feed(scan: SessionScan, lines: Iterator[bytes], report: Report,
          loads: Callable[[bytes], object]) -> None:
    for line in lines:
        report.lines += 1
        if not _looks_whole(line):
            if line.strip():
                report.malformed_lines += 1
            continue
        # In Claude Code's key order the first "type" is the entry's own: one short search
        # decides most lines; any other shape falls back to searching the whole line.
        first = _first_type(line)
        if first in _SKIPPED_TYPES or (first not in _PARSED_TYPES and not _wanted(line)):
            _count_type(report, first)
            continue
        if _PAUSE in line:
            report.footprint["pause_notices"] += 1
        try:
            entry = loads(line)
        except ValueError:
            report.malformed_lines += 1
            continue
        if not isinstance(entry, dict):
            report.malformed_lines += 1
            continue
        kind = entry.get("type")
        _count_type(report, kind if isinstance(kind, str) else "(none)")
        scan.feed(entry)


def _count_type(report: Report, kind: str) -> None:
    report.entry_types[kind[:40]] += 1
    if kind not in KNOWN_TYPES:
        report.unknown_types[kind[:40]] += 1


def _wanted(line: bytes) -> bool:
    if _ASSISTANT in line or _USER in line or _SYSTEM in line:
        return True
    return _SPACED in line and any(marker in line for marker in _SPACED_WANTED)


def _looks_whole(line: bytes) -> bool:
    """A cheap check that the line is one complete JSON object (a torn write is not)."""
    if line.endswith((b"}\n", b"}")):
        return line[:1] == b"{"
    body = line.rstrip()  # rare: CRLF or trailing spaces
    return body[:1] == b"{" and body[-1:] == b"}"


def _first_type(line: bytes) -> str:
    """The first `"type"` value of an unparsed line: the entry's own type in Claude Code's order."""
    start = line.find(_TYPE_KEY)
    if start < 0:
        return "(none)"
    start += len(_TYPE_KEY)
    end = line.find(b'"', start, start + 60)
    if end < 0:
        return "(none)"
    return line[start:end].decode("utf-8", "replace")
