"""SessionStart: note compaction and resume (they reset nothing) and restate an arc's posture."""

from __future__ import annotations

from arcguard.core.lifecycle import decide_session_start
from arcguard.core.posture import note_cwd
from arcguard.hooks.runner import session_id


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from arcguard.core.render import Output
    from arcguard.core.schema import SessionStartPayload
    from arcguard.core.state import State
    from arcguard.hooks.runner import Context


def read(payload: dict[str, Any]) -> SessionStartPayload | None:
    sid = session_id(payload)
    if sid is None:
        return None
    source = payload.get("source")
    return {"session_id": sid, "source": source if isinstance(source, str) else "unknown"}


def handle(payload: dict[str, Any], ctx: Context) -> Output | None:
    given = read(payload)
    if given is None:
        return None
    source = given["source"]

    def change(state: State | None) -> tuple[Output | None, State | None]:
        output, new = decide_session_start(state, source, ctx.cfg, ctx.now, command=ctx.command)
        if new is not None:
            note_cwd(new, payload.get("cwd"))
        return output, new

    return ctx.update(given["session_id"], change)
