"""The stop-policy measurement runs on a small corpus, and says so when there is none."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from testing.benchmarks import EXAMPLES
from testing.benchmarks import run_benchmark


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_benchmark("stall_policies.py", *args)


def test_without_a_corpus_the_script_says_so_and_exits_0(tmp_path: Path) -> None:
    done = run("--corpus", str(tmp_path / "absent"))
    assert done.returncode == 0, done.stderr
    assert "No corpus at" in done.stdout


def test_noop_leaves_a_question_alone_and_ask_continues_it(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(EXAMPLES / "6-question-continued.jsonl", corpus)
    out = tmp_path / "figures.json"
    done = run("--corpus", str(corpus), "--jobs", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert [data[p]["continuations"] for p in ("noop", "ask", "strict")] == [0, 1, 2]
    assert "| `ask` | 1 |" in done.stdout
