"""UserPromptSubmit: the operator's prompt (or the harness waking the session)."""

from __future__ import annotations

from arcguard.core.posture import decide_posture
from arcguard.hooks.runner import session_id


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from arcguard.core.render import Output
    from arcguard.hooks.runner import Context


def handle(payload: dict[str, Any], ctx: Context) -> Output | None:
    sid = session_id(payload)
    prompt = payload.get("prompt")
    if sid is None or not isinstance(prompt, str):
        return None
    return ctx.update(sid, lambda state: decide_posture(
        state, prompt, ctx.cfg, ctx.now, session_id=sid, command=ctx.command))
