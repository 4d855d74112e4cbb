"""Runs that measure (`loop_guard.measurements`): a benchmark run again and again gives
samples, so the same call five times in a row is no cycle when it is one."""

from __future__ import annotations

from testing.guard_driver import Driver
from testing.guard_driver import bash

from arcguard.core.loop_guard.measurements import measures
from arcguard.core.tool_call import ToolCall


def _wrk(n: int) -> str:
    rps = 11_000 + 137 * n
    return (
        "Running 30s test @ http://localhost:8080/search?q=cache\n"
        "  4 threads and 64 connections\n"
        f"    Latency   {5 + n / 10:.2f}ms   {1.5 + n / 20:.2f}ms  {40 + n:.2f}ms  {75 + n}.10%\n"
        f"  {rps * 30} requests in 30.0{n}s, {120 + n}.{n}MB read\n"
        f"Requests/sec:  {rps}.{n * 7}\nTransfer/sec:      4.{n}MB\n"
    )


def test_a_benchmark_run_again_and_again_is_sampled_not_paused():
    d = Driver()
    for n in range(8):
        out = d.turn(bash("wrk -t4 -c64 -d30s 'http://localhost:8080/search?q=cache'", _wrk(n)))
        assert not out["context"] and d.paused is None, n


def test_the_same_look_five_times_in_a_row_still_pauses():
    d = Driver()
    for n in range(5):
        d.turn(bash("curl -s localhost:8080/health", f'{{"status": "degraded", "t": {n}}}'))
    assert d.paused is not None


def test_what_measures():
    def call(command: str) -> ToolCall:
        return ToolCall("Bash", {"command": command})

    for command in (
        "wrk -t4 -c64 -d30s http://localhost:8080/",
        "hyperfine --warmup 3 'rg foo'",
        "cargo bench --bench parse",
        "go test -run='^$' -bench=. ./internal/cache",
        "cd api && ./scripts/bench_http.sh",
        "pytest tests/perf --benchmark-only",
    ):
        assert measures(call(command)), command
    for command in ("cd workbench && make test", "curl -s localhost:8080/", "npm test"):
        assert not measures(call(command)), command
