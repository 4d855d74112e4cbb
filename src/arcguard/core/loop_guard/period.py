"""Find the shortest repeating period at the end of a sequence (the cycle detector)."""

from __future__ import annotations


def periodic_suffix(seq: list[str], period: int) -> int:
    """How many items at the end equal the item `period` places before them."""
    matched = 0
    i = len(seq) - 1
    while i - period >= 0 and seq[i] == seq[i - period]:
        matched += 1
        i -= 1
    return matched


def detect_period(
    seq: list[str], *, max_period: int, repeats_identical: int, repeats_cycle: int
) -> tuple[int, int] | None:
    """(period, whole repeats) of the shortest qualifying cycle at the end of `seq`, or None.

    Period 1 needs `repeats_identical` repeats; longer periods need `repeats_cycle` repeats and
    at least 2 distinct items in one period (so A,A,A,A is never reported as period 2).
    """
    for period in range(1, max_period + 1):
        if len(seq) < period:
            break
        repeats = (periodic_suffix(seq, period) + period) // period
        needed = repeats_identical if period == 1 else repeats_cycle
        distinct = len(set(seq[-period:]))
        if repeats >= needed and (period == 1 or distinct >= 2):
            return period, repeats
    return None
