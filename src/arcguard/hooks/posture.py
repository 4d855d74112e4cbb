"""UserPromptSubmit: the operator's prompt (or the harness waking the session)."""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.arc_keeper.posture import decide_posture
from arcguard.core.arc_keeper.posture import note_cwd
from arcguard.core.loop_guard.background import observe_notification
from arcguard.core.words.final_words import is_task_notification
from arcguard.hooks.runner import path_of
from arcguard.hooks.runner import session_id


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.render import Decisions
    from arcguard.core.render import Output
    from arcguard.core.state import State
    from arcguard.hooks.payloads import PromptPayload
    from arcguard.hooks.runner import Context
    from arcguard.jsonio import JSONObject


def read(payload: JSONObject) -> PromptPayload | None:
    sid = session_id(payload)
    prompt = payload.get("prompt")
    if sid is None or not isinstance(prompt, str):
        return None
    return {"session_id": sid, "prompt": prompt, "cwd": path_of(payload, "cwd")}


def handle(payload: JSONObject, ctx: Context) -> Output | None:
    given = read(payload)
    if given is None:
        return None
    sid, prompt, cwd = given["session_id"], given["prompt"], given["cwd"]

    def change(state: State | None) -> tuple[Decisions | None, State | None]:
        output, new = decide_posture(
            state, prompt, ctx.cfg, ctx.now, session_id=sid, command=ctx.command
        )
        if new is not None and is_task_notification(prompt):
            observe_notification(new, prompt)  # the work it reports on may have ended
        if new is not None:
            note_cwd(new, cwd)
        return output, new

    return render.output(ctx.update(sid, change), "UserPromptSubmit")
