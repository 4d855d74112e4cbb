"""Distributions kept as histograms (value -> count): percentiles and summaries of them.

Both the report and the threshold suggestions read them, so they live apart from either.
"""

from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections import Counter
    from typing import NotRequired
    from typing import TypedDict

    class Distribution(TypedDict):
        count: int
        p50: int | None
        p90: int | None
        p99: int | None
        max: int | None
        values: NotRequired[list[int]]  # the samples, when too few for percentiles


PERCENTILES = (50, 90, 99)
# Below this many samples a percentile is one of a handful of values dressed up as a statistic
# ("median 1714 s" of two gaps): the values themselves are reported instead.
MIN_PERCENTILE_SAMPLES = 10


def percentile(hist: Counter[int], pct: int) -> int | None:
    """Value at index floor(pct/100 * n) of the sorted values (nearest rank, no interpolation)."""
    total = sum(hist.values())
    if total == 0:
        return None
    index = min(total - 1, pct * total // 100)
    seen = 0
    for value in sorted(hist):
        seen += hist[value]
        if seen > index:
            return value
    return None  # pragma: no cover (unreachable: index < total)


def distribution(hist: Counter[int]) -> Distribution:
    """Count, percentiles and max; with too few samples the percentiles are None and the
    sorted values are given instead."""
    count = sum(hist.values())
    few = count < MIN_PERCENTILE_SAMPLES
    p50, p90, p99 = (None if few else percentile(hist, pct) for pct in PERCENTILES)
    out: Distribution = {
        "count": count,
        "p50": p50,
        "p90": p90,
        "p99": p99,
        "max": max(hist) if hist else None,
    }
    if few:
        out["values"] = sorted(hist.elements())
    return out
