"""The staged responses of `stuck`'s counters: a request to summarise when a counter reaches
its first stage, a pause when it reaches its second after the request (each once), so the model
always had one turn to explain itself first; and a pause when the turns after a request bring
nothing new, however spelt (`unheeded`)."""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.loop_guard import asked
from arcguard.core.loop_guard import persisting
from arcguard.core.loop_guard import reread
from arcguard.core.loop_guard import searches
from arcguard.core.loop_guard import taking_turns
from arcguard.core.loop_guard import unheeded
from arcguard.core.loop_guard.polls import FAILURE_SIGHTINGS
from arcguard.core.loop_guard.tracks import pause
from arcguard.core.schema import LogEntry
from arcguard.core.state import add_log
from arcguard.core.state import batch_fires
from arcguard.core.words import messages
from arcguard.core.words import vocabulary


# A wait on a failure is asked about at this share of a wait's bound, and paused at a wait's
# bound, this share of it after the request at least: a dependency still starting may fail
# alike for twenty minutes.
FAILING_WAIT = 3
TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.loop_records import Stuck
    from arcguard.core.names import PauseKind
    from arcguard.core.render import Decisions
    from arcguard.core.schema import Track
    from arcguard.core.state import State


def decide(state: State, track: Track, cfg: Config, now: float) -> Decisions | None:
    """A pause or a request to summarise, when a counter has reached its stage."""
    if not track.has("stuck"):
        return None
    st = track.stuck
    unheeded.close_turn(st)
    ways = taking_turns.ways(st)
    due = _pause(st, cfg, now, ways)
    if due is not None:
        kind, reason = due
        return pause(state, now, "post-batch", kind, reason)
    request = _request(st, cfg, now, ways)
    if request is None:
        return None
    text, rule, count, turns = request
    unheeded.begin(st, cfg, rule, late=not batch_fires(state))
    if st.persist and rule == vocabulary.SAME_FAILURE:
        # One request for one failure, whichever count reached it: each pauses after it.
        st.persist.nudged = st.fail_nudged = True
    entry = LogEntry(t=now, hook="post-batch", kind="nudge", reason=text, rule=rule)
    if count:
        entry.runs = count  # the user's line says how many attempts or repeats it counted
    if turns > 1:
        entry.ways = turns  # ... and that they failed in turns
    add_log(state, entry)
    return (render.Context(text),)


def _waited(st: Stuck, cfg: Config, now: float) -> int:
    """How long the wait has gone on, once its polls are enough to judge it: a failure seen
    twice is enough (`polls.wait`)."""
    poll = st.poll
    if poll is None:
        return 0
    needed = cfg.poll_checkin_repeats
    if poll.failing:
        needed = min(needed, FAILURE_SIGHTINGS)
    return int(now - poll.since) if poll.count >= needed else 0


def _asking(st: Stuck, cfg: Config) -> int:
    """When the wait is asked about: for a wait on a failure (a poll failed as a failure had:
    `polls.failed_before`) at a `FAILING_WAIT`th of the bound, since waiting alone seldom
    mends one."""
    seconds = cfg.poll_checkin_seconds
    return seconds // FAILING_WAIT if st.poll is not None and st.poll.failing else seconds


def _pausing(st: Stuck, cfg: Config, now: float, waited: int) -> bool:
    """The wait asked about is due a pause: its bound reached, and some minutes since the
    request, however long ago its failure was first seen."""
    poll = st.poll
    if poll is None or not st.poll_nudged or waited < cfg.poll_pause_seconds:
        return False
    return now - poll.asked >= cfg.poll_checkin_seconds // FAILING_WAIT


def _pause(st: Stuck, cfg: Config, now: float, ways: int) -> tuple[PauseKind, str] | None:
    """The pause's kind and reason, when a counter asked about has reached its second stage."""
    fails, label, persist, poll = st.fails, st.label, st.persist, st.poll
    if st.fail_nudged and fails >= cfg.error_pause_repeats:
        return "stuck", messages.stuck_pause(fails, label, failing=True, ways=ways)
    if st.futile_nudged and st.futile >= cfg.error_pause_repeats:
        return "stuck", messages.futile_pause(st.futile, st.futile_label)
    run = st.asked
    if run is not None and run.nudged and asked.ways(st) >= cfg.error_pause_repeats:
        return "stuck", messages.asked_pause(asked.ways(st), run.answer, run.label)
    if st.reread is not None and reread.pause_due(st, cfg.error_pause_repeats):
        return "stuck", messages.reread_pause(reread.readings(st), st.reread.label)
    if persist and persisting.pause_due(st, cfg.error_pause_repeats):
        attempts = persisting.attempts(st)
        fixes = persist.coded
        return "stuck", messages.stuck_pause(attempts, persist.label, failing=True, fixes=fixes)
    if st.nudged and st.repeats >= cfg.shape_pause_repeats:
        return "stuck", messages.stuck_pause(st.repeats, label, failing=False)
    if searches.pause_due(st, cfg.shape_pause_repeats):
        return "stuck", messages.searches_pause(st.searches)
    watch = st.unheeded
    if watch is not None and unheeded.pause_due(watch):
        return "stuck", messages.unheeded_pause(watch.quiet, watch.label)
    waited = _waited(st, cfg, now)
    if poll and _pausing(st, cfg, now, waited):
        return "poll", messages.poll_pause(waited // 60, poll.label, failing=poll.failing)
    return None


def _request(st: Stuck, cfg: Config, now: float, ways: int) -> tuple[str, str, int, int] | None:
    """The request's text, rule, count and the failures taking turns in it, when a counter has
    reached its first stage (marked asked about)."""
    fails, repeats, label, persist, poll = st.fails, st.repeats, st.label, st.persist, st.poll
    if fails >= cfg.error_checkin_repeats and not st.fail_nudged:
        st.fail_nudged = True
        text = messages.stuck_checkin(fails, label, failing=True, ways=ways)
        return text, vocabulary.SAME_FAILURE, fails, ways
    if st.futile >= cfg.error_checkin_repeats and not st.futile_nudged:
        st.futile_nudged = True
        text = messages.futile_checkin(st.futile, st.futile_label)
        return text, vocabulary.NO_EFFECT, st.futile, 1
    run = st.asked
    if run is not None and asked.ways(st) >= cfg.error_checkin_repeats and not run.nudged:
        run.nudged = True
        text = messages.asked_checkin(asked.ways(st), run.answer, run.label)
        return text, vocabulary.SAME_ANSWER, asked.ways(st), 1
    if st.reread is not None and reread.word_due(st, cfg.error_checkin_repeats):
        st.reread.nudged = True
        count = reread.readings(st)
        return messages.reread_checkin(count, st.reread.label), vocabulary.REREAD, count, 1
    if persist and persisting.word_due(st, cfg.error_checkin_repeats):
        attempts = persisting.attempts(st)
        text = messages.stuck_checkin(attempts, persist.label, failing=True, fixes=persist.coded)
        return text, vocabulary.SAME_FAILURE, attempts, 1
    if repeats >= cfg.shape_checkin_repeats and not st.nudged:
        st.nudged = True
        text = messages.stuck_checkin(repeats, label, failing=False)
        return text, vocabulary.NOTHING_NEW, repeats, 1
    waited = _waited(st, cfg, now)
    if poll and waited >= _asking(st, cfg) and not st.poll_nudged:
        st.poll_nudged, poll.asked = True, now
        text = messages.poll_checkin(waited // 60, poll.label, failing=poll.failing)
        return text, vocabulary.POLL, 0, 1
    if searches.word_due(st, cfg.shape_checkin_repeats):
        st.search_nudged = True
        text = messages.searches_checkin(st.searches, st.slip)
        return text, vocabulary.EMPTY_SEARCHES, 0, 1
    return None
