"""The per-request benchmark still drives a whole session through both in-process paths
without a decision (its figures are for the docs, not checked)."""

from __future__ import annotations

import json

from testing.benchmarks import run_benchmark


def test_the_request_benchmark_runs_both_paths(tmp_path):
    out = tmp_path / "result.json"
    done = run_benchmark("bench_requests.py", "--calls", "12", "--sessions", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    [figures] = [value for key, value in result.items() if key not in ("python", "load")]
    assert set(figures) == {"resident", "sdk"}
    assert all(mode["per_tool_call_ms"] > 0 for mode in figures.values())
