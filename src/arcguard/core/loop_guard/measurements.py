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
MIN_PASSES = 10  # of a loop: fewer is a retry, or a handful of tries
MAX_DIGITS = 10  # of a count read: a longer one is no count a loop goes through


def measures(call: ToolCall) -> bool:
    """The call runs a load generator or a benchmark: a program of `MEASURING`, or a word of
    which a part opens with `bench` (`cargo bench`, `go test -bench=.`, `./bench_http.sh`,
    `pytest --benchmark-only`; not `workbench/`); or it runs a check many times over, with an
    option of `REPEATING` or a loop counting through a range (`_counted_loop`)."""
    command = tool_effects.command_of(call)
    if command is None:
        return False
    if tool_effects.is_poll(call):
        return False  # it waits between looks: a poll
    if _counted_loop(command.replace(";", " ; ").split()):
        return True
    parts = tool_effects.segments(command) or []
    return any(
        tool_effects.program_name(words[0]) in MEASURING
        or any(_benches(w) for w in words)
        or (
            _tests(words)
            and any(_repeating(w, n) for w, n in zip(words, [*words[1:], ""], strict=True))
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
    count = _number(value)
    return count is not None and count > 1


def _counted_loop(words: list[str]) -> bool:
    """`for i in $(seq 1 100); do ...; done` or `for i in {1..50}; do ...`: one body run through
    a range of at least `MIN_PASSES` counts. Not one whose body names the count (`pod-$i`: a
    sweep over targets) or leaves the loop once it works (`&& break`: a retry); one that leaves at
    the first failure (`|| break`) runs a check until it fails, a measurement too."""
    if any(word == "break" and words[at - 1] == "&&" for at, word in enumerate(words) if at):
        return False
    for at, word in enumerate(words[:-3]):
        if word == "for" and words[at + 2] == "in":
            name, passes = words[at + 1], _passes(words[at + 3 :])
            named = any(f"${name}" in w or f"${{{name}}}" in w for w in words[at + 4 :])
            return passes >= MIN_PASSES and not named
    return False


def _passes(words: list[str]) -> int:
    """How many counts `$(seq 1 100)`, `$(seq 100)` or `{1..50}` goes through; 0 for any other."""
    first = words[0] if words else ""
    if first in ("$(seq", "`seq"):
        found = [n for w in words[1:3] if (n := _number(w.strip(")`"))) is not None]
        bounds = [1, *found][-2:]
    elif first[:1] == "{" and first[-1:] == "}" and ".." in first:
        bounds = [n for w in first[1:-1].split("..", 1) if (n := _number(w)) is not None]
    else:
        return 0
    return bounds[1] - bounds[0] + 1 if len(bounds) == 2 else 0


def _number(word: str) -> int | None:
    """`word` as a whole number of fewer than `MAX_DIGITS` digits, or None."""
    plain = word.isascii() and word.isdigit() and len(word) < MAX_DIGITS
    return int(word) if plain else None


def _tests(words: list[str]) -> bool:
    """The command runs tests (`go test`, `pytest`, `playwright test`, `bazel test`): the only
    commands whose `--count` is how many times to run them (`aws ec2 run-instances --count 3`
    starts three machines)."""
    return any("test" in word.lower() for word in words)
