"""The report's timing script runs on a small corpus, and says so when there is none."""

from __future__ import annotations

import shutil
from pathlib import Path

from testing.benchmarks import EXAMPLES
from testing.benchmarks import run_benchmark


def test_without_a_corpus_the_script_says_so_and_exits_0(tmp_path: Path) -> None:
    done = run_benchmark("report_speed.py", "--corpus", str(tmp_path / "absent"))
    assert done.returncode == 0, done.stderr
    assert "No corpus at" in done.stdout


def test_it_times_each_part_on_the_largest_transcript(tmp_path: Path) -> None:
    for name in ("1-stall-continued.jsonl", "4-thrash-paused.jsonl"):
        shutil.copy(EXAMPLES / name, tmp_path)
    done = run_benchmark("report_speed.py", "--corpus", str(tmp_path))
    assert done.returncode == 0, done.stderr
    largest = max(tmp_path.glob("*.jsonl"), key=lambda p: p.stat().st_size).name
    assert done.stdout.startswith(largest)
    assert all(f"  {step} " in done.stdout for step in ("replay", "timeline", "text", "html"))
