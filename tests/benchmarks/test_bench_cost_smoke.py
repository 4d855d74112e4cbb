"""The recorder benchmark still runs end to end (its figures are for the docs, not checked)."""

from __future__ import annotations

from testing.benchmarks import run_benchmark


def test_the_recorder_benchmark_runs():
    done = run_benchmark("bench_cost.py", "--runs", "20", "--processes", "2")
    assert done.returncode == 0, done.stderr
    assert "one record:" in done.stdout
