"""Transcripts that fight back: a 50 MB last line, no newline at all, appends during the read.

Protections exercised:
- the byte bound of `transcript.tail.lines_newest_first` (`tail_bytes`): a line that starts
  before the bound is dropped, never read whole, so memory stays bounded (the peak-RSS check
  fails if the reader loads the 50 MB line);
- the partial-last-line rule: a final line without a newline is still yielded;
- reading a size snapshot with `pread` from the end: appends made while reading are not mixed
  into the lines being yielded, and the Stop drain picks up a message flushed after it started.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from arcguard.transcript import tail
from tests.reliability import support


MB = 1024 * 1024
PEAK_KB = """
import resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], stdin=sys.stdin, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _huge_line(size: int) -> bytes:
    return b'{"type":"api-request-blob","blob":{"messages":[{"content":"' + b"x" * size + b'"}]}}'


def _peak_rss_mb(home: Path, payload: dict[str, object]) -> float:
    """Peak RSS of one real stop hook. The probe is a small process of its own so that the
    pytest process's size does not leak into the child's high-water mark through fork."""
    import json
    import sys

    proc = subprocess.run(
        [sys.executable, "-S", "-c", PEAK_KB, sys.executable, "-m", "arcguard", "hook", "stop"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=support.env(home),
        check=True,
    )
    return int(proc.stdout) / 1024


def test_a_50_mb_last_line_is_not_read_whole(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    with transcript.open("wb") as out:
        out.write(support.assistant_line("m1", "No response requested."))
        out.write(_huge_line(50 * MB) + b"\n")
    home = tmp_path / "state"
    support.put_state(home, "s1")
    payload = support.stop("s1", str(transcript))
    assert _peak_rss_mb(home, payload) < 40
    proc = support.run_hook("stop", payload, home, ARCGUARD_DRAIN_MS="100")
    assert (proc.returncode, proc.stdout) == (0, b"")
    assert support.log_text(home) == ""


def test_the_reader_drops_a_line_that_starts_before_its_bound(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"first\n" + _huge_line(3 * MB) + b"\nlast\n")
    assert list(tail.lines_newest_first(str(path), MB)) == [b"last"]


def test_a_transcript_without_any_newline_is_one_partial_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    line = support.assistant_line("m1", "No response requested.").rstrip(b"\n")
    path.write_bytes(line)
    assert list(tail.lines_newest_first(str(path), MB)) == [line]
    home = tmp_path / "state"
    support.put_state(home, "s1")
    proc = support.run_hook("stop", support.stop("s1", str(path)), home, ARCGUARD_DRAIN_MS="100")
    assert support.is_decision(proc.stdout)  # a complete last line is read even unterminated


def test_a_big_file_without_newline_gives_nothing_and_stays_bounded(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"x" * (5 * MB))
    assert list(tail.lines_newest_first(str(path), MB)) == []
    home = tmp_path / "state"
    support.put_state(home, "s1")
    payload = support.stop("s1", str(path))
    assert _peak_rss_mb(home, payload) < 40
    proc = support.run_hook("stop", payload, home, ARCGUARD_DRAIN_MS="100")
    assert (proc.returncode, proc.stdout) == (0, b"")


def test_appends_during_a_read_do_not_mix_into_the_lines(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    lines = [f"line {i} ".encode() * 50 for i in range(2000)]
    path.write_bytes(b"\n".join(lines) + b"\n")
    reader = tail.lines_newest_first(str(path), 10 * MB, block=4096)
    got = [next(reader)]
    with path.open("ab") as out:
        out.write(b"appended " * 1000 + b"\n" + b"half a li")
    got.extend(reader)
    assert got == list(reversed(lines))


def test_truncation_during_a_read_ends_it_quietly(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    lines = [f"line {i}".encode() for i in range(50_000)]
    path.write_bytes(b"\n".join(lines) + b"\n")
    reader = tail.lines_newest_first(str(path), 10 * MB, block=4096)
    got = [next(reader)]
    os.truncate(path, 0)
    got.extend(reader)  # what the first block already held, then nothing
    assert 1 < len(got) < 1000
    assert got == list(reversed(lines))[: len(got)]


def _appender(path: Path, stop: threading.Event, final: bytes) -> None:
    """Write like Claude Code does: entries in pieces, a half-written line now and then."""
    with path.open("ab", buffering=0) as out:
        time.sleep(0.3)
        out.write(b'{"type":"progress","data":"x')
        time.sleep(0.05)
        out.write(b'xx"}\n')
        out.write(final[:20])
        time.sleep(0.05)
        out.write(final[20:])
        while not stop.wait(0.01):
            out.write(b'{"type":"system","subtype":"tick"}\n')


def test_the_stop_drain_reads_a_message_flushed_while_it_waits(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(support.assistant_line("m-old", "Working on it."))
    home = tmp_path / "state"
    support.put_state(home, "s1", seen=["m-old"])  # the newest message is old news
    stop = threading.Event()
    writer = threading.Thread(
        target=_appender,
        args=(path, stop, support.assistant_line("m-new", "No response requested.")),
    )
    writer.start()
    try:
        proc = support.run_hook(
            "stop",
            support.stop("s1", str(path)),
            home,
            ARCGUARD_DRAIN_MS="4500",
            ARCGUARD_HOOK_BUDGET_MS="5000",
        )
    finally:
        stop.set()
        writer.join()
    assert proc.returncode == 0
    assert support.is_decision(proc.stdout)
    assert support.log_text(home) == ""


@pytest.mark.slow
def test_many_reads_during_heavy_appends_never_fail(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(support.assistant_line("m-old", "Working on it."))
    stop = threading.Event()

    def flood() -> None:
        with path.open("ab", buffering=0) as out:
            n = 0
            while not stop.is_set():
                out.write(_huge_line(200_000)[: 100_000 + n % 1000])
                out.write(b"\n" + support.assistant_line(f"m{n}", "Still going."))
                n += 1

    writer = threading.Thread(target=flood)
    writer.start()
    try:
        for _ in range(200):
            for line in tail.lines_newest_first(str(path), MB):
                assert b"\n" not in line
    finally:
        stop.set()
        writer.join()
