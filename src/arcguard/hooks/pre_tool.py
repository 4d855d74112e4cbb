"""PreToolUse: the repeat guard (and a paused session's stop)."""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.repeat import decide_pre_tool
from arcguard.core.state import fresh_state
from arcguard.hooks import turn_fallback
from arcguard.hooks.runner import session_id


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from arcguard.core.render import Output
    from arcguard.core.state import State
    from arcguard.hooks.runner import Context


def handle(payload: dict[str, Any], ctx: Context) -> Output | None:
    sid = session_id(payload)
    tool_name = payload.get("tool_name")
    if sid is None or not isinstance(tool_name, str):
        return None
    tool_use_id = payload.get("tool_use_id")

    def change(state: State | None) -> tuple[Output | None, State | None]:
        # The previous turn closes first, so a pause it brings denies this call as well.
        closed, state = turn_fallback.before_call(state or fresh_state(sid, ctx.now), payload,
                                                  ctx, tool_name=tool_name)
        output, new = decide_pre_tool(
            state, ctx.cfg, ctx.now, tool_name=tool_name, tool_input=payload.get("tool_input"),
            tool_use_id=tool_use_id if isinstance(tool_use_id, str) else "",
            agent_id=payload.get("agent_id"))
        return render.merge(closed, output), new

    return ctx.update(sid, change)
