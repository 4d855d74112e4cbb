"""SessionStart: note compaction and resume (they reset nothing) and restate an arc's posture.

It is also where old sessions' state files are pruned (`storage.prune`): a session starts
rarely, so the look at the directory costs no tool call anything.
"""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.arc_keeper.lifecycle import decide_session_start
from arcguard.core.arc_keeper.posture import note_cwd
from arcguard.hooks.runner import path_of
from arcguard.hooks.runner import session_id
from arcguard.storage import error_log


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.render import Decisions
    from arcguard.core.render import Output
    from arcguard.core.state import State
    from arcguard.hooks.payloads import SessionStartPayload
    from arcguard.hooks.runner import Context
    from arcguard.jsonio import JSONObject


def read(payload: JSONObject) -> SessionStartPayload | None:
    sid = session_id(payload)
    if sid is None:
        return None
    source = payload.get("source")
    return {
        "session_id": sid,
        "source": source if isinstance(source, str) else "unknown",
        "cwd": path_of(payload, "cwd"),
    }


def handle(payload: JSONObject, ctx: Context) -> Output | None:
    given = read(payload)
    if given is None:
        return None
    source, cwd = given["source"], given["cwd"]
    _prune(ctx, given["session_id"])

    def change(state: State | None) -> tuple[Decisions | None, State | None]:
        output, new = decide_session_start(state, source, ctx.cfg, ctx.now, command=ctx.command)
        if new is not None:
            note_cwd(new, cwd)
        return output, new

    return render.output(ctx.update(given["session_id"], change), "SessionStart")


# The pruning gets at most this much of the hook's wall time; what is left waits for the next.
PRUNE_BUDGET_S = 0.25


def _prune(ctx: Context, current: str) -> None:
    """Before the update, so that the watchdog still bounds it; a failure decides nothing."""
    try:
        from arcguard.storage.prune import prune_sessions

        prune_sessions(
            ctx.home, ctx.cfg, ctx.now, current=current, budget_s=ctx.wait_left(PRUNE_BUDGET_S)
        )
    except Exception as exc:
        error_log.log_line(ctx.home, "prune", f"{type(exc).__name__}: {exc}")
