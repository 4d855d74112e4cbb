"""The repeat guard: identical calls with identical outcomes.

When an operation's last `repeat_limit` executions in the window had the same outcome, the next
attempt is denied, unless it is a validation (an observing operation re-run once after a
confirmed edit), a re-read after a change (a read-only observer re-run once after a call that
may have changed the world, or a file read whose size or modification time moved), a timeout
recovery (once, with a strictly larger effective timeout after a real timeout), a re-run after
a compaction (once: the model no longer has what it saw), or a wait while background work runs.
A git command swapping the working tree back after a write (`_flipped`) is not denied.
Executions are recorded before the allow is returned, owned by their `tool_use_id`; only the
owner's result resolves one, so a late or duplicate result changes nothing. A call that never
executed (cancelled, interrupted, refused, denied by a hook) is not an execution. The result
that settles an execution is read in `finished`. The PreToolUse hook loads this module, not the
staged rules on results (`stuck`): only a deny of a failing call here needs them.
"""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.loop_guard import background
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import searches
from arcguard.core.loop_guard import shell_writes
from arcguard.core.loop_guard import tool_effects
from arcguard.core.loop_guard.tracks import get_track
from arcguard.core.loop_guard.tracks import is_allowed
from arcguard.core.loop_guard.tracks import paused_output
from arcguard.core.loop_guard.tracks import track_key
from arcguard.core.schema import FILE_STATE_CHARS
from arcguard.core.schema import LogEntry
from arcguard.core.schema import Operation
from arcguard.core.schema import Run
from arcguard.core.schema import StateFile
from arcguard.core.state import add_log
from arcguard.core.state import clone
from arcguard.core.state import remember
from arcguard.core.state import short_id
from arcguard.core.tool_call import ToolCall
from arcguard.core.validation import Many
from arcguard.core.words import messages
from arcguard.core.words import vocabulary


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from arcguard.core.config import Config
    from arcguard.core.render import Decisions
    from arcguard.core.schema import Guard
    from arcguard.core.schema import Track
    from arcguard.core.state import State

AFTER_COMPACTION = "after_compaction"
VALIDATION = "validation"
AFTER_CHANGE = "after_change"
FILE_CHANGED = "file_changed"
RECOVERY = "timeout_recovery"
# A file's stat the hook could not take: whether it changed is unknown, so assume it did.
UNKNOWN_FILE = "?"
MAX_RESOLVED_IDS = 64


def _run_outcome(run: Run) -> str:
    return run.outcome if run.outcome is not None else opkey.UNKNOWN  # still running, or lost


def _counts(run: Run, track: Track) -> bool:
    """Whether a recorded execution counts as a run: one that never ran does not, nor one
    whose result never came after its turn closed (refused, rejected: no event settles it)."""
    if run.outcome == opkey.NOT_RUN:
        return False
    return run.outcome is not None or run.turn is None or run.turn == track.turns


def _in_flight(run: Run, track: Track) -> bool:
    """Issued in this same turn, its result not in yet: a parallel copy."""
    return run.outcome is None and run.turn == track.turns


def _is_pending(run: Run, cfg: Config, now: float) -> bool:
    return run.outcome is None and now - float(run.at) < cfg.inflight_stale_seconds


def _exception(
    op: Operation, guard: Guard, cfg: Config, call: ToolCall, file_state: str | None
) -> str | None:
    """Which one-time exception lets a repeat run, if any."""
    if guard.compactions > op.compactions:
        # Compaction dropped what the model had seen: one re-run to see it again.
        return AFTER_COMPACTION
    if file_state is not None and (
        file_state == UNKNOWN_FILE or op.file_state not in (None, file_state)
    ):
        return FILE_CHANGED  # the file itself moved since it was last read
    edit_seq = guard.edit_seq
    if (
        call.name in cfg.observing_tools
        and edit_seq > op.edit_seq
        and op.validated_seq < edit_seq
        # After edits made only from the shell, a command writing files is no check of them:
        # `echo A >> f` and `echo B >> f` would otherwise excuse each other for ever.
        and (guard.tool_edit_seq > op.edit_seq or not shell_writes.edits_files(call))
    ):
        return VALIDATION
    # A change by a shell command or a tool is weaker evidence than a confirmed edit: it
    # re-opens reads (what they see may be new), not commands that act on the world.
    if (
        call.name in cfg.observing_tools
        and guard.change_seq > op.change_seq
        and not tool_effects.may_change_world(call)
    ):
        return AFTER_CHANGE
    runs = op.runs
    timeout = opkey.effective_timeout(call)
    if (
        timeout is not None
        and runs
        and runs[-1].outcome == opkey.TIMED_OUT
        and timeout > op.max_timeout
        and not op.recovery_used
    ):
        return RECOVERY
    return None


def _flipped(op: Operation, guard: Guard, call: ToolCall) -> bool:
    """A git command swapping the working tree (`shell_writes.flips`) run again after files
    were written or other code checked out since its last run, which completed: the tree
    flipped back (`git stash` after `git stash pop`, a branch checked out again after another,
    to compare them), no blind repeat. Any command may change the world as far as arcguard
    knows, so only these are known flips: a rotation of unknown commands would excuse itself,
    and a test run between two checkouts of one branch moves nothing they swap. Not an
    exception spent, nor progress: a flip that goes round and round is the cycle rule's."""
    runs = op.runs
    return (
        guard.edit_seq > op.edit_seq
        and bool(runs)
        and (runs[-1].outcome or "").startswith(opkey.COMPLETED)
        and shell_writes.flips(call)
    )


def _make_room(track: Track, cfg: Config, now: float) -> bool:
    """Evict a resolved record so a new operation fits; False when every record is in use."""
    ops = track.ops
    if len(ops) < cfg.max_operations:
        return True
    idle = [
        (max((r.seq for r in op.runs), default=0), oid)
        for oid, op in ops.pairs()
        if not any(_is_pending(r, cfg, now) for r in op.runs)
    ]
    if not idle:
        return False
    del ops[min(idle)[1]]
    return True


def kept(call: ToolCall) -> ToolCall:
    """The call with its tool-use id as the state keeps it (`short_id`)."""
    return ToolCall(call.name, call.input, short_id(call.id), call.agent)


def decide_pre_tool(
    state: State, cfg: Config, now: float, call: ToolCall, file_state: str | None = None
) -> tuple[Decisions | None, State]:
    """`file_state`: for a file read, the file's size and modification time as the hook saw
    them (`UNKNOWN_FILE` when it could not look); None when there is no file to look at."""
    call = kept(call)
    file_state = file_state[:FILE_STATE_CHARS] if file_state is not None else None
    state = clone(state)
    guard = StateFile.view(state).guard
    paused = paused_output(state, deny=True)
    if paused:
        # Counted, not logged one by one: the bounded log keeps the decisions that matter.
        pause = guard.paused
        if pause is not None:
            pause.denied_since += 1
        return paused, state
    track = get_track(state, track_key(call.agent), now)
    track.seq += 1
    if is_allowed(cfg, call) or call.name in opkey.USER_TOOLS:
        # A user tool's result is the user's answer: asking again is never a blind repeat.
        return None, state
    if background.patient(state, cfg, now, call):
        return None, state  # bounded by time and by the work ending, not by count
    cannot_match = _cannot_match(state, track, now, call)
    if cannot_match:
        return cannot_match, state
    op = _operation(state, track, cfg, now, call)
    if op is None:
        return None, state
    window = [r for r in op.runs if track.seq - r.seq <= cfg.repeat_window and _counts(r, track)]
    recent = window[-cfg.repeat_limit :]
    spent = None
    if len(recent) >= cfg.repeat_limit and not _samples(call):
        denied = track.denied_ids
        track.denied_ids = denied
        at_once = sum(_in_flight(r, track) for r in recent)
        if at_once == len(recent):
            # Copies of one call issued together: none has a result, so say just that.
            remember(denied, call.id, MAX_RESOLVED_IDS)
            return _deny_repeat(state, track, op, now, runs=at_once + 1, at_once=True), state
        if not at_once and len({_run_outcome(r) for r in recent}) == 1:
            spent = _exception(op, guard, cfg, call, file_state)
            if spent is None and not _flipped(op, guard, call):
                remember(denied, call.id, MAX_RESOLVED_IDS)
                if _run_outcome(recent[-1]).startswith(opkey.FAILED):
                    _refused(track, call)
                return _deny_repeat(state, track, op, now, runs=len(window)), state
    run = Run(seq=track.seq, owner=call.id, at=now, outcome=None, spent=spent, turn=track.turns)
    _reserve(guard, op, cfg, call, run)
    if file_state is not None:
        op.file_state = file_state
    return None, state


def _samples(call: ToolCall) -> bool:
    """A call that waits is how one waits: its repeats are bounded by time (`stuck`), not
    denied. A measurement's repeats are samples: bounded by the staged rules, not denied
    either."""
    if tool_effects.is_poll(call):
        return True
    # Loaded here alone: only a call about to be refused needs it.
    from arcguard.core.loop_guard.measurements import measures

    return measures(call)


def _refused(track: Track, call: ToolCall) -> None:
    """A failed command refused as a repeat is one more attempt at its failure."""
    # Loaded here alone: the hook needs the staged rules for nothing else.
    from arcguard.core.loop_guard import persisting
    from arcguard.core.loop_guard import stuck

    stuck.refused(track, call)
    persisting.refused(track.stuck, track.seq, track.turns, call)


def _cannot_match(state: State, track: Track, now: float, call: ToolCall) -> Decisions | None:
    """A deny for a search spelt so that it cannot match, once its run was asked about."""
    slip = searches.denies(track.stuck, track.seq, call) if track.has("stuck") else None
    if not slip:
        return None
    denied = track.denied_ids
    track.denied_ids = denied
    remember(denied, call.id, MAX_RESOLVED_IDS)
    label, empty = opkey.label(call), track.stuck.searches
    reason = messages.deny_cannot_match(label, slip, empty)
    entry = LogEntry(
        t=now,
        hook="pre-tool",
        kind="deny",
        reason=reason,
        rule=vocabulary.CANNOT_MATCH,
        operation=label,
        runs=empty,
    )
    return _deny(state, track, entry)


def _operation(
    state: State, track: Track, cfg: Config, now: float, call: ToolCall
) -> Operation | None:
    """The call's operation record, new if need be; None when there is no room for one."""
    oid = opkey.operation_id(call)
    op = track.ops.get(oid)
    if op is not None:
        return op
    if not _make_room(track, cfg, now):
        add_log(
            state,
            LogEntry(
                t=now,
                hook="pre-tool",
                kind="untracked",
                reason="every operation record is in use; call not tracked",
            ),
        )
        return None
    guard = StateFile.view(state).guard
    op = Operation(
        label=opkey.label(call),
        runs=Many.over(Run, []),
        edit_seq=guard.edit_seq,
        compactions=guard.compactions,
    )
    track.ops[oid] = op
    return op


def _deny_repeat(
    state: State, track: Track, op: Operation, now: float, *, runs: int, at_once: bool = False
) -> Decisions:
    """`runs`: the runs with one result; with `at_once`, the copies issued in one turn."""
    timed_out = bool(op.runs) and op.runs[-1].outcome == opkey.TIMED_OUT
    reason = (
        messages.deny_at_once(op.label, runs)
        if at_once
        else messages.deny_reason(op.label, runs, timed_out=timed_out)
    )
    entry = LogEntry(
        t=now, hook="pre-tool", kind="deny", reason=reason, operation=op.label, runs=runs
    )
    return _deny(state, track, entry)


def _deny(state: State, track: Track, entry: LogEntry) -> Decisions:
    """Log the deny `entry` describes, count it, and give its reason to the model."""
    turn = track.turn
    turn.denied += 1
    turn.label = entry.operation or ""
    track.denials += 1
    add_log(state, entry)
    return (render.Deny(entry.reason),)


def _reserve(guard: Guard, op: Operation, cfg: Config, call: ToolCall, run: Run) -> None:
    """Record the execution (`run`, owned by its tool_use_id) before it is allowed."""
    edit_seq = guard.edit_seq
    spent = run.spent
    runs = op.runs
    runs.append(run)
    runs.keep_last(max(cfg.repeat_limit, 2))
    op.edit_seq = edit_seq
    op.change_seq = guard.change_seq
    op.compactions = guard.compactions
    if spent == VALIDATION:
        op.validated_seq = edit_seq
    timeout = opkey.effective_timeout(call)
    if timeout is not None:
        op.max_timeout = max(op.max_timeout, timeout)
    if spent == RECOVERY:
        op.recovery_used = True


def settle_batch(track: Track, tool_use_ids: Sequence[str]) -> None:
    """The turn's calls are all done: an execution still waiting for its result never ran
    (refused or denied by another hook before it started; no result event comes for it)."""
    owners = {short_id(i) for i in tool_use_ids}
    if not owners:
        return
    for op in track.ops.values():
        for run in op.runs:
            if run.outcome is None and run.owner in owners:
                run.outcome = opkey.NOT_RUN
