"""SessionStart: note compaction and resume (they reset nothing) and restate an arc's posture."""

from __future__ import annotations

from arcguard.core.lifecycle import decide_session_start
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
    source = payload.get("source")
    source = source if isinstance(source, str) else "unknown"
    return ctx.update(sid, lambda state: decide_session_start(
        state, source, ctx.cfg, ctx.now, command=ctx.command))
