"""Which event carries which turn's work: outcomes from PostToolBatch, and closing a turn
without it (the fallback for Claude Code releases that lack the event).

PostToolBatch reports every call's result, so where it fires it resolves the repeat guard's
records and install wires PostToolUse only for the editing tools (whose structured response
proves a change). Failures still come from PostToolUseFailure, which says a call failed and
how long it ran; it fires before the batch, so the batch finds those records resolved.

The turn rules (blocked rounds, cycles, the check-in nudge, the backstop) run when a turn's
calls are done. Where PostToolBatch fires it says so; releases before it never do, so there a
turn is closed by the next event that belongs to a different assistant message: a PreToolUse
for a call of a newer message, or the Stop (whose final message never ends in tool use). The
calls of the open turn are kept on its track until then, as what the rules need of them
(`guard.turn_call`: operation id, label, flags), never their inputs, which may be megabytes.

Once a PostToolBatch has been seen in a session, it closes every turn and this fallback stays
out of the way, so a release that has the event never counts a turn twice.
"""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.loop_guard import held
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard.finished import decide_post_tool
from arcguard.core.loop_guard.guard import TurnEnd
from arcguard.core.loop_guard.guard import decide_post_batch
from arcguard.core.loop_guard.guard import turn_call
from arcguard.core.loop_guard.tracks import get_track
from arcguard.core.loop_guard.tracks import is_allowed
from arcguard.core.loop_guard.tracks import track_key
from arcguard.core.schema import MAX_CALLS
from arcguard.core.schema import OpenTurn
from arcguard.core.schema import StateFile
from arcguard.core.schema import TurnCall
from arcguard.core.state import batch_fires
from arcguard.core.state import clone
from arcguard.core.state import short_id
from arcguard.core.tool_call import ToolCall
from arcguard.core.validation import Many
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from arcguard.core.config import Config
    from arcguard.core.render import Decisions
    from arcguard.core.schema import Track
    from arcguard.core.state import State
    from arcguard.core.tool_call import ToolResult

# A turn with more calls than MAX_CALLS is still closed; only its fingerprint is cut short.


def on_batch(state: State) -> None:
    """PostToolBatch fired (mutates `state`): it closes turns from now on, so no turn is open."""
    guard = StateFile.view(state).guard
    guard.batch_fires = True
    for track in guard.tracks.values():
        del track.open_turn


def open_turn(state: State, agent_id: str | None) -> OpenTurn | None:
    """The open turn of the caller's track, or None."""
    track = StateFile.view(state).guard.tracks.get(track_key(agent_id))
    return _open_turn(track) if track is not None else None


def _open_turn(track: Track) -> OpenTurn | None:
    """The track's open turn, or None (a malformed record counts as none: fail open)."""
    return track.open_turn if track.valid("open_turn") else None


def unnamed_open_turn(state: State, agent_id: str | None) -> list[str] | None:
    """The tool-use ids of the track's open turn when its message is not known yet, else None.

    The first call of a turn is counted without knowing its message (nothing has to be told
    apart from it yet); the message is looked up by these ids once a later call needs it."""
    turn = open_turn(state, agent_id)
    if turn is None or turn.message is not None:
        return None
    return list(turn.ids)


@value
class MessageSeen:
    """The assistant message a call belongs to, as the transcript showed it."""

    id: str | None = None  # None: not looked up, or not found
    tool_only: bool | None = None  # it has no text; None when that is unknown


def name_open_turn(
    state: State, agent_id: str | None, now: float, *, message_id: str, tool_only: bool | None
) -> State:
    """The open turn's message, found at last (see `unnamed_open_turn`)."""
    state = clone(state)
    turn = _open_turn(get_track(state, track_key(agent_id), now))
    if turn is not None:
        turn.message = short_id(message_id)
        turn.tool_only = tool_only
    return state


def _steps(cfg: Config, turn: OpenTurn) -> list[TurnCall]:
    """The open turn's calls. An earlier version kept each call's whole input in `calls`:
    such a turn, found in a state it wrote, is summed up here like a new one."""
    written_before = [
        turn_call(cfg, ToolCall(c[0], c[1]))
        for c in turn.calls
        if isinstance(c, list) and len(c) == 2 and isinstance(c[0], str)
    ]
    return (written_before + list(turn.steps))[:MAX_CALLS]


def _tool_only(turn: OpenTurn) -> bool | None:
    return None if turn.message is None else turn.tool_only


def before_call(
    state: State, cfg: Config, now: float, call: ToolCall, message: MessageSeen, *, arc_active: bool
) -> tuple[Decisions | None, State]:
    """A call of assistant `message` is about to run: close the open turn first when it
    belongs to another message, then count the call in its own message's turn.

    With no turn open, `message.id` may be None (not looked up yet): the turn opens unnamed,
    to be named by `name_open_turn` when a later call needs it. An open turn still unnamed by
    then is closed as unknown.

    The decisions (a pause, or a nudge the PreToolUse hook carries) come from closing the
    previous turn; a pause decided here also denies this call, through the repeat guard.
    """
    if batch_fires(state):
        return None, state
    agent_id = call.agent
    message_id = short_id(message.id) if message.id is not None else None
    output: Decisions | None = None
    turn = open_turn(state, agent_id)
    if turn is not None and message_id is None:
        return None, state  # an unknown message cannot be told apart from the open one
    if turn is not None and turn.message == message_id:
        state = clone(state)
        turn = _open_turn(get_track(state, track_key(agent_id), now))
        if turn is not None and turn.calls:
            turn.steps, turn.calls = Many.of(TurnCall, _steps(cfg, turn)), []
    else:
        if turn is not None:
            output, state = _close(state, cfg, now, turn, agent_id=agent_id, arc_active=arc_active)
        else:
            state = clone(state)
        turn = None
    track = get_track(state, track_key(agent_id), now)
    if turn is None:
        turn = OpenTurn(
            message=message_id,
            tool_only=message.tool_only,
            calls=[],
            ids=[],
            steps=Many.over(TurnCall, []),
        )
        track.open_turn = turn
    steps = turn.steps
    turn.steps = steps
    if len(steps) < MAX_CALLS:
        steps.append(turn_call(cfg, call))
        ids = turn.ids
        ids.append(short_id(call.id))
        turn.ids = ids
    return output, state


def at_stop(
    state: State, cfg: Config, now: float, *, arc_active: bool
) -> tuple[Decisions | None, State | None]:
    """The main agent stopped: its open turn is over. Returns (output, new state or None when
    nothing was open). Only a pause is passed on: a Stop's added context would continue it, so
    a request waits for the next call's result, as one decided at a PreToolUse does."""
    if batch_fires(state):
        return None, None
    turn = open_turn(state, None)
    if turn is None:
        return None, None
    output, new = _close(state, cfg, now, turn, agent_id=None, arc_active=arc_active)
    output, new = held.hold(new, output, None, now)
    return render.only_pauses(output or ()) or None, new


def _close(
    state: State, cfg: Config, now: float, turn: OpenTurn, *, agent_id: str | None, arc_active: bool
) -> tuple[Decisions | None, State]:
    closed = TurnEnd(_tool_only(turn), agent=agent_id, steps=_steps(cfg, turn))
    output, new = decide_post_batch(state, cfg, now, closed, arc_active=arc_active)
    del get_track(new, track_key(agent_id), now).open_turn
    return output, new


def record_batch_results(
    state: State, cfg: Config, now: float, calls: Sequence[tuple[ToolCall, ToolResult]]
) -> State:
    """Resolve the records of a turn's calls from the batch's results (`tool_response` is the
    text the model saw). Each record is resolved only by its own call's id, so calls of one
    turn that ran in parallel each settle their own; one already resolved is left as it is.

    A call with no record of its own waiting (arcguard denied it) is skipped, and so is one
    whose text says it never ran (a permission check, another hook, a cancelled sibling, an
    unknown tool): the text is not a result, nor fresh evidence, and the record it leaves
    waiting is marked as not run when the batch settles the turn. So this must run before
    that settling, and a call that never ran is not counted as a run of its operation.
    """
    for call, result in calls:
        if not (call.id and result.responded) or opkey.batch_never_ran(result.response):
            continue
        if not (is_allowed(cfg, call) or _waiting(state, call)):
            continue
        _, state = decide_post_tool(state, cfg, now, call, result)
    return state


def _waiting(state: State, call: ToolCall) -> bool:
    track = StateFile.view(state).guard.tracks.get(track_key(call.agent))
    op = track.ops.get(opkey.operation_id(call)) if track is not None else None
    owner = short_id(call.id)
    return op is not None and any(r.owner == owner and r.outcome is None for r in op.runs)
