"""The staged responses of `stuck`'s counters: a request to summarise when a counter reaches
its first stage, a pause when it reaches its second after the request (each once), so the model
always had one turn to explain itself first."""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.loop_guard import searches
from arcguard.core.loop_guard import taking_turns
from arcguard.core.loop_guard.tracks import pause
from arcguard.core.schema import LogEntry
from arcguard.core.state import add_log
from arcguard.core.words import messages
from arcguard.core.words import vocabulary


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.render import Decisions
    from arcguard.core.schema import Track
    from arcguard.core.state import State


def decide(state: State, track: Track, cfg: Config, now: float) -> Decisions | None:
    """A pause or a request to summarise, when a counter has reached its stage."""
    if not track.has("stuck"):
        return None
    st = track.stuck
    label = st.label
    fails, repeats = st.fails, st.repeats
    ways = taking_turns.ways(st)
    poll = st.poll
    waited = int(now - poll.since) if poll and poll.count >= cfg.poll_checkin_repeats else 0
    if st.fail_nudged and fails >= cfg.error_pause_repeats:
        reason = messages.stuck_pause(fails, label, failing=True, ways=ways)
        return pause(state, now, "post-batch", "stuck", reason)
    if st.futile_nudged and st.futile >= cfg.error_pause_repeats:
        reason = messages.futile_pause(st.futile, st.futile_label)
        return pause(state, now, "post-batch", "stuck", reason)
    if st.nudged and repeats >= cfg.shape_pause_repeats:
        reason = messages.stuck_pause(repeats, label, failing=False)
        return pause(state, now, "post-batch", "stuck", reason)
    if searches.pause_due(st, cfg.shape_pause_repeats):
        reason = messages.searches_pause(st.searches)
        return pause(state, now, "post-batch", "stuck", reason)
    if poll and st.poll_nudged and waited >= cfg.poll_pause_seconds:
        return pause(
            state, now, "post-batch", "poll", messages.poll_pause(waited // 60, poll.label)
        )
    text, rule, count = None, "", 0
    if fails >= cfg.error_checkin_repeats and not st.fail_nudged:
        st.fail_nudged = True
        text = messages.stuck_checkin(fails, label, failing=True, ways=ways)
        rule, count = vocabulary.SAME_FAILURE, fails
    elif st.futile >= cfg.error_checkin_repeats and not st.futile_nudged:
        st.futile_nudged = True
        text = messages.futile_checkin(st.futile, st.futile_label)
        rule, count = vocabulary.NO_EFFECT, st.futile
    elif repeats >= cfg.shape_checkin_repeats and not st.nudged:
        st.nudged = True
        text = messages.stuck_checkin(repeats, label, failing=False)
        rule, count = vocabulary.NOTHING_NEW, repeats
    elif poll and waited >= cfg.poll_checkin_seconds and not st.poll_nudged:
        st.poll_nudged = True
        text, rule = messages.poll_checkin(waited // 60, poll.label), vocabulary.POLL
    elif searches.word_due(st, cfg.shape_checkin_repeats):
        st.search_nudged = True
        text, rule = messages.searches_checkin(st.searches, st.slip), vocabulary.EMPTY_SEARCHES
    if text is None:
        return None
    entry = LogEntry(t=now, hook="post-batch", kind="nudge", reason=text, rule=rule)
    if count:
        entry.runs = count  # the user's line says how many attempts or repeats it counted
    if rule == vocabulary.SAME_FAILURE and ways > 1:
        entry.ways = ways  # ... and that they failed in turns
    add_log(state, entry)
    return (render.Context(text),)
