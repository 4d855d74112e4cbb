"""Stream transcripts from disk into the analyser: constant memory, bytes-level prefilters.

Lines are read and judged by `forensics.lines` (the same reader replay uses): the large
entries Claude Code interleaves (`api-request-blob`, `progress`, `file-history-snapshot`, ...)
are recognised by a byte search and counted by type without being parsed.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import arcguard.forensics.lines as lines
from arcguard.forensics.analyse import KNOWN_TYPES
from arcguard.forensics.analyse import SessionScan
from arcguard.forensics.report import Report
from arcguard.storage import regular_file


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterable
    from typing import BinaryIO

    from arcguard.core.config import Config
    from arcguard.forensics.lines import Loads

    Progress = Callable[[int, int], None]

SUFFIX = lines.SUFFIX


def discover(paths: Iterable[str], report: Report, since: float | None) -> list[tuple[str, int]]:
    """(path, size) of every transcript under `paths`, sorted; skips are counted in `report`."""
    found: list[tuple[str, int]] = []
    for path, named in lines.transcript_files(paths):
        if named and os.path.exists(path) and not path.endswith(SUFFIX):
            report.skipped["not a .jsonl file"] += 1
        else:
            _consider(path, report, since, found)
    return found


def _consider(path: str, report: Report, since: float | None, found: list[tuple[str, int]]) -> None:
    try:
        info = regular_file.look(path)
    except regular_file.Refused as exc:
        report.skipped[skip_reason(exc)] += 1
        return
    if since is not None and info.st_mtime < since:
        report.skipped["not modified since --since"] += 1
    elif info.st_size == 0:
        report.skipped["empty file"] += 1
    else:
        found.append((path, info.st_size))


def skip_reason(exc: regular_file.Refused) -> str:
    return "path does not exist" if exc.reason == regular_file.MISSING else exc.reason


def is_subagent_file(path: str) -> bool:
    return os.path.basename(os.path.dirname(path)) == "subagents"


def scan_paths(
    paths: Iterable[str],
    config: Config,
    *,
    since: float | None = None,
    progress: Progress | None = None,
) -> Report:
    """Scan every transcript under `paths` into one `Report` (the benchmark's entry point)."""
    import orjson

    report = Report.new()
    files = discover(paths, report, since)
    total = sum(size for _, size in files)
    done = 0
    for path, size in files:
        scan_file(path, config, report, orjson.loads)
        done += size
        if progress is not None:
            progress(done, total)
    return report


def scan_file(path: str, config: Config, report: Report, loads: Loads) -> None:
    """Analyse one transcript into `report`; an unreadable file is a counted skip, not an error."""
    scan = SessionScan.start(
        report, config, sidechain_file=True if is_subagent_file(path) else None
    )
    try:
        with lines.open_transcript(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            _feed(scan, handle, report, loads)
    except regular_file.Refused as exc:
        report.skipped[skip_reason(exc)] += 1
        return
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


def _feed(scan: SessionScan, handle: BinaryIO, report: Report, loads: Loads) -> None:
    for raw in lines.read_lines(handle):
        report.lines += 1
        line = lines.judge(raw, loads)
        if line.status == lines.MALFORMED:
            report.malformed_lines += 1
        elif line.status == lines.SKIPPED:
            _count_type(report, line.kind)
        elif line.status == lines.PARSED:
            for entry in line.entries:
                _count_type(report, entry.get("type", "(none)"))
                scan.feed(entry)


def _count_type(report: Report, kind: str) -> None:
    report.entry_types[kind[:40]] += 1
    if kind not in KNOWN_TYPES:
        report.unknown_types[kind[:40]] += 1
