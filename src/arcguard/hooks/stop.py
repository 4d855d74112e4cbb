"""Stop: decide whether a turn's end is a stall to send back to work.

The final message comes from the payload's `last_assistant_message` when it has text (no
transcript wait at all). Otherwise the transcript tail is read, waiting (bounded by the drain
budget) only while its newest assistant message is one already seen at earlier hook events or
is still thinking-only: Claude Code may fire Stop before it has flushed the final entry.
"""

from __future__ import annotations

import time

from arcguard.core import arc as arcs
from arcguard.core.stop import KIND_THINKING
from arcguard.core.stop import Final
from arcguard.core.stop import decide_stop
from arcguard.core.stop import is_noop
from arcguard.hooks import transcripts
from arcguard.hooks.runner import session_id


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from arcguard.core.render import Output
    from arcguard.core.state import State
    from arcguard.hooks.runner import Context
    from arcguard.transcript.records import Message

POLL_S = 0.05
# Leave this much of the hook's wall budget for the locked update after the drain.
UPDATE_RESERVE_S = 0.4


def _background_running(payload: dict[str, Any]) -> bool:
    tasks = payload.get("background_tasks")
    if not isinstance(tasks, list):
        return False
    return any(isinstance(t, dict) and t.get("status") == "running" for t in tasks)


def _final(message: Message | None) -> Final | None:
    if message is None:
        return None
    return Final(message.kind, message.text, synthetic=message.synthetic,
                 message_id=message.id)


def _drain(path: str, seen: set[str], ctx: Context, *, final_known: bool) -> Message | None:
    """The final message, waiting while the newest one is old news or thinking only.

    `final_known`: Claude Code said the final message has no text (see `_final_is_textless`),
    so a fresh thinking-only message is final, not an intermediate worth waiting on.
    """
    budget = min(ctx.cfg.drain_ms / 1000.0,
                 ctx.deadline - time.monotonic() - UPDATE_RESERVE_S)
    deadline = time.monotonic() + max(0.0, budget)
    while True:
        message = transcripts.last_message(path, ctx.cfg.tail_bytes)
        fresh = message is not None and message.id not in seen
        if fresh and message is not None and (final_known or message.kind != KIND_THINKING):
            return message
        if time.monotonic() + POLL_S > deadline:
            return message
        time.sleep(POLL_S)


def _final_is_textless(payload: dict[str, Any]) -> bool:
    """Claude Code told us the final message has no text, so a thinking-only one is final.

    Since 2.1.47 Claude Code puts the final text in `last_assistant_message`; observed with
    2.1.328, it leaves the key out when the final message has no visible text. A payload that
    has the newer `background_tasks`/`session_crons` fields comes from such a version.
    """
    return ("last_assistant_message" in payload or "background_tasks" in payload
            or "session_crons" in payload)


def _from_payload(text: str, path: str | None, ctx: Context) -> Final:
    final = Final.from_text(text)
    if path and is_noop(final):
        # A no-op may be a synthetic entry (an API error, a local command's placeholder).
        message = transcripts.last_message(path, ctx.cfg.tail_bytes)
        if message is not None and message.synthetic and message.text == text.strip():
            final.synthetic = True
    return final


def handle(payload: dict[str, Any], ctx: Context) -> Output | None:
    sid = session_id(payload)
    if sid is None:
        return None
    snapshot = ctx.snapshot(sid)
    if snapshot is None:
        return None
    path = payload.get("transcript_path")
    path = path if isinstance(path, str) and path else None
    text = payload.get("last_assistant_message")
    if isinstance(text, str) and text.strip():
        final: Final | None = _from_payload(text, path, ctx)
    elif path and arcs.is_active(snapshot.get("arc"), ctx.cfg, ctx.now):
        seen = set(snapshot.get("seen", {}).get("messages") or [])
        final = _final(_drain(path, seen, ctx, final_known=_final_is_textless(payload)))
    else:
        final = None

    def change(state: State | None) -> tuple[Output | None, State | None]:
        return decide_stop(state, final, ctx.cfg, ctx.now,
                           stop_hook_active=payload.get("stop_hook_active") is True,
                           background_running=_background_running(payload),
                           command=ctx.command)

    return ctx.update(sid, change)
