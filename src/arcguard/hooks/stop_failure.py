"""StopFailure: a turn ended on an API error. Recorded for `status`; never a decision."""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.arc_keeper import limits
from arcguard.core.arc_keeper.lifecycle import decide_stop_failure
from arcguard.hooks.runner import session_id


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.render import Decisions
    from arcguard.core.render import Output
    from arcguard.core.state import State
    from arcguard.hooks.payloads import FailurePayload
    from arcguard.hooks.runner import Context
    from arcguard.jsonio import JSONObject


def read(payload: JSONObject) -> FailurePayload | None:
    sid = session_id(payload)
    if sid is None:
        return None
    error = payload.get("error")
    return {"session_id": sid, "error": error if isinstance(error, str) else "unknown"}


def handle(payload: JSONObject, ctx: Context) -> Output | None:
    given = read(payload)
    if given is None:
        return None
    error = given["error"]
    decided = ctx.update(given["session_id"], lambda state: _decide(state, error, ctx))
    return render.output(decided, "StopFailure")


def _decide(state: State | None, error: str, ctx: Context) -> tuple[Decisions | None, State | None]:
    output, new = decide_stop_failure(state, error, ctx.now)
    if ctx.cfg.notify_terminal and limits.resumes_spent(state, error, ctx.cfg, ctx.now):
        # `limit-wait` gives up on this one, from the background where no terminal sequence
        # is emitted: this synchronous handler rings for it.
        from arcguard.core import notify

        output = render.merge(output, (render.Alert(notify.sequence_for("limit-give-up")),))
    return output, new
