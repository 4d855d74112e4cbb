"""Rebuild the hook events Claude Code would have sent for a recorded session, in order.

Pure: fed the transcript's parsed entries in file order, it returns for each entry the events
that fire before that entry is written (a prompt's UserPromptSubmit, a message's PreToolUse
calls once all its blocks are in, a tool's PostToolUse before its result, a turn's Stop when
the next prompt comes). `finish` gives the events still due at the end of the file.
"""

from __future__ import annotations

from arcguard.core import opkey
from arcguard.forensics import entries as kinds
from arcguard.transcript import records


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

REJECTED = "The user doesn't want to proceed"
HOOK_DENIED = "hook error:"
ASYNC_AGENT = "Async agent launched"
STOP_FAILURE_ERRORS = {kinds.RATE_LIMIT: "rate_limit", kinds.OVERLOAD: "overloaded"}


class HookEvent:
    """One hook call: which hook, the event's own payload fields, and what happened."""

    __slots__ = ("event", "fields", "hook", "turn", "what")

    def __init__(self, hook: str, event: str, fields: dict[str, Any], turn: int,
                 what: str) -> None:
        self.hook = hook
        self.event = event
        self.fields = fields
        self.turn = turn
        self.what = what


class _Batch:
    def __init__(self, calls: list[dict[str, Any]]) -> None:
        self.calls = calls
        self.responses: dict[str, str] = {}
        self.broken = False  # a call was rejected or denied by a hook: no batch event


class EventBuilder:
    def __init__(self) -> None:
        self.turn = 0
        self.started = False
        self.pending: records.Message | None = None
        self.pending_error: str | None = None
        self.turn_end: records.Message | None = None
        self.batch: _Batch | None = None
        self.chain_active = False  # the previous Stop was blocked: the next one says so
        self.last_stop_fed_back = False
        self.background = 0

    # --- entries -------------------------------------------------------------------------

    def feed(self, entry: dict[str, Any]) -> list[HookEvent]:
        out: list[HookEvent] = []
        if not self.started and entry.get("type") in ("user", "assistant"):
            self.started = True
            out.append(self._event("session-start", "SessionStart", {"source": "startup"},
                                   "session started"))
        kind = entry.get("type")
        if kind == "assistant" and entry.get("isSidechain") is not True:
            self._assistant(entry, out)
        elif kind == "user" and entry.get("isSidechain") is not True:
            self._user(entry, out)
        elif kind == "system" and entry.get("subtype") == "compact_boundary":
            self._finish_message(out)
            self._close_turn(out, None)  # the turn ended before the compaction
            out.append(self._event("session-start", "SessionStart", {"source": "compact"},
                                   "context compacted"))
        return out

    def finish(self) -> list[HookEvent]:
        out: list[HookEvent] = []
        self._finish_message(out)
        self._close_turn(out, None)
        return out

    def after_stop(self, blocked: bool) -> None:
        """The replayed Stop's result: a block (ours or the recorded hook's) chains the next."""
        self.chain_active = blocked or self.last_stop_fed_back

    # --- assistant messages --------------------------------------------------------------

    def _assistant(self, entry: dict[str, Any], out: list[HookEvent]) -> None:
        mid = records.assistant_message_id(entry)
        if mid is None:
            return
        if self.pending is not None and self.pending.id != mid:
            self._finish_message(out)
        if self.pending is None:
            self._close_turn(out, None, next_is_model=True)
            self.pending = records.Message(mid)
            self.pending_error = None
        self.pending.add_entry(entry)
        if kinds.is_api_error(entry):
            self.pending_error = kinds.api_error_kind(entry)

    def _finish_message(self, out: list[HookEvent]) -> None:
        message, self.pending = self.pending, None
        if message is None:
            return
        if self.pending_error is not None:
            error = STOP_FAILURE_ERRORS.get(self.pending_error, "unknown")
            out.append(self._event("stop-failure", "StopFailure",
                                   {"error": error, "last_assistant_message": message.text},
                                   f"API error ({error})"))
            return
        if not message.synthetic:
            self.turn += 1
        if not message.tool_uses:
            self.turn_end = message
            return
        calls = [c for c in message.tool_uses if isinstance(c.get("name"), str)]
        self.batch = _Batch(calls)
        for call in calls:
            out.append(self._event("pre-tool", "PreToolUse", {
                "tool_name": call["name"], "tool_input": call.get("input"),
                "tool_use_id": call.get("id")}, opkey.label(call["name"], call.get("input"))))

    # --- user entries --------------------------------------------------------------------

    def _user(self, entry: dict[str, Any], out: list[HookEvent]) -> None:
        kind, text = kinds.classify_user(entry)
        self._finish_message(out)
        if kind == kinds.TOOL_RESULT:
            self._results(entry, out)
            return
        self._close_turn(out, kind)
        if kind in (kinds.OPERATOR, kinds.TASK_NOTIFICATION):
            if kind == kinds.OPERATOR:
                self.chain_active = False
            else:
                self.background = max(0, self.background - 1)
            out.append(self._event("posture", "UserPromptSubmit", {"prompt": text}, text))

    def _results(self, entry: dict[str, Any], out: list[HookEvent]) -> None:
        batch = self.batch
        if batch is None:
            return
        by_id = {c.get("id"): c for c in batch.calls}
        structured = entry.get("toolUseResult")
        for block in kinds.tool_results(entry):
            call = by_id.get(block.get("tool_use_id"))
            if call is None or call.get("id") in batch.responses:
                continue
            text = kinds.result_text(block)
            batch.responses[call["id"]] = text
            self._post(call, block, text, structured, out)
        if len(batch.responses) == len(batch.calls):
            self.batch = None
            if not batch.broken:
                out.append(self._batch_event(batch))

    def _post(self, call: dict[str, Any], block: dict[str, Any], text: str, structured: object,
              out: list[HookEvent]) -> None:
        base = {"tool_name": call["name"], "tool_input": call.get("input"),
                "tool_use_id": call.get("id")}
        label = opkey.label(call["name"], call.get("input"))
        if block.get("is_error") is True:
            if text.startswith(REJECTED) or (text.startswith("PreToolUse:") and (
                    HOOK_DENIED in text[:80])):
                assert self.batch is not None
                self.batch.broken = True  # the call never ran: no post event
                return
            out.append(self._event("post-tool", "PostToolUseFailure",
                                   {**base, "error": text}, f"{label} failed"))
            return
        if ASYNC_AGENT in text[:200]:
            self.background += 1
        response = structured if structured is not None else text
        out.append(self._event("post-tool", "PostToolUse", {**base, "tool_response": response},
                               f"{label} finished"))

    def _batch_event(self, batch: _Batch) -> HookEvent:
        calls = [{"tool_name": c["name"], "tool_input": c.get("input"), "tool_use_id": c["id"],
                  "tool_response": batch.responses.get(c["id"], "")} for c in batch.calls]
        return self._event("post-batch", "PostToolBatch", {"tool_calls": calls},
                           f"{len(calls)} call(s) done")

    # --- turn ends -----------------------------------------------------------------------

    def _close_turn(self, out: list[HookEvent], next_kind: str | None, *,
                    next_is_model: bool = False) -> None:
        """The final message of a turn gets its Stop once we know the turn really ended."""
        message, self.turn_end = self.turn_end, None
        if message is None or next_is_model or next_kind == kinds.INTERRUPT:
            return  # Stop does not fire on an interrupt
        self.last_stop_fed_back = next_kind == kinds.STOP_FEEDBACK
        tasks = [{"id": f"task-{i}", "type": "subagent", "status": "running"}
                 for i in range(self.background)]
        out.append(self._event("stop", "Stop", {
            "stop_hook_active": self.chain_active, "last_assistant_message": message.text,
            "background_tasks": tasks}, message.text))

    def _event(self, hook: str, event: str, fields: dict[str, Any], what: str) -> HookEvent:
        return HookEvent(hook, event, fields, self.turn, what)
