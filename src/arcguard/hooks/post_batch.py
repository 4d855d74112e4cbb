"""PostToolBatch: one assistant turn's calls are done; blocked rounds, cycles, nudges, backstop."""

from __future__ import annotations

from arcguard.core import arc as arcs
from arcguard.core import turns
from arcguard.core.guard import decide_post_batch
from arcguard.core.state import fresh_state
from arcguard.core.state import remember
from arcguard.hooks.runner import session_id
from arcguard.transcript import hook_reader


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from arcguard.core.render import Output
    from arcguard.core.state import State
    from arcguard.hooks.runner import Context


def _calls(payload: dict[str, Any]) -> list[dict[str, Any]]:
    calls = payload.get("tool_calls")
    if not isinstance(calls, list):
        return []
    return [c for c in calls if isinstance(c, dict) and isinstance(c.get("tool_name"), str)]


def handle(payload: dict[str, Any], ctx: Context) -> Output | None:
    sid = session_id(payload)
    calls = _calls(payload)
    if sid is None or not calls:
        return None
    ids = {c["tool_use_id"] for c in calls if isinstance(c.get("tool_use_id"), str)}
    path = hook_reader.path_for(payload)
    message = hook_reader.message_with_tool(path, ids, ctx.cfg.tail_bytes) if path else None
    # A turn whose message cannot be read (no transcript, or the message is beyond the tail)
    # is unknown, not tool-only: guessing "tool-only" would pause sessions that do narrate.
    tool_only = None if message is None else not message.text
    pairs = [(c["tool_name"], c.get("tool_input")) for c in calls]

    def change(state: State | None) -> tuple[Output | None, State | None]:
        state = state or fresh_state(sid, ctx.now)
        # Outcomes first: a result never seen before is the progress the turn rules look for.
        state = turns.record_batch_results(state, ctx.cfg, ctx.now, calls=calls,
                                           agent_id=payload.get("agent_id"))
        output, new = decide_post_batch(
            state, ctx.cfg, ctx.now, calls=pairs, tool_only=tool_only,
            agent_id=payload.get("agent_id"),
            arc_active=arcs.is_active(state.get("arc"), ctx.cfg, ctx.now))
        turns.on_batch(new)
        if message is not None and payload.get("agent_id") is None:
            remember(new["seen"].setdefault("messages", []), message.id, 16)
        return output, new

    return ctx.update(sid, change)


