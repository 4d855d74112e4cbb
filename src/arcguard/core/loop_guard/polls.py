"""One wait, however the poll is spelt.

A poll (`tool_effects.is_poll`) is bounded by wall time, not by its count: the track's `Stuck`
record holds the current wait (`Poll`: when its answer was first seen, how often since). An
answer seen before goes on with that wait, whichever spelling brought it (`sleep 60; kubectl
get pods`, then `kubectl wait ... --timeout=60s`, then the first again): waiting under new
spellings is still waiting for the same thing, and a rotation of spellings must not restart
the clock each time. So does a failure of the same poll in other words (a wait timing out anew).
The wait starts again when what it waits for draws nearer: its progress goes further
(`answers.ahead`) or a timer in its answer runs down (`answers.counts_down`). Marks of another
layout, from another spelling, are not compared with the furthest kept: a spelling whose own
marks move shows it when it comes round again. A new answer is progress, which the caller
handles (every run starts again). Pure functions of the record.
"""

from __future__ import annotations

from arcguard.core.loop_guard import answers


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.schema import Poll
    from arcguard.core.schema import Stuck


def wait(st: Stuck, seen: Poll, *, known: bool, failed: bool) -> None:
    """A poll answered `seen` (`known`: an answer this session saw before; mutates `st`)."""
    current = st.poll
    same = current is not None and current.call == seen.call
    goes_on = known or (same and current is not None and current.result == seen.result)
    if current is None or not (goes_on or (same and failed)) or _nearer(current, seen, same=same):
        st.poll, st.poll_nudged = seen, False
        return
    current.count += 1


def _nearer(current: Poll, seen: Poll, *, same: bool) -> bool:
    """What the wait waits for drew nearer since `current` was first seen (mutates the
    furthest progress both hold)."""
    if not same and len(seen.progress.split()) != len(current.progress.split()):
        return False  # marks of another layout say nothing of these: the furthest stay
    moved, furthest = answers.ahead(seen.progress, current.progress)
    if furthest:
        current.progress = seen.progress = furthest
    return moved or answers.counts_down(current.numbers, seen.numbers, seen.since - current.since)
