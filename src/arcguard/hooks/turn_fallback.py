"""The hook side of closing turns without PostToolBatch (see `arcguard.core.turns`).

The transcript is read only while no PostToolBatch has been seen in the session, so releases
that have the event pay nothing for the fallback after their first turn.
"""

from __future__ import annotations

from arcguard.core import arc as arcs
from arcguard.core import turns
from arcguard.core.state import batch_fires
from arcguard.transcript import hook_reader


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from arcguard.core.render import Output
    from arcguard.core.state import State
    from arcguard.hooks.runner import Context


def before_call(
    state: State, payload: dict[str, Any], ctx: Context, *, tool_name: str
) -> tuple[Output | None, State]:
    """Close the open turn when this call belongs to a newer assistant message."""
    if batch_fires(state):
        return None, state
    tool_use_id = payload.get("tool_use_id")
    path = hook_reader.path_for(payload)
    message = None
    if isinstance(tool_use_id, str) and tool_use_id and path:
        # The call's own entry may not be on disk yet; this waits under the session's lock,
        # which only releases without PostToolBatch pay for.
        message = hook_reader.message_with_tool(
            path,
            {tool_use_id},
            ctx.cfg.tail_bytes,
            wait_s=ctx.wait_left(hook_reader.SETTLE_WAIT_S),
        )
    return turns.before_call(
        state,
        ctx.cfg,
        ctx.now,
        message_id=message.id if message else None,
        tool_only=None if message is None else not message.text,
        tool_name=tool_name,
        tool_input=payload.get("tool_input"),
        agent_id=payload.get("agent_id"),
        arc_active=arcs.is_active(state.get("arc"), ctx.cfg, ctx.now),
    )


def at_stop(state: State | None, ctx: Context) -> tuple[Output | None, State | None]:
    """Close the main agent's open turn: a Stop's final message is never part of it."""
    if state is None:
        return None, None
    return turns.at_stop(
        state, ctx.cfg, ctx.now, arc_active=arcs.is_active(state.get("arc"), ctx.cfg, ctx.now)
    )
