"""Runs that measure (`loop_guard.measurements`): a benchmark run again and again gives
samples, so the same call five times in a row is no cycle when it is one."""

from __future__ import annotations

from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import edit

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
        FLAKE_RATE,
        "for i in {1..50}; do go test -run TestTick ./sync || break; done",
        "go test -count=200 -run TestTickOrder ./sync",
        "pytest --count 50 -x tests/test_sync.py",
        "npx playwright test --repeat-each=20 checkout.spec.ts",
    ):
        assert measures(call(command)), command
    for command in (
        "cd workbench && make test",
        "curl -s localhost:8080/",
        "npm test",
        "go test -count=1 ./...",
        "git rev-list --count HEAD",
        "for f in a.py b.py; do ruff check $f; done",
        "for i in $(seq 1 30); do curl -sf localhost:8080/health && break; sleep 2; done",
        "for i in {1..3}; do npm ci && break; done",
        "for i in $(seq 1 20); do kubectl delete pod web-$i; done",
        "aws ec2 run-instances --count 3 --image-id ami-0abc",
        "redis-cli --scan --count 100",
        "go test -count=\u00b2 ./pkg",
        "go test -count=" + "9" * 5000 + " ./pkg",
    ):
        assert not measures(call(command)), command


FLAKE_RATE = (
    "for i in $(seq 1 100); do cargo test sync::tick_order -- --exact -q >/dev/null 2>&1"
    " && echo PASS || echo FAIL; done | sort | uniq -c"
)


def test_a_flaky_tests_rate_measured_again_after_its_fix_is_never_denied():
    d = Driver()
    d.turn(bash(FLAKE_RATE, "      6 FAIL\n     94 PASS\n"))
    d.turn(edit("src/sync.rs", "let tick = clock.now();", "let tick = clock.monotonic();"))
    for n in range(4):
        out = d.turn(bash(FLAKE_RATE, "    100 PASS\n"))
        assert not out["denied"] and d.paused is None, n
    assert not d.turn(bash("go test -count=200 -run TestTickOrder ./sync", "ok  \tsync\t4.1s"))[
        "denied"
    ]
