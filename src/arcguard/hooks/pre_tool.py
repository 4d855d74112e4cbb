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
from arcguard.core.tool_call import read_agent
from arcguard.core.tool_call import read_call
from arcguard.hooks.runner import path_of
from arcguard.hooks.runner import session_id


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.render import Decisions
    from arcguard.core.render import Output
    from arcguard.core.state import State
    from arcguard.core.tool_call import ToolCall
    from arcguard.hooks.payloads import PreToolPayload
    from arcguard.hooks.runner import Context
    from arcguard.jsonio import JSONObject


READ_TOOLS = ("Read",)
MISSING = "missing"


def file_state(call: ToolCall) -> str | None:
    """The read file's size and modification time; None when the call reads no file."""
    if call.name not in READ_TOOLS or not isinstance(call.input, dict):
        return None
    path = call.input.get("file_path")
    if not isinstance(path, str) or not path:
        return None
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return MISSING  # stays missing until it appears: comparable, not unknown
    except (OSError, ValueError):
        return UNKNOWN_FILE
    return f"{found.st_size}:{found.st_mtime_ns}"


def read(payload: JSONObject) -> PreToolPayload | None:
    sid = session_id(payload)
    call = read_call(payload, read_agent(payload))
    if sid is None or call is None:
        return None
    return {
        "session_id": sid,
        "call": call,
        "transcript_path": path_of(payload, "transcript_path"),
    }


def handle(payload: JSONObject, ctx: Context) -> Output | None:
    given = read(payload)
    if given is None or not ctx.loop_guard_acts(given["session_id"]):
        return None
    sid, call = given["session_id"], given["call"]
    seen = file_state(call)

    def change(state: State | None) -> tuple[Decisions | None, State | None]:
        state = state or fresh_state(sid, ctx.now)
        closed = None
        if not batch_fires(state):
            # Only releases without PostToolBatch close turns here, so only they import it.
            from arcguard.hooks import turn_fallback

            # The previous turn closes first, so a pause it brings denies this call as well.
            closed, state = turn_fallback.before_call(state, given, ctx)
        output, new = decide_pre_tool(state, ctx.cfg, ctx.now, call, file_state=seen)
        decided = render.merge(closed, output)
        if closed:
            from arcguard.core.loop_guard import held

            # A request would be lost with the call's failure: it waits for the call's result.
            decided, new = held.hold(new, decided, call.agent, ctx.now)
        return decided, new

    return render.output(ctx.update(sid, change), "PreToolUse")
