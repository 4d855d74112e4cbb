"""The loop guard's turn rules: blocked rounds, cycles, check-in nudge, operator backstop.

Rules (thresholds in `Config`; the repeat guard itself is `arcguard.core.loop_guard.repeat`):
2. Blocked rounds: a turn with a denied call and no progress counts a round; progress resets
   the count; at `blocked_rounds_pause` the session is paused.
3. Cycles: the fingerprints of consecutive tool-only turns; a short period repeating
   enough pauses the session. Narration and the operator clear the history; compaction and
   Stop-hook continuations do not.
4. Check-in nudge after `checkin_turns` tool-only turns, once, when none of the last
   `checkin_turns` turns showed progress.
5. Operator backstop: turns since the operator's last message, which narration does not reset:
   a nudge, then a pause (a higher threshold while an arc is active), each only when the last
   `checkin_turns` turns showed no progress; at `backstop_ceiling_turns` a pause regardless,
   a bound on cost.
Progress is a confirmed edit, a call that may have changed the world (unless it answered as it
did before: nothing moved), or a result never seen before. Nudges and the backstop are for
unattended runs going nowhere; steady work is left alone.
A turn that only waits while background work runs is neither progress nor a quiet turn, and
neither extends nor breaks a cycle (see `arcguard.core.loop_guard.background`).
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core import render
from arcguard.core.loop_guard import background
from arcguard.core.loop_guard import cycle_run
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import stages
from arcguard.core.loop_guard import tool_effects
from arcguard.core.loop_guard.measurements import measures
from arcguard.core.loop_guard.period import detect_period
from arcguard.core.loop_guard.repeat import settle_batch
from arcguard.core.loop_guard.tracks import MAIN
from arcguard.core.loop_guard.tracks import clear_run
from arcguard.core.loop_guard.tracks import get_track
from arcguard.core.loop_guard.tracks import is_allowed
from arcguard.core.loop_guard.tracks import new_track
from arcguard.core.loop_guard.tracks import new_turn
from arcguard.core.loop_guard.tracks import pause
from arcguard.core.loop_guard.tracks import paused_output
from arcguard.core.loop_guard.tracks import track_key
from arcguard.core.schema import MAX_CALLS
from arcguard.core.schema import PENDING_IDS
from arcguard.core.schema import LogEntry
from arcguard.core.schema import PendingTurn
from arcguard.core.schema import StateFile
from arcguard.core.schema import Track
from arcguard.core.schema import TurnCall
from arcguard.core.state import add_log
from arcguard.core.state import clone
from arcguard.core.state import current_pause
from arcguard.core.state import remember
from arcguard.core.state import short_id
from arcguard.core.validation import Keyed
from arcguard.core.words import messages
from arcguard.core.words import vocabulary
from arcguard.core.words.final_words import is_task_notification
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from arcguard.core.config import Config
    from arcguard.core.render import Decisions
    from arcguard.core.state import State
    from arcguard.core.tool_call import ToolCall

MAX_QUEUED_IDS = 32
# How much of a call's command or path a cycle's label shows.
LABEL_SUBJECT = 60


def on_operator_message(state: State, now: float) -> None:
    """A person spoke: clear the pause and every loop counter (lifetime totals stay)."""
    guard = StateFile.view(state).guard
    if current_pause(guard):
        add_log(
            state,
            LogEntry(
                t=now,
                hook="posture",
                kind="resume",
                reason="operator message cleared the pause",
            ),
        )
    guard.paused = None
    main = guard.tracks.get(MAIN)
    tracks = Keyed.over(Track, {})
    tracks[MAIN] = new_track(now, denials=main.denials if main else 0)
    guard.tracks = tracks


def on_narration(state: State) -> None:
    """The main agent said something: a turn, and the end of a tool-only run."""
    guard = StateFile.view(state).guard
    tracks = guard.tracks
    guard.tracks = tracks
    track = tracks.get(MAIN)
    if track is None:
        return
    track.turns += 1
    clear_run(track)


@value
class TurnEnd:
    """One assistant turn whose calls are done, as the hook (or the fallback) saw it.

    `tool_only` is None when the turn's message could not be read: such a turn neither counts
    toward a run or cycle nor ends one. `narration`: the text of a turn that has some, when
    known; a near-repeat of recent narration does not end a cycle (see `cycle_run.moves`).
    `queued`: (id, text, typed by the operator) of the commands the transcript shows were
    queued around the turn; see `_note_queued`.

    `unconfirmed`: the turn's message is not in the transcript yet. The turn is kept pending
    (its `tool_use_ids` find the message later, `cycle_run.settle`) and taken as tool-only for
    this decision only, as every earlier pending turn is. Tool-only is the most a turn can
    count, so a decision of None holds whatever the messages say; any other is provisional
    (`cycle_run.pending_ids`): the caller must wait for the messages and decide again.

    `steps`: the turn's calls as `turn_call` sums them up, in place of `calls` (the fallback
    keeps those, never the inputs, while a turn is open)."""

    tool_only: bool | None
    calls: Sequence[ToolCall] = ()
    agent: str | None = None
    tool_use_ids: Sequence[str] = ()
    queued: Sequence[tuple[str, str, bool]] = ()
    unconfirmed: bool = False
    steps: Sequence[TurnCall] | None = None
    narration: str | None = None


@value
class _Look:
    """What the cycle rule looks at in one closed turn."""

    steps: Sequence[TurnCall]
    tool_only: bool | None
    fresh: bool  # it brought a result never seen before
    waited: bool  # it only waited, patiently
    said_nothing_new: bool = False  # its narration only repeats a recent one


def decide_post_batch(
    state: State, cfg: Config, now: float, turn: TurnEnd, *, arc_active: bool
) -> tuple[Decisions | None, State]:
    """One assistant turn's calls are done: the turn rules' decision (`arc_active`: an arc
    is delegated, so the backstop allows it more turns)."""
    steps = turn.steps if turn.steps is not None else [turn_call(cfg, c) for c in turn.calls]
    state = clone(state)
    key = track_key(turn.agent)
    if turn.queued and key == MAIN:
        _note_queued(state, now, turn.queued)
    if current_pause(StateFile.view(state).guard):
        return paused_output(state, deny=False), state
    track = get_track(state, key, now)
    settle_batch(track, turn.tool_use_ids)
    track.turns += 1
    fresh = bool(track.turn.progress)
    waited = _only_waits(state, cfg, now, steps, key)
    _count_quiet(track, fresh=fresh, waited=waited)
    del track.unconfirmed  # kept by an earlier release: that turn stays counted as tool-only
    if not turn.unconfirmed:
        # The turn's own message is on disk, so an earlier one not found never will be.
        cycle_run.settle(state, cfg, turn.agent, [cycle_run.Reading(None)] * len(track.pending))
    look = _Look(
        steps,
        turn.tool_only,
        fresh=bool(track.turn.new_result),
        waited=waited,
        said_nothing_new=turn.narration is not None and not cycle_run.moves(track, turn.narration),
    )
    settled = cycle_run.Run.of(track) if turn.unconfirmed else None
    cycle_run.guess(track, cfg)
    # The cycle is looked at first: when both rules come due on one turn, the cycle names
    # what looped, and the session is paused (and the user told) once, not twice.
    cycle_pause = _observe_turn(state, track, cfg, now, look)
    rounds_pause = _close_turn(state, track, cfg, now, may_pause=cycle_pause is None)
    pause = cycle_pause or rounds_pause or _backstop_pause(state, track, cfg, now, arc_active)
    output = pause or stages.decide(state, track, cfg, now) or _nudge(state, track, cfg, now)
    if settled is not None:
        # The guesses were for this decision only: what is kept is what the messages read so
        # far say, and the turns still to be read.
        settled.restore(track)
        cycle_run.keep(track, _run_turn(look, turn.tool_use_ids))
    return output, state


def _note_queued(state: State, now: float, queued: Sequence[tuple[str, str, bool]]) -> None:
    """A prompt the operator typed while the model worked is the operator speaking, as a
    submitted prompt is; a queued task notification says background work ended. Each is
    acted on once, however many turns' transcript windows show it."""
    record = StateFile.view(state).seen
    seen = record.queued
    record.queued = seen
    for queued_id, text, typed in queued:
        if short_id(queued_id) in seen:
            continue
        remember(seen, queued_id, MAX_QUEUED_IDS)
        if typed:
            on_operator_message(state, now)
        elif is_task_notification(text):
            background.observe_notification(state, text)


def turn_call(cfg: Config, call: ToolCall) -> TurnCall:
    """What the turn rules need of one call, and nothing of its input itself: the fallback
    keeps these in the state while a turn is open, and an input may be megabytes."""
    return TurnCall(
        op=opkey.operation_id(call),
        label=opkey.label(call, LABEL_SUBJECT),
        # A user tool's turns are the user's answers, not a cycle (like an allow-listed call),
        # and a benchmark's runs are samples.
        allowed=is_allowed(cfg, call) or call.name in opkey.USER_TOOLS or measures(call),
        waits=tool_effects.is_wait(call),
        polls=tool_effects.is_poll(call),
    )


def _fingerprint(tracked: list[TurnCall]) -> str:
    """A turn's sorted operation ids; a digest of them for a turn of very many calls."""
    joined = "|".join(sorted(step.op for step in tracked))
    return joined if len(tracked) <= MAX_CALLS else "#" + hashing.digest(joined)


def _only_waits(state: State, cfg: Config, now: float, steps: Sequence[TurnCall], key: str) -> bool:
    """Every call of the turn waits, and waiting is what the situation calls for: background
    work runs, or the calls are polls (bounded by wall time in `stuck`, not by the cycle)."""
    if steps and all(step.waits for step in steps):
        return background.waiting(state, cfg, now, own=key) or all(step.polls for step in steps)
    background.stop_waiting(state)
    return False


def _count_quiet(track: Track, *, fresh: bool, waited: bool) -> None:
    """Turns in a row that showed no progress; a patient wait neither adds nor resets."""
    if fresh:
        track.quiet = 0
    elif not waited:
        track.quiet += 1


def _quiet_window(track: Track, cfg: Config) -> bool:
    return track.quiet >= cfg.checkin_turns


def _close_turn(
    state: State, track: Track, cfg: Config, now: float, *, may_pause: bool
) -> Decisions | None:
    turn = track.turn
    if turn.progress:
        track.blocked_rounds = 0
    elif turn.denied:
        track.blocked_rounds += 1
    label = turn.label
    track.turn = new_turn()
    if may_pause and track.blocked_rounds >= cfg.blocked_rounds_pause:
        reason = messages.blocked_pause(track.blocked_rounds, label)
        return pause(state, now, "post-batch", "blocked", reason)
    return None


def _observe_turn(
    state: State, track: Track, cfg: Config, now: float, look: _Look
) -> Decisions | None:
    """The cycle rule's look at one closed turn: a pause when the history now repeats."""
    added = cycle_run.extend(
        track, cfg, _run_turn(look, ()), look.tool_only, repeats=look.said_nothing_new
    )
    if not added:
        return None
    history, freshness, labels = track.fingerprints, track.fresh, track.labels
    found = detect_period(
        history,
        max_period=cfg.cycle_max_period,
        repeats_identical=cfg.cycle_repeats_identical,
        repeats_cycle=cfg.cycle_repeats,
    )
    if found is None:
        return None
    period, repeats = found
    shown = [labels.get(fp, "?") for fp in history[-period:]]
    # The first pass through the cycle always sees its results for the first time; any
    # later pass that saw a new one means the results kept changing.
    changed = any(freshness[-period * repeats :][period:])
    reason = messages.cycle_pause(period, repeats, shown, results_changed=changed)
    return pause(state, now, "post-batch", "cycle", reason)


def _run_turn(look: _Look, tool_use_ids: Sequence[str]) -> PendingTurn:
    """What the tool-only run needs of a closed turn (and a few of its ids, to find its
    message while it is pending)."""
    tracked = [step for step in look.steps if not step.allowed]
    return PendingTurn(
        ids=[short_id(i) for i in tool_use_ids[:PENDING_IDS]],
        # An allow-listed poll or a patient wait neither extends nor breaks a cycle.
        fingerprint=_fingerprint(tracked) if tracked and not look.waited else "",
        label=", ".join(step.label for step in tracked[:2]),
        fresh=look.fresh,
    )


def _backstop_pause(
    state: State, track: Track, cfg: Config, now: float, arc_active: bool
) -> Decisions | None:
    turns = track.turns
    if turns >= cfg.backstop_ceiling_turns:
        reason = messages.backstop_ceiling(turns)
        return pause(state, now, "post-batch", "backstop", reason)
    limit = cfg.backstop_pause_turns_arc if arc_active else cfg.backstop_pause_turns
    nudged_at = track.backstop_nudged_at
    if nudged_at is None or turns < limit or not _quiet_window(track, cfg):
        return None
    if turns - nudged_at < cfg.checkin_turns:
        return None  # the summary request gets a window of its own to make a difference
    reason = messages.backstop_pause(turns, int(nudged_at))
    return pause(state, now, "post-batch", "backstop", reason)


def _nudge(state: State, track: Track, cfg: Config, now: float) -> Decisions | None:
    text, rule = None, ""
    if not _quiet_window(track, cfg):
        return None  # the recent turns show progress: nothing to ask about
    if track.backstop_nudged_at is None and track.turns >= cfg.backstop_nudge_turns:
        track.backstop_nudged_at = track.turns
        text, rule = messages.backstop_nudge(track.turns), vocabulary.BACKSTOP
    elif track.streak >= cfg.checkin_turns and not track.checkin_done:
        track.checkin_done = True
        text, rule = messages.checkin_nudge(track.streak), vocabulary.CHECK_IN
    if text is None:
        return None
    add_log(state, LogEntry(t=now, hook="post-batch", kind="nudge", reason=text, rule=rule))
    return (render.Context(text),)
