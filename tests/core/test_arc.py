"""The arc's staleness: measured from its last activity, never from a stamp in the future."""

from __future__ import annotations

from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.config import default_config
from arcguard.core.state import iso


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.schema import Arc


NOW = 1_800_000_000.0
YEAR = 365 * 86400
CFG = default_config()


def _arc(invoked_at: float, last_activity: float) -> Arc:
    arc = arcs.new_arc("work", ["one"], NOW)
    arc.invoked_at, arc.last_activity = iso(invoked_at), iso(last_activity)
    return arc


def test_a_stamp_in_the_future_counts_as_now():
    assert arcs.last_activity(_arc(NOW + YEAR, NOW + YEAR), NOW) == NOW
    assert arcs.last_activity(_arc(NOW - 10, NOW + YEAR), NOW) == NOW


def test_an_arc_started_a_year_ahead_goes_stale_after_its_last_activity():
    arc = _arc(NOW + YEAR, NOW + YEAR)
    assert arcs.is_active(arc, CFG, NOW)
    arcs.touch(arc, NOW)
    assert not arcs.is_active(arc, CFG, NOW + CFG.stale_seconds + 1)


def test_staleness_counts_from_the_last_activity_not_from_the_start():
    arc = _arc(NOW - YEAR, NOW - 60)
    assert arcs.is_active(arc, CFG, NOW)
    assert not arcs.is_active(arc, CFG, NOW - 60 + CFG.stale_seconds + 1)
