"""Runs that measure: a benchmark, a load test or a check run many times over, whose repeats
are samples.

Run five times in a row, `wrk -d30s ...` or `go test -bench=.` gives five measurements, not
five tries at the same question, even though its numbers read as values a clock moves. A flaky
test's rate, counted by a loop that runs it a hundred times, is measured again after each fix
and again to be sure: the same count twice is agreement, not a blind repeat. Such a turn neither
extends nor breaks a cycle (`guard.turn_call`), as a wait does not, and the repeat guard lets it
run again (`repeat`); a failing one still counts as a failure does.
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
# A test runner's own way to run one check many times over (`go test -count=200`,
# pytest-repeat's `--count 50`, Playwright's `--repeat-each`, Bazel's `--runs_per_test`):
# with a number above one, or on its own for the flags that take none.
REPEATING = frozenset(
    "-count --count --repeat --repeat-each --runs_per_test --stress-count --flake-runs".split()  # noqa: SIM905
)
REPEATING_ALONE = frozenset(("--flake-finder", "--until-it-fails", "--stress-duration"))


def measures(call: ToolCall) -> bool:
    """The call runs a load generator or a benchmark: a program of `MEASURING`, or a word of
    which a part opens with `bench` (`cargo bench`, `go test -bench=.`, `./bench_http.sh`,
    `pytest --benchmark-only`; not `workbench/`); or it runs a check many times over, with an
    option of `REPEATING` or a loop counting through a range (`_counted_loop`)."""
    command = tool_effects.command_of(call)
    if command is None:
        return False
    if _counted_loop(command.split()):
        return True
    parts = tool_effects.segments(command) or []
    return any(
        tool_effects.program_name(words[0]) in MEASURING
        or any(
            _benches(w) or _repeating(w, n) for w, n in zip(words, [*words[1:], ""], strict=True)
        )
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


def _repeating(word: str, following: str) -> bool:
    if word in REPEATING_ALONE:
        return True
    name, equals, value = word.partition("=")
    if name not in REPEATING:
        return False
    value = value if equals else following
    return value.isdigit() and int(value) > 1


def _counted_loop(words: list[str]) -> bool:
    """`for i in $(seq 1 100); do ...; done` or `for i in {1..50}; do ...`: the same body run
    through a range of counts. Not a loop over names (those are targets), nor one that sleeps
    (that one waits: `tool_effects.is_poll`)."""
    if "sleep" in words:
        return False
    for at, word in enumerate(words[:-3]):
        if word == "for" and words[at + 2] == "in":
            counts = words[at + 3]
            if counts.startswith(("$(seq", "`seq")) or _brace_range(counts):
                return True
    return False


def _brace_range(word: str) -> bool:
    word = word.rstrip(";")
    low, dots, high = word[1:-1].partition("..")
    return word[:1] == "{" and word[-1:] == "}" and bool(dots) and low.isdigit() and high.isdigit()
