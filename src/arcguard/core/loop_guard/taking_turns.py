"""Failures of one check that take turns: `make lint` failing on the formatter's complaint,
then, after the import sorter ran, on the sorter's, then on the formatter's again, each fixer
undoing the other. Each failure alone comes back only every other attempt, yet together they
show that nothing moved as surely as one failure does.

A failure that comes back after another failure of the same check (`back_after`) starts a
run of the two together, counted in `Stuck.runs` under a key of its own (`key`), from twice
the shorter of their runs; it goes on while they alternate, once a turn: a request to
summarise at the 4th attempt, a pause at the 6th, as for one failure. Failures beside each
other in one turn, failures of different checks (a test and a type check, a sweep's
targets) and one written around (a file written since it was seen) never pair. Pure
functions of the track's `Stuck` record.
"""

from __future__ import annotations

from arcguard.core.loop_guard import failures
from arcguard.core.loop_guard import opkey


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.loop_records import Stuck

PAIR = "+"  # between the two failures of a pair's run key (shapes hold no `+`)


def key(failure: str, other: str) -> str:
    """The run key of two failures taking turns, the same whichever came first: the first
    shape, then the second's digest (`failed:3f2a...+9c1b...`), no longer than a sweep's."""
    first, second = sorted((failure, other))
    return f"{first}{PAIR}{second.partition(':')[2]}"


def members(run: str) -> list[str]:
    """The two failures of a pair's run key; [] for any other run."""
    first, pair, digest = run.partition(PAIR)
    return [first, f"{opkey.FAILED}:{digest}"] if pair else []


def back_after(st: Stuck, failure: str, turn: int) -> str:
    """The failure that `failure`, failing again in `turn`, comes back after ("" if none): the
    last failure counted, in an earlier turn, seen after `failure` was last seen and not beside
    it, from the same check (`same_check`); `failure` seen within `FAIL_MEMORY_TURNS` and no
    file written since. Read before `failure` is remembered as seen now."""
    other = st.fail or ""
    if not other or other == failure or st.fail_turn == turn:
        return ""
    seen, between = st.cause_turns.get(failure), st.cause_turns.get(other)
    if seen is None or between is None or seen >= between:
        return ""
    if turn - seen > failures.FAIL_MEMORY_TURNS or st.wrote_turn >= seen:
        return ""
    return other if same_check(st, failure, other) else ""


def same_check(st: Stuck, failure: str, other: str) -> bool:
    """The calls that first failed the two ways name the same things, or one of them more
    (`make lint`, `make -s lint`; `pytest -q`, `pytest -q tests/test_tax.py`): one check.
    `make lint` and `make test`, `uv run pytest` and `uv run alembic upgrade` are two."""
    words = [{w for w in st.cause_words.get(f, ()) if w} for f in (failure, other)]
    return bool(words[0] and words[1]) and (words[0] <= words[1] or words[1] <= words[0])


def ways(st: Stuck) -> int:
    """How many ways the longest run of failures fails: 2 for two taking turns, else 1."""
    failing = [(n, r) for r, n in st.runs.items() if r.startswith(opkey.FAILED)]
    return 2 if failing and members(max(failing)[1]) else 1
