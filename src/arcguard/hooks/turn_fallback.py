"""The hook side of closing turns without PostToolBatch (see `arcguard.core.loop_guard.turns`).

The transcript is read only while no PostToolBatch has been seen in the session, so releases
that have the event pay nothing for the fallback after their first turn.
"""

from __future__ import annotations

from arcguard.core.arc_keeper import goal
from arcguard.core.loop_guard import turns
from arcguard.core.state import batch_fires
from arcguard.transcript import hook_reader


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.render import Decisions
    from arcguard.core.state import State
    from arcguard.hooks.payloads import PreToolPayload
    from arcguard.hooks.runner import Context


def before_call(
    state: State, given: PreToolPayload, ctx: Context
) -> tuple[Decisions | None, State]:
    """Close the open turn when this call belongs to a newer assistant message."""
    if batch_fires(state):
        return None, state
    call = given["call"]
    # The caller's own transcript (a subagent has its own file), looked up here: only releases
    # without PostToolBatch import the transcript reader on this hook.
    path = hook_reader.path_for(given["transcript_path"], call.agent)
    message = None
    if call.id and path:
        # The call's own entry may not be on disk yet. Its message matters only when a turn
        # is open (to tell whether this call starts a new one), so only then is it waited
        # for; the wait holds the session's lock, which only releases without PostToolBatch
        # pay for (where the batch fires, it closes every turn before another call comes).
        waits = turns.open_turn(state, call.agent) is not None
        wait_s = ctx.wait_left(hook_reader.SETTLE_WAIT_S) if waits else 0
        message = hook_reader.message_with_tool(path, {call.id}, ctx.cfg.tail_bytes, wait_s=wait_s)
    # After that wait, so that the entries of an earlier call of the same message, flushed
    # with this one's, are found too.
    state = _name_open_turn(state, path, call.agent, ctx)
    seen = (
        turns.MessageSeen(message.id, tool_only=not message.text)
        if message is not None
        else turns.MessageSeen()
    )
    return turns.before_call(
        state, ctx.cfg, ctx.now, call, seen, arc_active=goal.delegated(state, ctx.cfg, ctx.now)
    )


def at_stop(
    state: State | None, ctx: Context, path: str | None
) -> tuple[Decisions | None, State | None]:
    """Close the main agent's open turn: a Stop's final message is never part of it."""
    if state is None:
        return None, None
    state = _name_open_turn(state, path, None, ctx)
    return turns.at_stop(
        state, ctx.cfg, ctx.now, arc_active=goal.delegated(state, ctx.cfg, ctx.now)
    )


def _name_open_turn(state: State, path: str | None, agent_id: str | None, ctx: Context) -> State:
    """Look up the message of an open turn counted before its message was known: its calls'
    entries are on disk by the time another event needs it."""
    ids = turns.unnamed_open_turn(state, agent_id)
    if not ids or not path:
        return state
    message = hook_reader.message_with_tool(path, set(ids), ctx.cfg.tail_bytes)
    if message is None:
        return state  # still unknown: the turn is closed as unknown
    return turns.name_open_turn(
        state, agent_id, ctx.now, message_id=message.id, tool_only=not message.text
    )
