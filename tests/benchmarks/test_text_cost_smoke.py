"""The text-cost benchmark still runs end to end (its figures are times, read by a person)."""

from __future__ import annotations

from testing.benchmarks import run_benchmark


def test_the_text_cost_benchmark_runs_every_shape():
    done = run_benchmark("text_cost.py", "--sizes", "2048")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[0] == "shape"
    assert len(lines) == 1 + 7  # one row per shape
