"""A recorded session as a timeline of turns: what the operator, the model, its tools and the
harness did, in order, with the transcript's times.

Pure: fed the parsed entries in file order (`TimelineBuilder.feed`), it rebuilds the hook events
with the replay's own `EventBuilder`, so turn numbers are the ones arcguard's decisions carry,
and reads from the entries what the events do not say (the model's narration, what a hook did
in the recorded session, in every form the supported releases write it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcguard.core.words.final_words import is_task_notification
from arcguard.forensics import entries as kinds
from arcguard.replay.events import REJECTED
from arcguard.replay.events import EventBuilder
from arcguard.values import value


if TYPE_CHECKING:
    from arcguard.replay.events import HookEvent
    from arcguard.transcript.records import Entry

# Item kinds, in the words the report shows.
PROMPT = "prompt"  # the operator typed (or queued) it
NOTIFICATION = "notification"  # the harness woke the session
TEXT = "text"  # the model's words
TOOLS = "tools"  # one turn's calls, each with its outcome
COMPACTION = "compaction"
CONTINUATION = "continuation"  # a Stop hook sent the model back (recorded)
PAUSE = "pause"  # a hook ended the session (recorded)
INTERRUPT = "interrupt"
LIMIT = "limit"  # the turn ended on an API error
RESUME = "resume"  # the first sign of life after one, with the dead time
WAIT = "wait"  # a long quiet stretch otherwise: a long call, or nobody at the keyboard

WAIT_SECONDS = 600  # shorter gaps are the session's ordinary pace

OK, FAILED, DENIED, REJECTED_BY_USER = "ok", "failed", "denied", "rejected"


@value
class Call:
    label: str
    tool: str
    outcome: str = "pending"


@value
class Item:
    """One thing that happened. `seconds`: a resume's dead time; `calls`: a tools item's."""

    kind: str
    turn: int
    at: float | None
    text: str = ""
    calls: list[Call] | None = None
    seconds: float | None = None
    final: bool = False  # the model's last words of its turn (a Stop fired on them)


@value
class Timeline:
    """`events`: every hook event of the recorded session, in the order the replay fires them
    (a replay stops at a pause; what happened next is read from these)."""

    items: list[Item]
    calls: dict[str, Call]
    builder: EventBuilder
    events: list[HookEvent]
    early: dict[str, str]  # outcomes read before their call's event (streamed messages)
    limit_at: float | None = None
    limit_open: bool = False
    error_at: float | None = None  # the first failed attempt of the turn, as recorded

    @classmethod
    def start(cls, *, arc: bool = False, refused: frozenset[str] = frozenset()) -> Timeline:
        """`refused`: as `EventBuilder.refused`, so the events are the replay's own."""
        return cls([], {}, EventBuilder.start(arc=arc, refused=refused), [], {})

    @property
    def turns(self) -> int:
        return self.builder.total_turns

    @property
    def span(self) -> tuple[float, float] | None:
        times = [i.at for i in self.items if i.at is not None]
        return (min(times), max(times)) if times else None

    def feed(self, entry: Entry) -> None:
        fired = self.builder.feed(entry)
        self.events += fired
        if entry.get("isSidechain") is True and self.builder.sidechain_file is False:
            return  # a subagent's, in its parent's file: counted in turns, not drawn
        for event in fired:
            self._event(event)
            if event.event == "Stop":
                self.builder.after_stop(False)
        self._entry(entry, self.builder.clock)

    def finish(self) -> None:
        fired = self.builder.finish()
        self.events += fired
        for event in fired:
            if self.builder.sidechain_file or "agent_id" not in event.fields:
                self._event(event)

    # --- events --------------------------------------------------------------------------

    def _event(self, event: HookEvent) -> None:
        name, fields, at = event.event, event.fields, event.at
        if name == "UserPromptSubmit":
            prompt = str(fields.get("prompt", ""))
            kind = NOTIFICATION if is_task_notification(prompt) else PROMPT
            self._add(Item(kind, event.turn, at, prompt))
        elif name == "PreToolUse":
            self._call(event)
        elif name in ("PostToolUse", "PostToolUseFailure"):
            call = self.calls.get(str(fields.get("tool_use_id")))
            if call is not None:
                call.outcome = OK if name == "PostToolUse" else FAILED
        elif name == "Stop":
            last = next((i for i in reversed(self.items) if i.kind == TEXT), None)
            if last is None or last.turn != event.turn:  # an empty reply: words of none
                last = Item(TEXT, event.turn, at, "")
                self._add(last)
            last.final = True
        elif name == "SessionStart" and fields.get("source") == "compact":
            self._add(Item(COMPACTION, event.turn, at, "context compacted"))
        elif name == "StopFailure":
            # It fires once the harness has given up; the dead time began at the failure.
            at = self.error_at if self.error_at is not None else at
            self._add(Item(LIMIT, event.turn, at, str(fields.get("error", ""))))
            self.limit_at, self.limit_open, self.error_at = at, True, None

    def _call(self, event: HookEvent) -> None:
        fields = event.fields
        last = self.items[-1] if self.items else None
        if last is None or last.kind != TOOLS or last.turn != event.turn:
            last = Item(TOOLS, event.turn, event.at, calls=[])
            self._add(last)
        ident = str(fields.get("tool_use_id"))
        call = Call(event.what, str(fields.get("tool_name", "?")), self.early.pop(ident, "pending"))
        assert last.calls is not None
        last.calls.append(call)
        self.calls[ident] = call

    def _add(self, item: Item) -> None:
        last = self.items[-1] if self.items else None
        quiet = None if last is None or last.at is None or item.at is None else item.at - last.at
        if quiet is not None and quiet >= WAIT_SECONDS and not self.limit_open:
            self.items.append(Item(WAIT, item.turn, item.at, seconds=quiet))
        if self.limit_open and item.kind not in (LIMIT, COMPACTION):
            self.limit_open = False
            if item.at is not None and self.limit_at is not None:
                gap = max(0.0, item.at - self.limit_at)
                self.items.append(Item(RESUME, item.turn, item.at, seconds=gap))
        self.items.append(item)

    # --- what only the entries say -------------------------------------------------------

    def _entry(self, entry: Entry, at: float | None) -> None:
        kind, turn = entry.get("type"), self.builder.turn
        failed = kinds.is_api_error(entry) or kinds.system_error_kind(entry) is not None
        if failed and self.error_at is None:
            self.error_at = at
        if kind == "assistant" and not kinds.is_synthetic(entry):
            self.error_at = None  # a retry got through
            text = kinds.message_text(entry).strip()
            if text:
                self._add(Item(TEXT, turn + 1, at, text))
        elif kind == "user":
            self._user(entry, at, turn)
        elif kind == "attachment":
            context = kinds.stop_continuation(entry)
            stopped = kinds.hook_stop(entry)
            if context is not None:
                self._add(Item(CONTINUATION, turn, at, context))
            elif stopped is not None:
                self._add(Item(PAUSE, turn, at, stopped))

    def _user(self, entry: Entry, at: float | None, turn: int) -> None:
        what, text = kinds.classify_user(entry)
        if what == kinds.STOP_FEEDBACK:
            body = text.strip().removeprefix(kinds.STOP_FEEDBACK_PREFIX).strip()
            self._add(Item(CONTINUATION, turn, at, body))
        elif what == kinds.INTERRUPT:
            self._add(Item(INTERRUPT, turn, at, "interrupted by the operator"))
        elif what == kinds.TOOL_RESULT:
            for block in kinds.tool_results(entry):
                self._result(block.get("tool_use_id"), kinds.result_text(block), turn, at)

    def _result(self, tool_use_id: str | None, text: str, turn: int, at: float | None) -> None:
        denial = kinds.hook_denial(text)
        outcome = REJECTED_BY_USER if text.startswith(REJECTED) else denial and DENIED
        if not outcome:
            return
        call = self.calls.get(str(tool_use_id))
        if call is None:
            self.early[str(tool_use_id)] = outcome
        else:
            call.outcome = outcome
        paused = denial is not None and denial.startswith(kinds.PAUSE_MARK)
        if paused and denial is not None and not self._paused_since_prompt():
            self._add(Item(PAUSE, turn, at, denial))

    def _paused_since_prompt(self) -> bool:
        for item in reversed(self.items):
            if item.kind == PAUSE:
                return True
            if item.kind == PROMPT:
                return False
        return False


def outcome_counts(calls: list[Call]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for call in calls:
        counts[call.outcome] = counts.get(call.outcome, 0) + 1
    return counts
