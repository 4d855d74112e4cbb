"""PostToolUse and PostToolUseFailure: outcomes, confirmed edits, fresh evidence."""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.loop_guard.finished import decide_post_tool
from arcguard.core.schema import StateFile
from arcguard.core.state import batch_fires
from arcguard.core.state import fresh_state
from arcguard.core.tool_call import read_agent
from arcguard.core.tool_call import read_call
from arcguard.core.tool_call import read_result
from arcguard.hooks.runner import session_id


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.render import Decisions
    from arcguard.core.render import Output
    from arcguard.core.state import State
    from arcguard.hooks.payloads import PostToolPayload
    from arcguard.hooks.runner import Context
    from arcguard.jsonio import JSONObject


def read(payload: JSONObject) -> PostToolPayload | None:
    sid = session_id(payload)
    call = read_call(payload, read_agent(payload))
    if sid is None or call is None:
        return None
    result = read_result(payload, event=payload.get("hook_event_name"))
    return {"session_id": sid, "call": call, "result": result}


def handle(payload: JSONObject, ctx: Context) -> Output | None:
    given = read(payload)
    if given is None or not ctx.loop_guard_acts(given["session_id"]):
        return None
    sid, call = given["session_id"], given["call"]

    def change(state: State | None) -> tuple[Decisions | None, State | None]:
        state = state or fresh_state(sid, ctx.now)
        output, new = decide_post_tool(state, ctx.cfg, ctx.now, call, given["result"])
        if StateFile.view(new).arc is not None:
            # Only an arc watches for the checks its task names, so only then is that loaded.
            from arcguard.core.arc_keeper import named_checks

            named_checks.observe(new, call, given["result"])
        if not batch_fires(new):
            from arcguard.core.loop_guard import held

            # A request held back at this call's PreToolUse (releases without PostToolBatch).
            words, new = held.give(new, call.agent, ctx.now)
            output = render.merge(words, output)
        return output, new

    decided = ctx.update(sid, change)
    failed = payload.get("hook_event_name") == "PostToolUseFailure"
    return render.output(decided, "PostToolUseFailure" if failed else "PostToolUse")
