"""Replay and forensics on transcripts written to attack them."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from testing.builders import Transcript

from arcguard.core.config import default_config
from arcguard.forensics import lines
from arcguard.forensics import scan_paths
from arcguard.replay import replay


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize(
    "session_id",
    [
        "ABSOLUTE",
        "../../escaped",
        "../../../escaped-too",
        "a\x00b",
        "x" * 10_000,
        "sub/dir/name",
        "~/home-relative",
        ".",
        "..",
    ],
)
def test_replay_writes_only_inside_its_scratch_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, session_id: str
) -> None:
    if session_id == "ABSOLUTE":
        session_id = str(tmp_path / "victim" / "sub" / "x")
    scratch = tmp_path / "scratch" / "deeper"
    scratch.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    source = Transcript(session_id=session_id).prompt("go").bash("ls", "a").text("done")
    path = source.write(tmp_path / "in" / "t.jsonl")
    before = files_under(tmp_path)
    result = replay(str(path))
    assert result.turns == 2
    assert files_under(tmp_path) == before  # nothing left behind, nothing created elsewhere
    assert os.listdir(scratch) == []


def deep_session(path: Path, depth: int = 1015) -> Path:
    nested = "[" * depth + "]" * depth
    t = Transcript().prompt("go").bash("ls", "a").text("done")
    lines = t.lines()
    call = (
        '{"type":"assistant","sessionId":"sess-1","uuid":"deep","message":{"id":"m-deep",'
        '"role":"assistant","content":[{"type":"tool_use","id":"t-deep","name":"Bash",'
        '"input":{"command":"ls","x":' + nested + "}}]}}"
    )
    path.write_text("\n".join([*lines[:1], call, *lines[1:]]) + "\n")
    return path


def test_replay_survives_a_tool_input_nested_a_thousand_deep(tmp_path: Path) -> None:
    result = replay(str(deep_session(tmp_path / "deep.jsonl")))
    assert result.malformed_lines == 1
    assert result.turns == 2


def test_forensics_survives_a_tool_input_nested_a_thousand_deep(tmp_path: Path) -> None:
    report = scan_paths([str(deep_session(tmp_path / "deep.jsonl"))], default_config())
    assert report.malformed_lines == 1
    assert report.turns == 2


def test_entries_nested_past_the_bound_are_refused_below_it_kept() -> None:
    import orjson

    deep = ("[" * 101 + "]" * 101).encode()
    assert lines.parse(b'{"a":' + deep + b"}", orjson.loads) is None
    shallow = ("[" * 98 + "]" * 98).encode()
    assert lines.parse(b'{"a":' + shallow + b"}", orjson.loads) is not None


LONG_LINE_BYTES = 200 * 1024 * 1024
PEAK_LIMIT_KB = 120 * 1024  # far below the line; the reader holds at most one bounded chunk
MEASURE = """
import sys
{call}
# Peak resident memory of this process image: VmHWM starts afresh at exec, whereas ru_maxrss
# can carry the parent's peak over, which would hide or fake the figure under test.
with open("/proc/self/status") as status:
    print(next(l.split()[1] for l in status if l.startswith("VmHWM:")))
"""
CALLS = {
    "forensics": (
        "from arcguard.forensics import scan_paths\n"
        "from arcguard.core.config import default_config\n"
        "r = scan_paths([sys.argv[1]], default_config())\n"
        "assert (r.malformed_lines, r.turns) == (1, 2), (r.malformed_lines, r.turns)"
    ),
    "replay": (
        "from arcguard.replay import replay\n"
        "r = replay(sys.argv[1])\n"
        "assert (r.malformed_lines, r.turns) == (1, 2), (r.malformed_lines, r.turns)"
    ),
}


@pytest.fixture(scope="module")
def long_line_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("long") / "long.jsonl"
    t = Transcript().prompt("go").bash("ls", "a").text("done")
    first, *rest = t.lines()
    chunk = b"a" * (1024 * 1024)
    with path.open("wb") as out:
        out.write(first.encode() + b'\n{"type":"assistant","x":"')
        for _ in range(LONG_LINE_BYTES // len(chunk)):
            out.write(chunk)
        out.write(b'"}\n' + "\n".join(rest).encode() + b"\n")
    return path


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("tool", sorted(CALLS))
def test_an_over_long_line_is_skipped_in_bounded_memory(long_line_file: Path, tool: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE.format(call=CALLS[tool]), str(long_line_file)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    peak_kb = int(done.stdout.split()[-1])
    assert peak_kb < PEAK_LIMIT_KB, f"{tool} peaked at {peak_kb // 1024} MB"
