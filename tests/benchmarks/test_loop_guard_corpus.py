"""The loop-guard corpus script runs end to end, and says so when there is nothing to read."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from testing.builders import REPO


SCRIPT = REPO / "benchmarks" / "loop_guard_corpus.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def test_a_missing_corpus_is_reported_and_exits_zero(tmp_path):
    done = _run(str(tmp_path / "absent"))
    assert done.returncode == 0, done.stderr
    assert "no transcripts found" in done.stdout


def test_it_counts_tool_calls_and_interventions_per_session(tmp_path):
    for example in ("4-thrash-paused.jsonl", "5-polling-then-work.jsonl"):
        shutil.copy(REPO / "src" / "arcguard" / "examples" / example, tmp_path / example)
    done = _run(str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [row["file"] for row in result["files"]] == [
        "4-thrash-paused.jsonl",
        "5-polling-then-work.jsonl",
    ]
    assert result["tool_calls"] == sum(row["tool_calls"] for row in result["files"]) > 0
    assert result["files"][0]["pause"] == 1  # the thrashing example is still paused
