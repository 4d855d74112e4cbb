"""Staged rules on shapes: loops whose values change every time, errors under new spellings,
polls that wait for nothing.

Three counters per track, fed by every finished call (`observe`) and acted on when a turn's
calls are done (`decide`):

- Shape repeats: a call whose shape and result shape (`loop_guard.shape`) were both seen
  before, since the last real progress. A probe whose output carries a fresh timestamp each
  time is caught here. Real progress is a confirmed edit that leaves a file content it never
  had, a result of a shape never seen, or a call that may have changed the world and is not
  itself a shape repeat. `shape_checkin_repeats` asks for a summary, `shape_pause_repeats`
  pauses.
- Same failure: failing calls in a row with one result shape and no file changed between
  them, whatever the calls were (the same test through its runner, a package script, extra
  flags). A failed call changes nothing a retry could see, so it is never progress here.
  `error_checkin_repeats`, then `error_pause_repeats`.
- Polls: a call that waits (`tool_effects.is_poll`) is never denied for repeating; the same result
  shape from it is bounded by wall time instead: a request at `poll_checkin_seconds` of
  identical results, a pause at `poll_pause_seconds`. A result that changes is progress.

Each stage's request comes once; the pause only after it, so the model always had one turn to
explain itself first. Any real progress resets the counters.
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core import messages
from arcguard.core import render
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import tool_effects
from arcguard.core.loop_guard.tracks import pause
from arcguard.core.state import add_log
from arcguard.core.state import remember
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.render import Output
    from arcguard.core.schema import Stuck
    from arcguard.core.schema import Track
    from arcguard.core.state import State
    from arcguard.core.tool_call import ToolCall

NEW = "new"  # a confirmed edit to a content the file never had
REVISIT = "revisit"  # a confirmed edit back to a content it had before
MAX_SHAPES = 128  # of each kind: enough for a loop's window, small in the state file
LABEL_CHARS = 60


def _stuck(track: Track) -> Stuck:
    found: object = track.get("stuck")
    if not isinstance(found, dict):
        track["stuck"] = {}
    return track["stuck"]


def _progress(st: Stuck, *, failures: bool = True) -> None:
    st["repeats"] = 0
    st["nudged"] = False
    st["poll"] = None
    st["poll_nudged"] = False
    if failures:
        st["fail"], st["fails"], st["fail_nudged"] = "", 0, False


def heard(track: Track) -> None:
    """The user spoke through a call's result: every counter starts again (mutates `track`)."""
    _progress(_stuck(track))


@value
class Finished:
    """What the repeat guard made of one finished call."""

    outcome: str  # as `opkey.outcome` words it
    result: str  # its `shape.result_shape`
    empty: bool = False  # a completed call that printed nothing (`opkey.is_empty_result`)
    edit: str | None = None  # NEW or REVISIT: a confirmed edit, and to which content
    changed: bool = False  # it ran and may have changed the world


def observe(track: Track, now: float, call: ToolCall, finished: Finished) -> None:
    """Count one finished call (mutates `track`)."""
    st = _stuck(track)
    outcome, result, edit = finished.outcome, finished.result, finished.edit
    if edit == NEW:
        _progress(st)
        return
    if edit == REVISIT or outcome in (opkey.UNKNOWN, opkey.NOT_RUN, opkey.TIMED_OUT):
        return  # back to a known content, or no result to compare: neither way
    poll = tool_effects.is_poll(call)
    if finished.empty and not poll:
        return  # it told nothing (a wait that prints nothing still waited, though)
    shaped = shape.call_shape(call)
    pair = hashing.digest(shaped + result)
    pairs, results = st.setdefault("pairs", []), st.setdefault("results", [])
    seen_pair, seen_result = pair in pairs, result in results
    remember(pairs, pair, MAX_SHAPES)
    remember(results, result, MAX_SHAPES)
    label = opkey.label(call, LABEL_CHARS)
    if poll:
        _observe_poll(st, now, shaped, result, label, fresh=not seen_result)
        return
    if outcome.startswith(opkey.FAILED):
        # Parallel calls of one turn failing alike are one attempt, not several.
        again = st.get("fail_turn") == track["turns"] and result == st.get("fail")
        st["fail_turn"] = track["turns"]
        if not again:
            _observe_failure(st, result, label, fresh=not seen_result, repeated=seen_pair)
        return
    if seen_pair:
        st["repeats"] = st.get("repeats", 0) + 1
        st["label"] = label
    elif not seen_result or finished.changed:
        # Something new was seen; only a change can make the same failure go away.
        _progress(st, failures=finished.changed)


def _observe_failure(st: Stuck, result: str, label: str, *, fresh: bool, repeated: bool) -> None:
    if result == st.get("fail"):
        st["fails"] = st.get("fails", 0) + 1
    else:
        st["fail"], st["fails"], st["fail_nudged"] = result, 1, False
    st["label"] = label
    if fresh:
        _progress(st, failures=False)
    elif repeated:
        st["repeats"] = st.get("repeats", 0) + 1


def _observe_poll(
    st: Stuck, now: float, call: str, result: str, label: str, *, fresh: bool
) -> None:
    if fresh:
        _progress(st)  # the poll's answer changed: what it waited for moved
    current = st.get("poll")
    if current and current["call"] == call and current["result"] == result:
        current["count"] += 1
        return
    st["poll"] = {"call": call, "result": result, "since": now, "count": 1, "label": label}
    st["poll_nudged"] = False


def decide(state: State, track: Track, cfg: Config, now: float) -> Output | None:
    """A pause or a request to summarise, when a counter has reached its stage."""
    st = track.get("stuck")
    if not isinstance(st, dict):
        return None
    label = st.get("label", "")
    fails, repeats = st.get("fails", 0), st.get("repeats", 0)
    poll = st.get("poll")
    waited = int(now - poll["since"]) if poll and poll["count"] >= cfg.poll_checkin_repeats else 0
    if st.get("fail_nudged") and fails >= cfg.error_pause_repeats:
        reason = messages.stuck_pause(fails, label, failing=True)
        return pause(state, now, "post-batch", "stuck", reason)
    if st.get("nudged") and repeats >= cfg.shape_pause_repeats:
        reason = messages.stuck_pause(repeats, label, failing=False)
        return pause(state, now, "post-batch", "stuck", reason)
    if poll and st.get("poll_nudged") and waited >= cfg.poll_pause_seconds:
        return pause(
            state, now, "post-batch", "poll", messages.poll_pause(waited // 60, poll["label"])
        )
    text = None
    if fails >= cfg.error_checkin_repeats and not st.get("fail_nudged"):
        st["fail_nudged"] = True
        text = messages.stuck_checkin(fails, label, failing=True)
    elif repeats >= cfg.shape_checkin_repeats and not st.get("nudged"):
        st["nudged"] = True
        text = messages.stuck_checkin(repeats, label, failing=False)
    elif poll and waited >= cfg.poll_checkin_seconds and not st.get("poll_nudged"):
        st["poll_nudged"] = True
        text = messages.poll_checkin(waited // 60, poll["label"])
    if text is None:
        return None
    add_log(state, {"t": now, "hook": "post-batch", "kind": "nudge", "reason": text})
    return render.add_context("PostToolBatch", text)
