"""`forensics` and `replay` on what a person names: a missing path or a file that is not a
transcript is a one-line error and exit 1; a long replay shows progress on a terminal only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testing.builders import REPO
from testing.cli import invoke


EXAMPLES = REPO / "src" / "arcguard" / "examples"
VERBS = ["forensics", "replay"]


def _one_line_error(verb: str, path: Path) -> str:
    result = invoke(verb, str(path))
    assert result.exit_code == 1, result.output
    [line] = result.output.splitlines()
    return line


@pytest.mark.parametrize("verb", VERBS)
def test_a_missing_path_is_an_error(verb: str, tmp_path: Path):
    missing = tmp_path / "nothing-here"
    assert _one_line_error(verb, missing) == f"Error: {missing}: no such file or folder"


@pytest.mark.parametrize("verb", VERBS)
@pytest.mark.parametrize(
    "content", [b"my-laptop\n", b"", b'{"no": "type"}\n[1, 2]\n', b"\x00\xff" * 100]
)
def test_a_file_that_is_not_a_transcript_is_an_error(verb: str, tmp_path: Path, content: bytes):
    path = tmp_path / "hostname"
    path.write_bytes(content)
    assert _one_line_error(verb, path) == (
        f"Error: {path}: not a Claude Code transcript "
        "(no JSON entry with a type among its first lines)"
    )


@pytest.mark.parametrize("verb", VERBS)
def test_a_fifo_is_refused_without_waiting_for_a_writer(verb: str, tmp_path: Path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    assert _one_line_error(verb, fifo) == f"Error: {fifo}: not a regular file (a FIFO)"


@pytest.mark.parametrize("verb", VERBS)
def test_transcripts_and_folders_of_them_still_run(verb: str):
    assert invoke(verb, str(EXAMPLES / "1-stall-continued.jsonl")).exit_code == 0
    assert invoke(verb, str(EXAMPLES)).exit_code == 0


def test_a_transcript_whose_first_line_is_damaged_is_still_one(tmp_path: Path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"{broken\n" + (EXAMPLES / "1-stall-continued.jsonl").read_bytes())
    assert invoke("replay", str(path)).exit_code == 0


def _replay(stderr: int) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "arcguard", "replay", str(EXAMPLES)],
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        timeout=120,
    )


def test_replay_over_several_files_shows_progress_on_a_terminal_only():
    import pty

    master, slave = pty.openpty()
    try:
        assert _replay(slave).returncode == 0
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal's other end is closed: all of it was read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(master)
    assert b"replaying" in shown and b"6/6" in shown
    piped = _replay(subprocess.PIPE)
    assert piped.stderr == b""
