"""The field-trial script runs, and says so rather than failing when there is no corpus."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from testing.benchmarks import EXAMPLES
from testing.benchmarks import run_benchmark


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_benchmark("field_trial.py", *args)


def test_without_a_corpus_the_script_says_so_and_exits_0(tmp_path: Path) -> None:
    done = run("--corpus", str(tmp_path / "absent"))
    assert done.returncode == 0, done.stderr
    assert "No corpus at" in done.stdout


def test_the_trial_reports_rates_plain_and_with_arc(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(EXAMPLES / "4-thrash-paused.jsonl", corpus)
    shutil.copy(EXAMPLES / "2-legitimate-stop.jsonl", corpus)
    out = tmp_path / "trial.json"
    done = run("--corpus", str(corpus), "--jobs", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "| as recorded | 2 | 8 |" in done.stdout and "| with --arc | 2 | 8 |" in done.stdout
    data = json.loads(out.read_text())
    assert data["as recorded"]["interventions"] == {
        "deny": 2,
        "pause": 1,
        "continue": 0,
        "nudge": 0,
    }
    assert data["as recorded"]["per_1000_tool_calls"]["deny"] == 250.0
