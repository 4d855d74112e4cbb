"""PostToolBatch: one assistant turn's calls are done; blocked rounds, cycles, nudges, backstop.

The transcript around the turn is also read for commands queued while the model worked
(`arcguard.transcript.queued`): the operator's typed prompts and the harness's task
notifications.
"""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.arc_keeper import goal
from arcguard.core.loop_guard import turns
from arcguard.core.loop_guard.guard import TurnEnd
from arcguard.core.loop_guard.guard import confirm_turn
from arcguard.core.loop_guard.guard import decide_post_batch
from arcguard.core.loop_guard.tracks import track_key
from arcguard.core.schema import StateFile
from arcguard.core.state import clone
from arcguard.core.state import fresh_state
from arcguard.core.state import remember
from arcguard.core.tool_call import NO_RESPONSE
from arcguard.core.tool_call import ToolResult
from arcguard.core.tool_call import read_agent
from arcguard.core.tool_call import read_call
from arcguard.errors import ArcguardError
from arcguard.hooks.runner import session_id
from arcguard.transcript import hook_reader
from arcguard.transcript.queued import queued_around
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.render import Decisions
    from arcguard.core.render import Output
    from arcguard.core.state import State
    from arcguard.core.tool_call import ToolCall
    from arcguard.hooks.payloads import BatchPayload
    from arcguard.hooks.runner import Context
    from arcguard.jsonio import JSONObject
    from arcguard.transcript.records import Message


def read(payload: JSONObject) -> BatchPayload | None:
    """The batch's calls, each with the text the model saw of its result (`tool_response`)."""
    sid = session_id(payload)
    agent = read_agent(payload)
    entries = payload.get("tool_calls")
    calls: list[tuple[ToolCall, ToolResult]] = []
    ids: set[str] = set()
    for entry in entries if isinstance(entries, list) else []:
        call = read_call(entry, agent) if isinstance(entry, dict) else None
        if call is None:
            continue
        calls.append((call, ToolResult(response=entry.get("tool_response", NO_RESPONSE))))
        if isinstance(entry.get("tool_use_id"), str):
            ids.add(call.id)
    if sid is None or not calls:
        return None
    return {
        "session_id": sid,
        "agent": agent,
        "calls": calls,
        "tool_use_ids": sorted(ids),
        "transcript_path": hook_reader.path_for(payload.get("transcript_path"), agent),
    }


class _NotOnDiskYet(ArcguardError):
    """A message the decision needs is not on disk yet: the turn's own (its rules would act
    on a guess) or an earlier turn's that was taken as tool-only (`ids`, to settle it)."""

    def __init__(self, ids: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.ids = ids


# One wait for the turn's own message and one for the earlier turn it settles.
_MAX_WAITS = 2


def handle(payload: JSONObject, ctx: Context) -> Output | None:
    given = read(payload)
    if given is None or not ctx.loop_guard_acts(given["session_id"]):
        return None
    own_ids = set(given["tool_use_ids"])
    found = _Found(_lookup(given, own_ids, ctx, 0.0), earlier={})
    for waits in range(_MAX_WAITS + 1):
        try:
            decided = _decide(given, found, ctx, may_wait=waits < _MAX_WAITS)
            return render.output(decided, "PostToolBatch")
        except _NotOnDiskYet as late:
            # Waited for outside the session's lock; then the turn is decided again.
            wait_s = ctx.wait_left(hook_reader.SETTLE_WAIT_S)
            if late.ids:
                found.earlier[late.ids] = _lookup(given, set(late.ids), ctx, wait_s)
                # Flushed after the earlier one, the turn's own message may be there too.
                found.own = found.own or _lookup(given, own_ids, ctx, 0.0)
            else:
                found.own = _lookup(given, own_ids, ctx, wait_s)
                found.own_final = True
    return None


@value
class _Found:
    """The messages looked up so far: the turn's own, and earlier turns' by their ids. One
    looked up after a wait is not waited for again."""

    own: Message | None
    earlier: dict[tuple[str, ...], Message | None]
    own_final: bool = False


def _lookup(given: BatchPayload, ids: set[str], ctx: Context, wait_s: float) -> Message | None:
    path = given["transcript_path"]
    if path is None:
        return None
    return hook_reader.message_with_tool(path, ids, ctx.cfg.tail_bytes, wait_s=wait_s)


def _turn_end(
    given: BatchPayload, message: Message | None, ctx: Context, *, unconfirmed: bool
) -> TurnEnd:
    path, agent = given["transcript_path"], given["agent"]
    # A turn whose message cannot be read (no transcript, or the message is beyond the
    # tail) is unknown, not tool-only: guessing "tool-only" would pause sessions that do
    # narrate.
    tool_only = True if unconfirmed else (None if message is None else not message.text)
    queued = (
        queued_around(path, message.id if message else None, ctx.cfg.tail_bytes)
        if path and agent is None
        else []
    )
    return TurnEnd(
        tool_only,
        calls=[call for call, _ in given["calls"]],
        agent=agent,
        tool_use_ids=given["tool_use_ids"],
        queued=queued,
        unconfirmed=unconfirmed,
        narration=message.text if message is not None and message.text else None,
    )


def _decide(
    given: BatchPayload, found: _Found, ctx: Context, *, may_wait: bool
) -> Decisions | None:
    sid, path, agent = given["session_id"], given["transcript_path"], given["agent"]
    message = found.own
    # Claude Code flushes its transcript on a timer, so the message of a quick turn is
    # often not on disk yet. Waiting for it on every turn would add that delay to most
    # tool calls; instead the turn is taken as tool-only for now (settled at the next
    # batch), and the wait is paid only when that guess would pause or nudge.
    unconfirmed = may_wait and not found.own_final and message is None and path is not None
    turn = _turn_end(given, message, ctx, unconfirmed=unconfirmed)

    def change(state: State | None) -> tuple[Decisions | None, State | None]:
        state = state or fresh_state(sid, ctx.now)
        # Outcomes first: a result never seen before is the progress the turn rules look for.
        state = turns.record_batch_results(state, ctx.cfg, ctx.now, given["calls"])
        state = _settle_unconfirmed(state, given, found, ctx, may_wait=may_wait)
        arc_active = goal.delegated(state, ctx.cfg, ctx.now)
        output, new = decide_post_batch(state, ctx.cfg, ctx.now, turn, arc_active=arc_active)
        if turn.unconfirmed and output is not None:
            raise _NotOnDiskYet
        turns.on_batch(new)
        if message is not None and agent is None:
            seen = StateFile.view(new).seen
            ids = seen.messages
            seen.messages = ids
            remember(ids, message.id, 16)
        return output, new

    return ctx.update(sid, change)


def _settle_unconfirmed(
    state: State, given: BatchPayload, found: _Found, ctx: Context, *, may_wait: bool
) -> State:
    """Settle the track's turn that was taken as tool-only before its message was on disk.

    A hook that answers in milliseconds (resident mode, an in-process callback) can reach the
    next batch before that message is written, so it is waited for here (outside the lock,
    by the caller) as the turn's own would be: whether a turn counts toward a cycle must not
    depend on how fast the hooks answered."""
    agent_id = given["agent"]
    track = StateFile.view(state).guard.tracks.get(track_key(agent_id))
    pending = track.unconfirmed if track is not None else None
    if pending is None:
        return state
    ids = tuple(pending.ids)
    if ids in found.earlier:
        message = found.earlier[ids]
    else:
        message = _lookup(given, set(ids), ctx, 0.0)
        if message is None and may_wait and given["transcript_path"] is not None:
            raise _NotOnDiskYet(ids)
    state = clone(state)
    confirm_turn(state, agent_id, narrated=None if message is None else bool(message.text))
    return state
