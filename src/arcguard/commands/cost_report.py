"""`arcguard status --cost`: what arcguard's hooks cost on this machine, per hook and mode."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcguard.hooks import EVENTS
from arcguard.storage import cost


if TYPE_CHECKING:
    from typing import TypedDict

    class CostRow(TypedDict):
        """One element of `status --cost --json`'s `cost` array."""

        hook: str
        events: list[str]
        mode: str
        runs: int
        median_ms: float
        p95_ms: float


def rows(home: str) -> list[CostRow]:
    """One row per (hook, mode) with recorded runs: runs, median and 95th percentile in ms."""
    found: list[CostRow] = []
    for (mode, hook), values in sorted(
        cost.read(home).items(), key=lambda kv: (kv[0][1], kv[0][0])
    ):
        found.append(
            {
                "hook": hook,
                "events": [event for event, name in EVENTS.items() if name == hook],
                "mode": mode,
                "runs": len(values),
                "median_ms": round(cost.quantile(values, 0.5) / 1000, 1),
                "p95_ms": round(cost.quantile(values, 0.95) / 1000, 1),
            }
        )
    return found


def render(home: str, found: list[CostRow]) -> str:
    if not found:
        return (
            f"no hook runs recorded yet in {home}: the figures appear after arcguard's "
            "hooks have run in a session"
        )
    lines = [
        "wall time per hook run on this machine (command: from process start to the last "
        "output; resident: from connection to answer), over the most recent runs",
        "",
        f"{'hook':<13} {'event':<33} {'mode':<9} {'runs':>6} {'median':>9} {'p95':>9}",
    ]
    for row in found:
        events = ", ".join(row["events"]) or "-"
        lines.append(
            f"{row['hook']:<13} {events:<33} {row['mode']:<9} {row['runs']:>6} "
            f"{row['median_ms']:>6.1f} ms {row['p95_ms']:>6.1f} ms"
        )
    return "\n".join(lines)
