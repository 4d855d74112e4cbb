"""StopFailure: a turn ended on an API error. Recorded for `status`; never a decision."""

from __future__ import annotations

from arcguard.core.lifecycle import decide_stop_failure
from arcguard.hooks.runner import session_id


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from arcguard.core.render import Output
    from arcguard.hooks.runner import Context


def handle(payload: dict[str, Any], ctx: Context) -> Output | None:
    sid = session_id(payload)
    if sid is None:
        return None
    error = payload.get("error")
    error = error if isinstance(error, str) else "unknown"
    return ctx.update(sid, lambda state: decide_stop_failure(state, error, ctx.now))
