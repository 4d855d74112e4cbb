"""PostToolUse and PostToolUseFailure: outcomes, confirmed edits, fresh evidence."""

from __future__ import annotations

from arcguard.core.loop_guard.repeat import decide_post_tool
from arcguard.core.state import fresh_state
from arcguard.hooks.runner import session_id


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from arcguard.core.render import Output
    from arcguard.hooks.runner import Context

EVENTS = ("PostToolUse", "PostToolUseFailure")


def handle(payload: dict[str, Any], ctx: Context) -> Output | None:
    sid = session_id(payload)
    tool_name = payload.get("tool_name")
    event = payload.get("hook_event_name")
    if sid is None or not isinstance(tool_name, str):
        return None
    if event not in EVENTS:
        event = "PostToolUseFailure" if "error" in payload else "PostToolUse"
    tool_use_id = payload.get("tool_use_id")
    return ctx.update(
        sid,
        lambda state: decide_post_tool(
            state or fresh_state(sid, ctx.now),
            ctx.cfg,
            ctx.now,
            event_name=event,
            tool_name=tool_name,
            tool_input=payload.get("tool_input"),
            tool_use_id=tool_use_id if isinstance(tool_use_id, str) else "",
            agent_id=payload.get("agent_id"),
            payload=payload,
        ),
    )
