"""Thresholds suggested by the measured distributions, shown next to the current config.

Each suggestion sits above what the corpus shows with a stated margin. Nothing here changes
the config: the user reads the numbers and decides. Runs the user considers real thrash raise
the observed maxima, so a corpus with known bad sessions needs judgement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcguard.forensics.histogram import percentile
from arcguard.values import value


if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Mapping
    from typing import TypedDict

    class SuggestionDoc(TypedDict):
        name: str
        current: object  # the config's value as set
        observed: int | None
        suggested: int | None
        basis: str


# Below this many runs (or operator stretches) a distribution cannot justify a lower threshold.
MIN_SAMPLES = 50


@value
class Suggestion:
    name: str
    current: object
    observed: int | None
    suggested: int | None
    basis: str

    def as_dict(self) -> SuggestionDoc:
        return {
            "name": self.name,
            "current": self.current,
            "observed": self.observed,
            "suggested": self.suggested,
            "basis": self.basis,
        }


def _ceil_ratio(value: int, num: int, den: int) -> int:
    return -(-value * num // den)


def _make(
    name: str,
    current: Mapping[str, object],
    observed: int | None,
    derived: int | None,
    basis: str,
    samples: int,
    *,
    occurred: bool = True,
) -> Suggestion:
    now = current.get(name)
    if derived is not None and isinstance(now, int) and derived < now:
        if samples < MIN_SAMPLES:
            # Too few samples to argue for a lower threshold: only ever suggest raising it.
            derived = now
            basis += f"; only {samples} samples (< {MIN_SAMPLES}), so never below the current value"
        elif not occurred:
            # Never seeing the pattern says nothing about where it starts: no reason to tighten.
            derived = now
            basis += "; the pattern never occurred, so never below the current value"
    return Suggestion(name, now, observed, derived, basis)


def suggestions(
    run_lengths: Counter[int],
    max_repeats: Mapping[int, int],
    stretches: Counter[int],
    current: Mapping[str, object],
) -> list[Suggestion]:
    """The thresholds the measured tool-only runs (their lengths, the longest repeat of each
    period) and stretches between operator messages suggest, beside the `current` config."""
    runs = sum(run_lengths.values())
    stretch_count = sum(stretches.values())
    identical = max_repeats[1] if runs else None
    cycle = max(n for p, n in max_repeats.items() if p > 1) if runs else None
    run_p99 = percentile(run_lengths, 99)
    gap_p99 = percentile(stretches, 99)
    gap_max = max(stretches) if stretches else None
    return [
        _make(
            "cycle_repeats_identical",
            current,
            identical,
            None if identical is None else max(2, identical + 2),
            "longest identical repeat seen + 2",
            runs,
            occurred=(identical or 0) > 1,
        ),
        _make(
            "cycle_repeats",
            current,
            cycle,
            None if cycle is None else max(2, cycle + 1),
            "longest cycle repeat seen (periods 2-8) + 1",
            runs,
            occurred=(cycle or 0) > 1,
        ),
        _make(
            "checkin_turns",
            current,
            run_p99,
            None if run_p99 is None else max(2, _ceil_ratio(run_p99, 3, 2)),
            "p99 tool-only run length + 50%",
            runs,
        ),
        _make(
            "backstop_nudge_turns",
            current,
            gap_p99,
            None if gap_p99 is None else max(2, _ceil_ratio(gap_p99, 3, 2)),
            "p99 turns since the operator + 50%",
            stretch_count,
        ),
        _make(
            "backstop_pause_turns",
            current,
            gap_max,
            None if gap_max is None else max(4, _ceil_ratio(gap_max, 5, 4)),
            "longest stretch without the operator + 25%",
            stretch_count,
        ),
    ]
