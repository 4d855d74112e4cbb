"""PostToolBatch: one assistant turn's calls are done; blocked rounds, cycles, nudges, backstop.

The transcript around the turn is also read for commands queued while the model worked
(`arcguard.transcript.queued`): the operator's typed prompts and the harness's task
notifications.
"""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.arc_keeper import goal
from arcguard.core.loop_guard import cycle_run
from arcguard.core.loop_guard import turns
from arcguard.core.loop_guard.guard import TurnEnd
from arcguard.core.loop_guard.guard import decide_post_batch
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
    """The decision was taken on turns whose messages are not on disk yet, and would act:
    their tool-use ids (`pending`, oldest first) say what to wait for before deciding again."""

    def __init__(self, pending: list[list[str]]) -> None:
        super().__init__()
        self.pending = pending


def handle(payload: JSONObject, ctx: Context) -> Output | None:
    given = read(payload)
    if given is None or not ctx.loop_guard_acts(given["session_id"]):
        return None
    found = _Found(_lookup(given, set(given["tool_use_ids"]), 0.0, ctx), final={})
    try:
        return render.output(_decide(given, found, ctx), "PostToolBatch")
    except _NotOnDiskYet as late:
        # Waited for outside the session's lock, then the turn is decided again on what the
        # transcript says: messages are written in order, so one wait for the newest will do.
        wait_s = ctx.wait_left(hook_reader.SETTLE_WAIT_S)
        for n, ids in enumerate(reversed(late.pending)):
            found.final[tuple(ids)] = _lookup(given, set(ids), wait_s if n == 0 else 0.0, ctx)
        found.own = found.own or _lookup(given, set(given["tool_use_ids"]), 0.0, ctx)
        found.waited = True
        return render.output(_decide(given, found, ctx), "PostToolBatch")


@value
class _Found:
    """The messages looked up so far: the turn's own, and pending turns' after the wait
    (`final`, by their ids). After the wait, a message not found is taken as never to be."""

    own: Message | None
    final: dict[tuple[str, ...], Message | None]
    waited: bool = False


def _lookup(given: BatchPayload, ids: set[str], wait_s: float, ctx: Context) -> Message | None:
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


def _decide(given: BatchPayload, found: _Found, ctx: Context) -> Decisions | None:
    sid, path, agent = given["session_id"], given["transcript_path"], given["agent"]
    message = found.own
    # Claude Code flushes its transcript on a timer, so the message of a quick turn is
    # often not on disk yet. Waiting for it on every turn would add that delay to most
    # tool calls; instead the turn is kept pending, and the wait is paid only when the
    # decision taken on its guess would act.
    unconfirmed = not found.waited and message is None and path is not None
    turn = _turn_end(given, message, ctx, unconfirmed=unconfirmed)

    def change(state: State | None) -> tuple[Decisions | None, State | None]:
        state = state or fresh_state(sid, ctx.now)
        reported = set(StateFile.view(state).guard.resolved)  # failures, and edits, so far
        # Outcomes first: a result never seen before is the progress the turn rules look for.
        state = turns.record_batch_results(state, ctx.cfg, ctx.now, given["calls"])
        if StateFile.view(state).arc is not None:
            # Only an arc watches for the checks its task names, so only then is that loaded.
            from arcguard.core.arc_keeper import named_checks

            named_checks.observe_batch(state, given["calls"], reported)
        state = _settle_pending(state, given, found, ctx)
        arc_active = goal.delegated(state, ctx.cfg, ctx.now)
        output, new = decide_post_batch(state, ctx.cfg, ctx.now, turn, arc_active=arc_active)
        pending = cycle_run.pending_ids(new, agent)
        if pending and (output is not None or cycle_run.too_many(pending)):
            raise _NotOnDiskYet(pending)
        turns.on_batch(new)
        if message is not None and agent is None:
            seen = StateFile.view(new).seen
            ids = seen.messages
            seen.messages = ids
            remember(ids, message.id, 16)
        return output, new

    return ctx.update(sid, change)


def _settle_pending(state: State, given: BatchPayload, found: _Found, ctx: Context) -> State:
    """Count the earlier turns that were kept pending, as far as their messages are on disk.

    A hook that answers in milliseconds (resident mode, an in-process callback) can reach the
    next batch before Claude Code writes the previous turn's message: whether a turn counts
    toward a cycle must not depend on how fast the hooks answered."""
    agent = given["agent"]
    pending = cycle_run.pending_ids(state, agent)
    if not pending:
        return state
    readings: list[cycle_run.Reading | None] = []
    for ids in pending:
        key = tuple(ids)
        final = key in found.final
        message = found.final[key] if final else _lookup(given, set(ids), 0.0, ctx)
        if message is None and not final and given["transcript_path"] is not None:
            break  # not on disk yet: it and the turns after it stay pending
        readings.append(_reading(message))
    if not readings:
        return state
    state = clone(state)
    cycle_run.settle(state, ctx.cfg, agent, readings)
    return state


def _reading(message: Message | None) -> cycle_run.Reading:
    if message is None:
        return cycle_run.Reading(None)
    return cycle_run.Reading(not message.text, message.text or None)
