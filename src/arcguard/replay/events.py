"""Rebuild the hook events Claude Code would have sent for a recorded session, in order.

Pure: fed the transcript's parsed entries in file order, it returns for each entry the events
that fire before that entry is written (a prompt's UserPromptSubmit, a message's PreToolUse
calls once all its blocks are in, a tool's PostToolUse before its result, a turn's Stop when
the next prompt comes). `finish` gives the events still due at the end of the file.

It follows the live hooks' notion of a turn: one assistant `message.id` is one turn, however
many entries Claude Code split it into, even with a tool's result written between them. A
subagent's own transcript (every entry on the side chain) is replayed as that subagent's hooks
see it: tool events carrying `agent_id`, no prompt or Stop events (those are the parent's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcguard.core.loop_guard import background
from arcguard.core.loop_guard import opkey
from arcguard.core.state import short_id
from arcguard.core.tool_call import ToolCall
from arcguard.core.words.final_words import AUTONOMOUS
from arcguard.core.words.final_words import starts_autonomous
from arcguard.forensics import entries as kinds
from arcguard.storage.paths import SAFE_CHARS
from arcguard.transcript import records
from arcguard.values import value


if TYPE_CHECKING:
    from arcguard.jsonio import JSONObject
    from arcguard.transcript.records import Entry
    from arcguard.transcript.records import ToolResultBlock
    from arcguard.transcript.records import ToolUseBlock

REJECTED = "The user doesn't want to proceed"
STOP_FAILURE_ERRORS = {kinds.RATE_LIMIT: "rate_limit", kinds.OVERLOAD: "overloaded"}


@value
class HookEvent:
    """One hook call: which hook, the event's own payload fields, and what happened; `at`:
    when it fired, by the transcript's timestamps (None: not known)."""

    hook: str
    event: str
    fields: JSONObject
    turn: int
    what: str
    at: float | None = None


@value
class _Batch:
    """One message's calls and their responses so far; `broken`: the user rejected a call,
    so there is no batch event."""

    calls: list[ToolUseBlock]
    responses: dict[str, str]
    broken: bool = False


@value
class EventBuilder:
    """Start one with `EventBuilder.start()`.

    `refused`: the ids of calls Claude Code's input check refused, for which no hook ran
    (`opkey.refused_before_hooks`); they appear only in their turn's batch.
    `start_arc`: replay as if the first operator prompt had been `/autonomous <prompt>` (cleared
    once it has been). `subagents`: those whose entries older releases wrote into this, the
    parent's, file. `held_results`: results written inside their message. `system_error`: a
    failed attempt no reply has followed yet. `chain_active`: the previous Stop was blocked,
    so the next one says so. `sidechain_file`: decided by the first message entry. `clock`:
    the latest entry timestamp seen, as epoch seconds; `cwd`, the latest folder recorded.
    """

    subagents: dict[str, EventBuilder]
    refused: frozenset[str] = frozenset()
    start_arc: bool = False
    turn: int = 0
    started: bool = False
    pending: records.Message | None = None
    pending_error: str | None = None
    held_results: tuple[Entry, ...] = ()
    system_error: str | None = None
    after_local_command: bool = False
    turn_end: records.Message | None = None
    batch: _Batch | None = None
    chain_active: bool = False
    last_stop_fed_back: bool = False
    background: tuple[str, ...] = ()  # the ids of background work running, oldest first
    sidechain_file: bool | None = None
    agent_id: str | None = None
    clock: float | None = None
    cwd: str | None = None

    @classmethod
    def start(cls, *, arc: bool = False, refused: frozenset[str] = frozenset()) -> EventBuilder:
        return cls({}, refused, start_arc=arc)

    @property
    def total_turns(self) -> int:
        """This session's turns and those of the subagents stored inside its file."""
        return self.turn + sum(sub.turn for sub in self.subagents.values())

    def owner(self, entry: Entry) -> str | None:
        """The agent id of the subagent an entry of this file belongs to (None: this session's
        own, or a subagent's own file)."""
        if self.sidechain_file is not False or entry.get("isSidechain") is not True:
            return None
        sub = self.subagents.get(_agent_key(entry))
        return None if sub is None else sub.agent_id

    # --- entries -------------------------------------------------------------------------

    def feed(self, entry: Entry) -> list[HookEvent]:
        out: list[HookEvent] = []
        self._tick(entry)
        kind = entry.get("type")
        if not self.started and kind in ("user", "assistant"):
            self.started = True
            self._begin(entry, out)
        if entry.get("isSidechain") is True:
            if self.sidechain_file is False:
                # Older releases wrote a subagent's entries into its parent's file: they are
                # that subagent's turns and tool calls, replayed as if in a file of its own.
                return out + self._subagent(entry).feed(entry)
            if self.sidechain_file is None:
                return out  # before any message: nothing to tell whose it is
            entry = entry.copy()
            entry["isSidechain"] = False  # a subagent's own file: its main chain
        if kind == "assistant":
            self._assistant(entry, out)
        elif kind == "user":
            self._user(entry, out)
        elif kind == "attachment":
            self._attachment(entry, out)
        elif kind == "system":
            self._system(entry, out)
        return out

    def _tick(self, entry: Entry) -> None:
        """An event fires just before the entry it is fed with is written: at its time, in its
        folder. The clock never runs backwards (parallel calls' entries come in any order)."""
        at, self.cwd = _epoch(entry.get("timestamp")), entry.get("cwd") or self.cwd
        if at is not None and (self.clock is None or at > self.clock):
            self.clock = at

    def _subagent(self, entry: Entry) -> EventBuilder:
        key = _agent_key(entry)
        sub = self.subagents.get(key)
        if sub is None:
            sub = self.subagents[key] = EventBuilder.start(refused=self.refused)
        return sub

    def _begin(self, first: Entry, out: list[HookEvent]) -> None:
        self.sidechain_file = first.get("isSidechain") is True
        if not self.sidechain_file:
            out.append(
                self._event(
                    "session-start", "SessionStart", {"source": "startup"}, "session started"
                )
            )
            return
        agent = first.get("agentId")
        # The id names the subagent's transcript file: only a plain name is used as given.
        plain = agent is not None and agent[:1] not in ("", ".") and set(agent) <= SAFE_CHARS
        self.agent_id = agent if plain else "replayed"

    def _system(self, entry: Entry, out: list[HookEvent]) -> None:
        failed = kinds.system_error_kind(entry)
        if failed is not None:
            self._finish_message(out)
            self.system_error = failed
        elif entry.get("subtype") == "compact_boundary":
            self._finish_message(out)
            self._close_turn(out, None)  # the turn ended before the compaction
            if not self.sidechain_file:
                out.append(
                    self._event(
                        "session-start", "SessionStart", {"source": "compact"}, "context compacted"
                    )
                )

    def _attachment(self, entry: Entry, out: list[HookEvent]) -> None:
        if kinds.stop_continuation(entry) is not None:
            # A Stop hook's additionalContext (2.1.163 and newer): the turn ended, its Stop
            # fired and sent the model back to work, as "Stop hook feedback:" says on older.
            self._finish_message(out)
            self._close_turn(out, kinds.STOP_FEEDBACK)
            self._failed_ending(out)
            self.after_local_command = False
            return
        queued = kinds.classify_queued(entry)
        if queued is None:
            return
        # Delivered after a message's results, in a turn that goes on: a prompt, not a turn
        # end.
        self._finish_message(out)
        self._prompt(queued[0], queued[1], out)

    def finish(self) -> list[HookEvent]:
        out: list[HookEvent] = []
        for sub in self.subagents.values():
            out += sub.finish()
        self._finish_message(out)
        self._close_turn(out, None)
        self._failed_ending(out)
        return out

    def after_stop(self, blocked: bool) -> None:
        """The replayed Stop's result: a block (ours or the recorded hook's) chains the next."""
        self.chain_active = blocked or self.last_stop_fed_back

    # --- assistant messages --------------------------------------------------------------

    def _assistant(self, entry: Entry, out: list[HookEvent]) -> None:
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
        held, self.held_results = self.held_results, ()
        if self.pending_error is not None:
            self.system_error = None  # the same failure, written once more as a message
            self._stop_failure(self.pending_error, message.text, out)
            return
        if message.synthetic:
            if not self.after_local_command:
                self.turn_end = message
            return  # a local command's placeholder: no model call, so no Stop either
        self.system_error = None  # a retry got through
        self.after_local_command = False
        self.turn += 1
        if not message.tool_uses:
            self.turn_end = message
            return
        calls = [c for c in message.tool_uses if "name" in c]
        self.batch = _Batch(calls, {})
        for call in [c for c in calls if c.get("id") not in self.refused]:
            out.append(
                self._event(
                    "pre-tool",
                    "PreToolUse",
                    self._agent(
                        {
                            "tool_name": call["name"],
                            "tool_input": call.get("input"),
                            "tool_use_id": call.get("id"),
                        }
                    ),
                    opkey.label(ToolCall(call["name"], call.get("input"))),
                )
            )
        for entry in held:
            self._results(entry, out)

    def _stop_failure(self, kind: str, text: str, out: list[HookEvent]) -> None:
        if self.sidechain_file:
            return  # a subagent's failure ends the parent's turn, not one of its own
        error = STOP_FAILURE_ERRORS.get(kind, "unknown")
        out.append(
            self._event(
                "stop-failure",
                "StopFailure",
                {"error": error, "last_assistant_message": text},
                f"API error ({error})",
            )
        )

    def _failed_ending(self, out: list[HookEvent]) -> None:
        """A failed attempt that no reply followed: the turn ended on it."""
        kind, self.system_error = self.system_error, None
        if kind is not None:
            self._stop_failure(kind, f"API Error ({kind})", out)

    # --- user entries --------------------------------------------------------------------

    def _user(self, entry: Entry, out: list[HookEvent]) -> None:
        kind, text = kinds.classify_user(entry)
        if kind == kinds.TOOL_RESULT:
            if self.pending is not None:
                # Streamed: a call ran while its message was still being written. The turn
                # is the whole message, so its results wait for the message's last entry.
                self.held_results += (entry,)
            else:
                self._results(entry, out)
            return
        self._finish_message(out)
        self._close_turn(out, kind)
        if kind in (kinds.OPERATOR, kinds.TASK_NOTIFICATION, kinds.STOP_FEEDBACK):
            self._failed_ending(out)
        self.after_local_command = kind == kinds.LOCAL_OUTPUT or (
            kind == kinds.OPERATOR and text.startswith("/")
        )
        self._prompt(kind, text, out)

    def _prompt(self, kind: str, text: str, out: list[HookEvent]) -> None:
        if kind not in (kinds.OPERATOR, kinds.TASK_NOTIFICATION) or self.sidechain_file:
            return  # a subagent's task arrives as its first entry, not as a prompt event
        if kind == kinds.OPERATOR:
            self.chain_active = False
            if self.start_arc:
                self.start_arc = False
                if not starts_autonomous(text):
                    text = f"{AUTONOMOUS} {text}"
        else:
            self.background = background.still_running(self.background, text)
        out.append(self._event("posture", "UserPromptSubmit", {"prompt": text}, text))

    def _results(self, entry: Entry, out: list[HookEvent]) -> None:
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
            if call["id"] not in self.refused:  # only the batch shows it
                self._post(call, block, text, structured, out)
        if len(batch.responses) == len(batch.calls):
            self.batch = None
            if not batch.broken:
                out.append(self._batch_event(batch))

    def _post(
        self,
        call: ToolUseBlock,
        block: ToolResultBlock,
        text: str,
        structured: object,
        out: list[HookEvent],
    ) -> None:
        base: JSONObject = self._agent(
            {
                "tool_name": call["name"],
                "tool_input": call.get("input"),
                "tool_use_id": call.get("id"),
            }
        )
        label = opkey.label(ToolCall(call["name"], call.get("input")))
        if block.get("is_error") is True:
            if kinds.hook_denial(text) is not None:
                # A hook denied it: no post event, but Claude Code still runs the batch's
                # PostToolBatch, with the deny text as the call's response.
                return
            if text.startswith(REJECTED):
                assert self.batch is not None
                self.batch.broken = True  # the call never ran: no post event
                return
            out.append(
                self._event(
                    "post-tool", "PostToolUseFailure", {**base, "error": text}, f"{label} failed"
                )
            )
            return
        response = structured if structured is not None else text
        task = background.launched_by(response, call.get("id") or "", call["name"])
        if task is not None:  # Claude Code lists it in the Stop's `background_tasks`
            self.background = (*self.background, short_id(task))
        out.append(
            self._event(
                "post-tool", "PostToolUse", {**base, "tool_response": response}, f"{label} finished"
            )
        )

    def _batch_event(self, batch: _Batch) -> HookEvent:
        calls = [
            {
                "tool_name": c["name"],
                "tool_input": c.get("input"),
                "tool_use_id": c["id"],
                "tool_response": batch.responses.get(c["id"], ""),
            }
            for c in batch.calls
        ]
        return self._event(
            "post-batch",
            "PostToolBatch",
            self._agent({"tool_calls": calls}),
            f"{len(calls)} call(s) done",
        )

    # --- turn ends -----------------------------------------------------------------------

    def _close_turn(
        self, out: list[HookEvent], next_kind: str | None, *, next_is_model: bool = False
    ) -> None:
        """The final message of a turn gets its Stop once we know the turn really ended."""
        message, self.turn_end = self.turn_end, None
        if message is None or next_is_model or next_kind == kinds.INTERRUPT:
            return  # Stop does not fire on an interrupt
        if self.sidechain_file:
            return  # a subagent's turn end is SubagentStop, which arcguard does not handle
        self.last_stop_fed_back = next_kind == kinds.STOP_FEEDBACK
        tasks = [{"id": task, "status": "running"} for task in self.background]
        out.append(
            self._event(
                "stop",
                "Stop",
                {
                    "stop_hook_active": self.chain_active,
                    "last_assistant_message": message.text,
                    "background_tasks": tasks,
                },
                message.text,
            )
        )

    def _agent(self, fields: JSONObject) -> JSONObject:
        """A subagent's tool events name it, as Claude Code's do."""
        return fields if self.agent_id is None else {**fields, "agent_id": self.agent_id}

    def _event(self, hook: str, event: str, fields: JSONObject, what: str) -> HookEvent:
        given = {"cwd": self.cwd, **fields} if self.cwd else fields  # as Claude Code gives it
        return HookEvent(hook, event, given, self.turn, what, self.clock)


def _epoch(stamp: object) -> float | None:
    """Epoch seconds of an ISO-8601 entry timestamp ("2026-02-10T21:11:56.906Z"), or None."""
    if not isinstance(stamp, str) or not stamp:
        return None
    from datetime import datetime

    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _agent_key(entry: Entry) -> str:
    """Which subagent a side-chain entry of a parent's file belongs to (one unnamed group when
    the release wrote no id)."""
    return entry.get("agentId", "")
