"""Stop: decide whether a turn's end is a stall to send back to work.

The final message comes from the payload's `last_assistant_message` when it has text; the
transcript is read then only for a message saying the work is done mid-arc, to see the failed
calls it answers (`_written`). Otherwise the transcript tail is read, waiting (bounded by the
drain budget) while its newest assistant message is one already seen at earlier hook events, is
still thinking-only, or ends in tool use, or while a tool result is newer than it: Claude Code
may fire Stop before it has flushed the final entry. The wait does not rely on other hooks
having recorded the previous message (older releases lack the event that records it).
"""

from __future__ import annotations

import time

from arcguard.core import render
from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper import goal
from arcguard.core.arc_keeper import handback
from arcguard.core.arc_keeper.stop import CAP_ENV
from arcguard.core.arc_keeper.stop import KIND_EMPTY
from arcguard.core.arc_keeper.stop import KIND_THINKING
from arcguard.core.arc_keeper.stop import KIND_TOOL_USE
from arcguard.core.arc_keeper.stop import POLICY_NOOP
from arcguard.core.arc_keeper.stop import Final
from arcguard.core.arc_keeper.stop import Harness
from arcguard.core.arc_keeper.stop import Signals
from arcguard.core.arc_keeper.stop import claude_stop_cap
from arcguard.core.arc_keeper.stop import decide_stop
from arcguard.core.arc_keeper.stop import is_noop
from arcguard.core.schema import StateFile
from arcguard.core.words.final_words import is_resume_prompt
from arcguard.hooks import turn_fallback
from arcguard.hooks.runner import path_of
from arcguard.hooks.runner import session_id
from arcguard.hooks.runner import text_of
from arcguard.transcript import hook_reader


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from arcguard.core.render import Decisions
    from arcguard.core.render import Output
    from arcguard.core.state import State
    from arcguard.hooks.payloads import StopPayload
    from arcguard.hooks.runner import Context
    from arcguard.jsonio import JSONObject
    from arcguard.transcript.records import Exchange

POLL_S = 0.05


def _background_running(tasks: object) -> bool | None:
    """`background_tasks` lists a task whose status is "running" (None: no such list, as from
    releases before 2.1.145)."""
    if not isinstance(tasks, list):
        return None
    return any(isinstance(t, dict) and t.get("status") == "running" for t in tasks)


def _final(exchange: Exchange | None) -> Final | None:
    message = exchange.message if exchange is not None else None
    if message is None:
        return None
    return Final(
        message.kind,
        message.text,
        synthetic=message.synthetic,
        message_id=message.id,
        resume_id=_resume_id(exchange),
        failures=exchange.failures if exchange is not None else (),
    )


def _resume_id(exchange: Exchange | None) -> str | None:
    """The id of Claude Code's resume prompt when the final message answers one."""
    if exchange is None or exchange.meta_prompt is None or exchange.message is None:
        return None
    if not is_resume_prompt(exchange.meta_prompt):
        return None
    return exchange.meta_prompt_id or exchange.message.id


def _drain(path: str, seen: set[str], ctx: Context, *, final_known: bool) -> Final | None:
    """The final message, waiting (within the drain budget) while the transcript cannot yet
    hold it: the newest message is old news, still thinking only, or ends in tool use (never a
    final message), or a tool result has no answer yet.

    `final_known`: Claude Code said the final message has no text (see `_final_is_textless`),
    so a fresh thinking-only message is final, not an intermediate worth waiting on.
    """
    exchange, ready = _tail_until(path, ctx, lambda e: _is_final(e, seen, final_known=final_known))
    if not ready and exchange is not None and exchange.result_pending:
        # Some releases write nothing for an empty final reply: the tool result stays the
        # newest entry, and the model said nothing after it.
        return Final(KIND_EMPTY)
    return _final(exchange)


def _tail_until(
    path: str, ctx: Context, ready: Callable[[Exchange], bool]
) -> tuple[Exchange | None, bool]:
    """The transcript's end, read again (within the drain budget) until it is `ready`; the last
    read and whether it was: Claude Code may fire Stop before it has flushed the turn."""
    deadline = time.monotonic() + ctx.wait_left(ctx.cfg.drain_ms / 1000.0)
    while True:
        exchange = hook_reader.last_exchange(path, ctx.cfg.tail_bytes)
        if exchange is not None and ready(exchange):
            return exchange, True
        if time.monotonic() + POLL_S > deadline:
            return exchange, False
        time.sleep(POLL_S)


def _is_final(exchange: Exchange, seen: set[str], *, final_known: bool) -> bool:
    message = exchange.message
    if exchange.result_pending or message is None or message.id in seen:
        return False
    if message.kind == KIND_TOOL_USE:
        return False  # its results and the model's answer to them are still to come
    return final_known or message.kind != KIND_THINKING


def _newer_release(payload: JSONObject) -> bool:
    """The payload comes from a release that says whether the final message has text.

    Since 2.1.47 Claude Code puts the final text in `last_assistant_message`; observed with
    2.1.328, it leaves the key out when the final message has no visible text. A payload that
    has the newer `background_tasks`/`session_crons` fields comes from such a version.
    """
    return (
        "last_assistant_message" in payload
        or "background_tasks" in payload
        or "session_crons" in payload
    )


def read(payload: JSONObject) -> StopPayload | None:
    sid = session_id(payload)
    if sid is None:
        return None
    return {
        "session_id": sid,
        "transcript_path": path_of(payload, "transcript_path"),
        "last_assistant_message": text_of(payload, "last_assistant_message"),
        "stop_hook_active": payload.get("stop_hook_active") is True,
        "background_running": _background_running(payload.get("background_tasks")),
        "newer_release": _newer_release(payload),
    }


def _from_payload(text: str, path: str | None, ctx: Context, mid_arc: set[str] | None) -> Final:
    """The final message from the payload's text; `mid_arc`: the message ids the Stop hook has
    seen, when an arc under a policy that may send a stop back is active (else None)."""
    final = Final.from_text(text)
    if path and is_noop(final):
        # A no-op may be a synthetic entry (an API error, a local command's placeholder, the
        # answer to Claude Code's resume prompt): the transcript says which.
        exchange = hook_reader.last_exchange(path, ctx.cfg.tail_bytes)
        message = exchange.message if exchange is not None else None
        if message is not None and message.synthetic and message.text == text.strip():
            final.synthetic = True
        final.resume_id = _resume_id(exchange)
    elif path and mid_arc is not None and handback.says_done(text):
        found = _written(path, text, mid_arc, ctx)
        if found is not None and found.message is not None and found.failures:
            # Marked seen, so that the same words said again are read from their own message.
            final.failures, final.message_id = found.failures, found.message.id
    return final


def _written(path: str, text: str, seen: set[str], ctx: Context) -> Exchange | None:
    """The transcript's end once it holds the final message `text` (a message not `seen` whose
    text holds it: the payload keeps only the last block's), for the failed calls that message
    answers (`_tail_until`). None when it never shows: nothing is judged on what is unseen."""

    def holds(exchange: Exchange) -> bool:
        message = exchange.message
        return message is not None and message.id not in seen and text.strip() in message.text

    exchange, ready = _tail_until(path, ctx, holds)
    return exchange if ready else None


def _harness(path: str | None, ctx: Context, *, may_continue: bool) -> Harness:
    """What the transcript and the environment say of the Claude Code running this hook.

    The release comes from the transcript, whose every entry carries the `version` of the
    Claude Code that wrote it: that is the release running now, even after an upgrade that no
    settings file or install step saw (neither the payload nor the environment names it).
    Early in a session the transcript may hold nothing yet, so it is waited for as briefly as
    any other entry. No version: `decision: block` and Claude Code's cap assumed, which is
    right on every release.
    """
    cap = claude_stop_cap(ctx.environ.get(CAP_ENV))
    if not path:
        return Harness(stop_cap=cap)
    # Only a stop that may be continued (or that holds a goal) reads the release.
    from arcguard.claude_settings import releases

    wait = ctx.wait_left(hook_reader.SETTLE_WAIT_S) if may_continue else 0.0
    marks = hook_reader.tail_marks(path, ctx.cfg.tail_bytes, wait_s=wait)
    version = releases.from_dotted(marks.version) if marks.version else None
    if version is not None and not releases.has_stop_cap(version):
        cap = 0
    return Harness(
        via_context=releases.continues_with_context(version),
        goal=goal.Mark(*marks.goal) if marks.goal is not None else None,
        overrides=marks.overrides,
        stop_cap=cap,
    )


def _mid_arc(snapshot: State, ctx: Context) -> set[str] | None:
    """The message ids the Stop hook has seen, when a stop may be sent back for what the calls
    before it printed: an arc is active and `stop_policy` is not `noop`."""
    view = StateFile.view(snapshot)
    if ctx.cfg.stop_policy == POLICY_NOOP or not arcs.is_active(view.arc, ctx.cfg, ctx.now):
        return None
    return set(view.seen.messages)


def handle(payload: JSONObject, ctx: Context) -> Output | None:
    given = read(payload)
    if given is None:
        return None
    snapshot = ctx.snapshot(given["session_id"])
    if snapshot is None:
        return None
    path = given["transcript_path"]
    text = given["last_assistant_message"]
    if text is not None and text.strip():
        final: Final | None = _from_payload(text, path, ctx, _mid_arc(snapshot, ctx))
    elif path and arcs.is_active(StateFile.view(snapshot).arc, ctx.cfg, ctx.now):
        seen = set(StateFile.view(snapshot).seen.messages)
        final = _drain(path, seen, ctx, final_known=given["newer_release"])
    elif path:
        # No arc: only a dead resume could be continued, and its entries are already written.
        final = _final(hook_reader.last_exchange(path, ctx.cfg.tail_bytes))
    else:
        final = None
    # Only a stop that may be continued needs to know how (a continuation is worded per
    # release): the others pay no transcript read.
    may_continue = final is not None and (
        arcs.is_active(StateFile.view(snapshot).arc, ctx.cfg, ctx.now) or bool(final.resume_id)
    )
    # Read also while the state holds a goal, so that one met or cleared stops counting.
    harness = (
        _harness(path, ctx, may_continue=may_continue)
        if may_continue or goal.active(snapshot)
        else None
    )

    guarded = ctx.loop_guard_acts(given["session_id"])

    def change(state: State | None) -> tuple[Decisions | None, State | None]:
        # A turn left open (no PostToolBatch on this release) is over: its rules run first,
        # so a pause they bring is seen by the stop decision.
        closed, closed_state = (
            turn_fallback.at_stop(state, ctx, path or None) if guarded else (None, None)
        )
        signals = Signals(
            final,
            given["stop_hook_active"],
            given["background_running"],
            harness,
            calls_seen=guarded,
        )
        output, new = decide_stop(closed_state or state, signals, ctx.cfg, ctx.now)
        return render.merge(closed, output), new or closed_state

    decided = ctx.update(given["session_id"], change)
    return render.output(decided, "Stop", via_context=harness is not None and harness.via_context)
