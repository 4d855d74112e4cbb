"""PreToolUse: the repeat guard (and a paused session's stop).

For a file read, the file's size and modification time are looked up here and handed to the
core: a file changed by anything (a shell command, an editor, another agent) since its last
read makes a re-read news.
"""

from __future__ import annotations

import os

from arcguard.core import render
from arcguard.core.loop_guard.repeat import UNKNOWN_FILE
from arcguard.core.loop_guard.repeat import decide_pre_tool
from arcguard.core.state import batch_fires
from arcguard.core.state import fresh_state
from arcguard.hooks.runner import session_id


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from arcguard.core.render import Output
    from arcguard.core.state import State
    from arcguard.hooks.runner import Context


READ_TOOLS = ("Read",)
MISSING = "missing"


def file_state(tool_name: str, tool_input: object) -> str | None:
    """The read file's size and modification time; None when the call reads no file."""
    if tool_name not in READ_TOOLS or not isinstance(tool_input, dict):
        return None
    path = tool_input.get("file_path")
    if not isinstance(path, str) or not path:
        return None
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return MISSING  # stays missing until it appears: comparable, not unknown
    except (OSError, ValueError):
        return UNKNOWN_FILE
    return f"{found.st_size}:{found.st_mtime_ns}"


def handle(payload: dict[str, Any], ctx: Context) -> Output | None:
    sid = session_id(payload)
    tool_name = payload.get("tool_name")
    if sid is None or not isinstance(tool_name, str):
        return None
    tool_use_id = payload.get("tool_use_id")
    tool_input = payload.get("tool_input")
    seen = file_state(tool_name, tool_input)

    def change(state: State | None) -> tuple[Output | None, State | None]:
        state = state or fresh_state(sid, ctx.now)
        closed = None
        if not batch_fires(state):
            # Only releases without PostToolBatch close turns here, so only they import it.
            from arcguard.hooks import turn_fallback

            # The previous turn closes first, so a pause it brings denies this call as well.
            closed, state = turn_fallback.before_call(state, payload, ctx, tool_name=tool_name)
        output, new = decide_pre_tool(
            state,
            ctx.cfg,
            ctx.now,
            tool_name=tool_name,
            tool_input=tool_input,
            tool_use_id=tool_use_id if isinstance(tool_use_id, str) else "",
            agent_id=payload.get("agent_id"),
            file_state=seen,
        )
        return render.merge(closed, output), new

    return ctx.update(sid, change)
