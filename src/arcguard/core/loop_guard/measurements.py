"""Runs that measure: a benchmark or a load test, whose repeats are samples.

Run five times in a row, `wrk -d30s ...` or `go test -bench=.` gives five measurements, not
five tries at the same question, even though its numbers read as values a clock moves. Such a
turn neither extends nor breaks a cycle (`guard.turn_call`), as a wait does not; a failing one
still counts as a failure does.
"""

from __future__ import annotations

from arcguard.core.loop_guard import tool_effects


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.tool_call import ToolCall

# Load generators and benchmark runners, by program name.
MEASURING = frozenset(
    "wrk wrk2 ab hey oha bombardier siege vegeta k6 hyperfine ghz locust h2load artillery "  # noqa: SIM905
    "autocannon sysbench fio iperf iperf3 pgbench redis-benchmark memtier_benchmark".split()
)


def measures(call: ToolCall) -> bool:
    """The call runs a load generator or a benchmark: a program of `MEASURING`, or a word of
    which a part opens with `bench` (`cargo bench`, `go test -bench=.`, `./bench_http.sh`,
    `pytest --benchmark-only`; not `workbench/`)."""
    command = tool_effects.command_of(call)
    if command is None:
        return False
    parts = tool_effects.segments(command) or []
    return any(
        tool_effects.program_name(words[0]) in MEASURING or any(_benches(w) for w in words)
        for words in parts
        if words
    )


def _benches(word: str) -> bool:
    part = ""
    for c in word.lower() + " ":
        if c.isalnum():
            part += c
            continue
        if part.startswith("bench"):
            return True
        part = ""
    return False
