"""PostToolBatch: one assistant turn's calls are done; blocked rounds, cycles, nudges, backstop.

The transcript around the turn is also read for commands queued while the model worked: the
operator's typed prompts (Claude Code records them as `queued_command` attachments, not as
prompts of their own) and the harness's task notifications.
"""

from __future__ import annotations

from arcguard import jsonio
from arcguard.core.arc_keeper import goal
from arcguard.core.final_words import QUEUED_COMMAND
from arcguard.core.final_words import queued_prompt
from arcguard.core.loop_guard import turns
from arcguard.core.loop_guard.guard import confirm_turn
from arcguard.core.loop_guard.guard import decide_post_batch
from arcguard.core.loop_guard.tracks import track_key
from arcguard.core.state import clone
from arcguard.core.state import fresh_state
from arcguard.core.state import remember
from arcguard.hooks.runner import session_id
from arcguard.transcript import hook_reader
from arcguard.transcript import records
from arcguard.transcript.tail import NotReadable
from arcguard.transcript.tail import lines_newest_first


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from arcguard.core.render import Output
    from arcguard.core.state import State
    from arcguard.hooks.runner import Context
    from arcguard.transcript.records import Message


def _calls(payload: dict[str, Any]) -> list[dict[str, Any]]:
    calls = payload.get("tool_calls")
    if not isinstance(calls, list):
        return []
    return [c for c in calls if isinstance(c, dict) and isinstance(c.get("tool_name"), str)]


def queued_around(path: str, message_id: str | None, max_bytes: int) -> list[tuple[str, str, bool]]:
    """(entry id, text, typed by the operator) of every queued command written since the
    assistant message before the turn's own (`message_id`; None when the turn's message is not
    on disk yet, so the newest one there is the one before it), newest first."""
    marker = QUEUED_COMMAND.encode()
    found: list[tuple[str, str, bool]] = []
    passed = message_id is None
    try:
        for line in lines_newest_first(path, max_bytes):
            if marker not in line and b'"assistant"' not in line:
                continue
            try:
                entry = jsonio.loads(line)
            except ValueError:
                continue
            queued = queued_prompt(entry)
            uuid = entry.get("uuid") if isinstance(entry, dict) else None
            if queued is not None and isinstance(uuid, str):
                found.append((uuid, *queued))
                continue
            mid = (
                records.assistant_message_id(records.parse_entry(entry))
                if isinstance(entry, dict)
                else None
            )
            if mid == message_id:
                passed = True
            elif mid is not None and passed:
                break  # the previous turn's message: anything older was seen then
    except NotReadable:
        return []
    return found


class _NotOnDiskYet(Exception):
    """The turn's rules would act, but its message, needed to be sure, is not on disk yet."""


def handle(payload: dict[str, Any], ctx: Context) -> Output | None:
    sid = session_id(payload)
    calls = _calls(payload)
    if sid is None or not calls:
        return None
    ids = {c["tool_use_id"] for c in calls if isinstance(c.get("tool_use_id"), str)}
    path = hook_reader.path_for(payload)
    agent_id = payload.get("agent_id")
    pairs = [(c["tool_name"], c.get("tool_input")) for c in calls]

    def decide(message: Message | None, *, may_wait: bool) -> Output | None:
        # Claude Code flushes its transcript on a timer, so the message of a quick turn is
        # often not on disk yet. Waiting for it on every turn would add that delay to most
        # tool calls; instead the turn is taken as tool-only for now (settled at the next
        # batch), and the wait is paid only when that guess would pause or nudge.
        unconfirmed = may_wait and message is None and path is not None
        # A turn whose message cannot be read (no transcript, or the message is beyond the
        # tail) is unknown, not tool-only: guessing "tool-only" would pause sessions that do
        # narrate.
        tool_only = True if unconfirmed else (None if message is None else not message.text)
        queued = (
            queued_around(path, message.id if message else None, ctx.cfg.tail_bytes)
            if path and agent_id is None
            else []
        )

        def change(state: State | None) -> tuple[Output | None, State | None]:
            state = state or fresh_state(sid, ctx.now)
            # Outcomes first: a result never seen before is the progress the turn rules
            # look for.
            state = turns.record_batch_results(
                state, ctx.cfg, ctx.now, calls=calls, agent_id=agent_id
            )
            state = _settle_unconfirmed(state, path, agent_id, ctx)
            output, new = decide_post_batch(
                state,
                ctx.cfg,
                ctx.now,
                calls=pairs,
                tool_only=tool_only,
                agent_id=agent_id,
                arc_active=goal.delegated(state, ctx.cfg, ctx.now),
                tool_use_ids=sorted(ids),
                queued=queued,
                unconfirmed=unconfirmed,
                narration=message.text if message is not None and message.text else None,
            )
            if unconfirmed and output is not None:
                raise _NotOnDiskYet
            turns.on_batch(new)
            if message is not None and agent_id is None:
                remember(new["seen"].setdefault("messages", []), message.id, 16)
            return output, new

        return ctx.update(sid, change)

    def lookup(wait_s: float) -> Message | None:
        if path is None:
            return None
        return hook_reader.message_with_tool(path, ids, ctx.cfg.tail_bytes, wait_s=wait_s)

    try:
        return decide(lookup(0.0), may_wait=True)
    except _NotOnDiskYet:
        return decide(lookup(ctx.wait_left(hook_reader.SETTLE_WAIT_S)), may_wait=False)


def _settle_unconfirmed(state: State, path: str | None, agent_id: object, ctx: Context) -> State:
    """Settle the track's turn that was taken as tool-only before its message was on disk:
    by the next batch it is (or it cannot be read at all)."""
    track = state["guard"].get("tracks", {}).get(track_key(agent_id))
    pending = track.get("unconfirmed") if isinstance(track, dict) else None
    if pending is None:
        return state
    message = (
        hook_reader.message_with_tool(path, set(pending["ids"]), ctx.cfg.tail_bytes)
        if path
        else None
    )
    state = clone(state)
    confirm_turn(state, agent_id, narrated=None if message is None else bool(message.text))
    return state
