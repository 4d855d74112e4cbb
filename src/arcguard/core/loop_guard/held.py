"""A request to the model that a failing call would lose, held until that call's result.

Releases without PostToolBatch close a turn at the next call's PreToolUse (`turns`), so a
request the closed turn brings (a check-in) rides on that hook's output. Releases before
2.1.110 drop a PreToolUse hook's added context, and its line for the user, when the call then
fails: in a loop of failures, the common case. So, unless the call is denied (a deny's output
always reaches the model), the request is held on the agent's track and given by the call's
PostToolUse or PostToolUseFailure, whose context every release delivers; both reach the model
in the same request. A request decided as the model stops waits the same way, for the next
call's result: context added at a Stop would send the model back to work. Its log entry is
written when it is given, so the user's line comes with it.

Pure.
"""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.loop_guard.tracks import get_track
from arcguard.core.loop_guard.tracks import track_key
from arcguard.core.schema import LogEntry
from arcguard.core.schema import StateFile
from arcguard.core.state import add_log
from arcguard.core.state import clone
from arcguard.core.validation import Many
from arcguard.core.words import vocabulary


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.render import Decisions
    from arcguard.core.state import State

# One turn's close asks at most twice (a rule of its own and a summary); older ones give way.
MAX_HELD = 2


def hold(
    state: State, decided: Decisions | None, agent_id: str | None, now: float
) -> tuple[Decisions | None, State]:
    """`decided` without the requests to hold; their log entries move to the agent's track."""
    if not decided or any(isinstance(d, render.Deny | render.Pause) for d in decided):
        return decided, state
    texts = {d.text for d in decided if isinstance(d, render.Context)}
    at = _logged_at(_log(state), texts)
    if not at:
        return decided, state  # not a request of the loop guard's: nothing to wait for
    state = clone(state)
    log = _log(state)
    moved = [log.items[i] for i in at]
    log.items[:] = [item for i, item in enumerate(log.items) if i not in at]
    track = get_track(state, track_key(agent_id), now)
    track.held = Many.over(LogEntry, [*track.held.items, *moved][-MAX_HELD:])
    held = {LogEntry.view(m).reason for m in moved}
    kept = tuple(d for d in decided if not (isinstance(d, render.Context) and d.text in held))
    return kept or None, state


def give(state: State, agent_id: str | None, now: float) -> tuple[Decisions | None, State]:
    """The requests held for the agent, logged now (None: there are none)."""
    track = StateFile.view(state).guard.tracks.get(track_key(agent_id))
    if track is None or not track.held:
        return None, state
    state = clone(state)
    track = get_track(state, track_key(agent_id), now)
    entries = list(track.held)
    track.held = Many.over(LogEntry, [])
    for entry in entries:
        add_log(state, entry)
    return tuple(render.Context(entry.reason) for entry in entries), state


def _log(state: State) -> Many[LogEntry]:
    return StateFile.view(state).log


def _logged_at(log: Many[LogEntry], texts: set[str]) -> list[int]:
    """Where the newest request logged with each of `texts` is, oldest first (an older request
    worded alike stays where it is)."""
    found: dict[str, int] = {}
    for i in range(len(log) - 1, -1, -1):
        entry = log[i]
        if entry.kind == vocabulary.NUDGE and entry.reason in texts:
            found.setdefault(entry.reason, i)
    return sorted(found.values())
