"""Pure analysis of one transcript, entry by entry, into a shared `Report`.

Memory is constant per file: the assistant message being merged, the current tool-only run's
last few fingerprints, and a handful of counters. The loop guard's own functions decide what
counts (`operation_id` for turn fingerprints, `detect_period` for the cycle rule, `is_allowed`
for the allow-list), so a trip counted here is a pause the hooks would have made.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

import arcguard.forensics.entries as kinds
import arcguard.forensics.handbacks as handbacks
from arcguard.core.arc_keeper.stop import STALL
from arcguard.core.arc_keeper.stop import Final
from arcguard.core.arc_keeper.stop import classify
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard.period import detect_period
from arcguard.core.loop_guard.tracks import is_allowed
from arcguard.core.state import parse_iso
from arcguard.core.tool_call import ToolCall
from arcguard.forensics.limit_savings import SessionLimits
from arcguard.forensics.report import MAX_PERIOD_SCANNED
from arcguard.transcript import marks
from arcguard.transcript import records
from arcguard.values import value


if TYPE_CHECKING:
    from collections.abc import Sequence

    from arcguard.core.config import Config
    from arcguard.forensics.report import Report
    from arcguard.transcript.records import Entry
    from arcguard.transcript.records import ToolUseBlock

KNOWN_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "progress",
        "attachment",
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "custom-title",
        "ai-title",
        "agent-name",
        "agent-setting",
        "last-prompt",
        "pr-link",
        "saved_hook_context",
        "atis-latch",
        "api-request-shape",
        "api-request-blob",
        "api-request",
        "tools-used",
        "cost-state",
        "mode",
    }
)
ARCGUARD_MARK = kinds.ARCGUARD_TAG
PAUSE_MARK = kinds.PAUSE_MARK


@value
class CycleTracker:
    """Longest repeat per period over a run, plus whether the guard's cycle rule would trip.

    The repeat count for period p is the core's: (items equal to the one p places back,
    counted backwards from the newest, + p) // p. It is kept incrementally, so a run of any
    length costs only its last `MAX_PERIOD_SCANNED + 1` fingerprints (`recent`); `history`
    is what the guard itself would hold. `shortest_trip`: no cycle rule can fire on fewer
    turns than this.
    """

    cfg: Config
    recent: deque[str]
    history: deque[str]
    matched: list[int]
    best: list[int]
    shortest_trip: int
    tripped: int | None = None

    @classmethod
    def start(cls, cfg: Config) -> CycleTracker:
        return cls(
            cfg,
            recent=deque(maxlen=MAX_PERIOD_SCANNED + 1),
            history=deque(maxlen=cfg.cycle_history),
            matched=[0] * (MAX_PERIOD_SCANNED + 1),
            best=[1] * (MAX_PERIOD_SCANNED + 1),
            shortest_trip=min(cfg.cycle_repeats_identical, 2 * cfg.cycle_repeats),
        )

    def push(self, fingerprint: str) -> None:
        self.recent.append(fingerprint)
        size = len(self.recent)
        newest_first = list(reversed(self.recent))
        distinct: set[str] = set()
        for period in range(1, MAX_PERIOD_SCANNED + 1):
            if period <= size:
                distinct.add(newest_first[period - 1])
            if size > period and newest_first[period] == fingerprint:
                self.matched[period] += 1
            else:
                self.matched[period] = 0
            if period > 1 and len(distinct) < 2:
                continue  # A,A,A,A is a period-1 repeat, never a period-2 one
            repeats = (self.matched[period] + period) // period
            if repeats > self.best[period]:
                self.best[period] = repeats
        self.history.append(fingerprint)
        if self.tripped is None and len(self.history) >= self.shortest_trip:
            found = detect_period(
                list(self.history),
                max_period=self.cfg.cycle_max_period,
                repeats_identical=self.cfg.cycle_repeats_identical,
                repeats_cycle=self.cfg.cycle_repeats,
            )
            if found is not None:
                self.tripped = found[0]


def turn_fingerprint(tool_uses: Sequence[ToolUseBlock], cfg: Config) -> str | None:
    """The loop guard's fingerprint of a turn's tracked calls (None when all are allow-listed)."""
    ids = []
    for block in tool_uses:
        name = block.get("name")
        if name is None:
            continue
        call = ToolCall(name, block.get("input"))
        if not is_allowed(cfg, call):
            ids.append(opkey.operation_id(call))
    return "|".join(sorted(ids)) if ids else None


@value
class SessionScan:
    """Feed one transcript's parsed entries in file order; call `finish` at the end.

    `sidechain_file` None means: decided by the first message entry. `subagents`: those whose
    entries older releases wrote into this, the parent's, file. `error_text`: what the harness
    wrote for the open ending (a reset time?). `system_error`: a failed attempt no reply has
    followed yet. `handback`: how the last final message handed the turn back, until the
    operator answers it. `paused`: arcguard's pause is counted, until the operator resumes.
    """

    report: Report
    cfg: Config
    limits: SessionLimits
    subagents: dict[str, SessionScan]
    sidechain_file: bool | None = None
    pending: records.Message | None = None
    pending_at: float | None = None
    pending_error: str | None = None
    run_length: int = 0
    cycles: CycleTracker | None = None
    since_operator: int = 0
    stall_open: bool = False
    error_open: tuple[str, float | None] | None = None
    error_text: str = ""
    system_error: tuple[str, float | None] | None = None
    after_local_command: bool = False
    messages: int = 0
    handback: str | None = None
    paused: bool = False

    @classmethod
    def start(
        cls, report: Report, cfg: Config, *, sidechain_file: bool | None = None
    ) -> SessionScan:
        limits = SessionLimits.start(report.limit_savings, cfg)
        return cls(report, cfg, limits, {}, sidechain_file=sidechain_file)

    # --- entries -------------------------------------------------------------------------

    def feed(self, entry: Entry) -> None:
        kind = entry.get("type")
        if self.sidechain_file is None and kind in ("user", "assistant"):
            # A subagent's own transcript: every entry is on the side chain, its only chain.
            self.sidechain_file = entry.get("isSidechain") is True
        if self.sidechain_file is False and entry.get("isSidechain") is True:
            # A subagent's entries in its parent's file: its turns, counted as in its own file.
            self._subagent(entry).feed(entry)
            return
        if kind == "assistant":
            self._assistant(entry)
        elif kind == "user":
            self._user(entry)
        elif kind == "attachment" and (entry.get("isSidechain") is not True or self.sidechain_file):
            self._attachment(entry)
        elif kind == "system":
            self._system(entry)

    def _attachment(self, entry: Entry) -> None:
        queued = kinds.classify_queued(entry)
        if queued is not None:
            self._finish_message()  # it follows the results of the message before it
            self._prompt(queued[0], queued[1], _at(entry))
            return
        context = kinds.stop_continuation(entry)
        if context is not None:
            self._finish_message()
            self._failed_ending()
            self._stop_feedback(context)
            return
        stopped = kinds.hook_stop(entry)
        if stopped is not None and stopped.startswith(PAUSE_MARK):
            self._paused()

    def _subagent(self, entry: Entry) -> SessionScan:
        key = entry.get("agentId", "")
        sub = self.subagents.get(key)
        if sub is None:
            sub = self.subagents[key] = SessionScan.start(
                self.report, self.cfg, sidechain_file=True
            )
        return sub

    def _system(self, entry: Entry) -> None:
        failed = kinds.system_error_kind(entry)
        if failed is not None:
            self._finish_message()
            self.system_error = (failed, _at(entry))
        elif entry.get("subtype") == "compact_boundary":
            self.report.compactions += 1
        elif marks.is_cap_override(entry):
            self.report.stop_cap_overrides += 1

    def _failed_ending(self) -> None:
        """A failed attempt that no reply followed: the turn ended on it."""
        failed, self.system_error = self.system_error, None
        if failed is not None:
            self.report.api_errors[failed[0]] += 1
            self._resumed(failed[1])  # an earlier ending still open is resumed by this one
            self.error_open, self.error_text = failed, ""

    def _message_id(self, entry: Entry) -> str | None:
        if self.sidechain_file and entry.get("isSidechain") is True:
            entry = entry.copy()
            entry["isSidechain"] = False  # a subagent's own file: its main chain
        return records.assistant_message_id(entry)

    def _assistant(self, entry: Entry) -> None:
        mid = self._message_id(entry)
        if mid is None:
            return
        if self.pending is not None and self.pending.id != mid:
            self._finish_message()
        if self.pending is None:
            self.pending = records.Message(mid)
            self.pending_at = _at(entry)
            self.pending_error = None
        self.pending.add_entry(entry)
        if kinds.is_api_error(entry):
            self.pending_error = kinds.api_error_kind(entry)

    def _user(self, entry: Entry) -> None:
        if entry.get("isSidechain") is True and not self.sidechain_file:
            return
        kind, text = kinds.classify_user(entry)
        if kind == kinds.TOOL_RESULT:
            self._tool_results(entry)
            return
        self._finish_message()
        at = _at(entry)
        if kind in (kinds.OPERATOR, kinds.TASK_NOTIFICATION, kinds.STOP_FEEDBACK):
            self._failed_ending()
        self.after_local_command = kind == kinds.LOCAL_OUTPUT or (
            kind == kinds.OPERATOR and text.startswith("/")
        )
        self._prompt(kind, text, at)
        if kind == kinds.STOP_FEEDBACK:
            self._stop_feedback(text)

    def _stop_feedback(self, text: str) -> None:
        """A Stop hook sent the model back to work, in either form a release records."""
        self.report.stop_feedback += 1
        self.handback = None  # a Stop hook answered it, not the operator
        self.after_local_command = False
        if ARCGUARD_MARK in text:
            self.report.footprint["stop_continuations"] += 1
        self._close_stall("followed_by_stop_hook")

    def _paused(self) -> None:
        if not self.paused:
            self.report.footprint["pauses"] += 1
        self.paused = True

    def _prompt(self, kind: str, text: str, at: float | None) -> None:
        """A prompt typed or queued by the operator, or one the harness made."""
        if kind == kinds.OPERATOR:
            self._operator(text, at)
        elif kind == kinds.TASK_NOTIFICATION:
            self.report.task_notifications += 1
            self._resumed(at)
        elif kind == kinds.INTERRUPT:
            self._answered(handbacks.INTERRUPT)

    def _tool_results(self, entry: Entry) -> None:
        # A paused session denies every call after the pause (older releases end no session
        # from a hook): one pause, however many calls it turned away.
        for block in kinds.tool_results(entry):
            reason = kinds.hook_denial(kinds.result_text(block)) if block.get("is_error") else None
            if reason is None:
                continue
            if reason.startswith(PAUSE_MARK):
                self._paused()
            elif reason.startswith(ARCGUARD_MARK):
                self.report.footprint["denials"] += 1

    def _operator(self, text: str, at: float | None) -> None:
        report = self.report
        report.operator_prompts += 1
        self.paused = False  # the operator resumed it
        self._answered(handbacks.reply_class(text))
        nudge = kinds.is_continue_nudge(text)
        if nudge:
            report.continue_nudges += 1
        self._close_stall("followed_by_continue_nudge" if nudge else "followed_by_other_prompt")
        self._resumed(at)
        self.limits.prompt(text)  # after the ending it resumes: an arc begins with this prompt
        self._close_stretch()
        self._end_run()

    # --- messages ------------------------------------------------------------------------

    def _finish_message(self) -> None:
        message, self.pending = self.pending, None
        if message is None:
            return
        if message.synthetic:
            self._synthetic(message)
            return
        self.system_error = None  # a retry got through
        self.after_local_command = False
        self._resumed(self.pending_at)
        self.report.turns += 1
        self.messages += 1
        self.since_operator += 1
        self.handback = None if message.tool_uses else handbacks.stop_class(message.text)
        if message.tool_uses:
            self.report.tool_turns += 1
            if message.text:
                self._end_run()  # narrated: the guard clears its run on narration
            else:
                self._tool_only(message)
            return
        self._end_run()
        if classify(Final(message.kind, message.text)) == STALL:
            self._open_stall(synthetic=False)

    def _synthetic(self, message: records.Message) -> None:
        if self.pending_error is not None:
            self.system_error = None  # the same failure, written once more as a message
            self.report.api_errors[self.pending_error] += 1
            if self.error_open is not None:
                self._resumed(self.pending_at)
            self.error_open, self.error_text = (self.pending_error, self.pending_at), message.text
        elif self.after_local_command:
            # After `/exit`, `/ide` and kin the harness writes this without asking the model:
            # nothing stalled, and Claude Code runs no Stop for it.
            self.report.placeholders += 1
        elif classify(Final(message.kind, message.text)) == STALL:
            self.handback = handbacks.NOOP
            self._open_stall(synthetic=True)

    def _answered(self, reply: str) -> None:
        if self.handback is not None:
            self.report.handbacks[(self.handback, reply)] += 1
        self.handback = None

    def _tool_only(self, message: records.Message) -> None:
        self.run_length += 1
        fingerprint = turn_fingerprint(message.tool_uses, self.cfg)
        if fingerprint is None:
            return  # allow-listed calls only: neither extends nor breaks a cycle
        if self.cycles is None:
            self.cycles = CycleTracker.start(self.cfg)
        self.cycles.push(fingerprint)

    def _end_run(self) -> None:
        if self.run_length:
            self.report.run_lengths[self.run_length] += 1
        cycles = self.cycles
        if cycles is not None:
            best = self.report.max_repeats
            for period in best:
                best[period] = max(best[period], cycles.best[period])
            if cycles.tripped is not None:
                self.report.cycle_trips[cycles.tripped] += 1
        self.run_length = 0
        self.cycles = None

    def _close_stretch(self) -> None:
        if self.since_operator:
            self.report.stretches[self.since_operator] += 1
        self.since_operator = 0

    # --- stalls and API errors -----------------------------------------------------------

    def _open_stall(self, *, synthetic: bool) -> None:
        self._close_stall("followed_by_other_prompt")
        self.report.stalls["total"] += 1
        if synthetic:
            self.report.stalls["synthetic"] += 1
        self.stall_open = True

    def _close_stall(self, how: str) -> None:
        if self.stall_open:
            self.report.stalls[how] += 1
        self.stall_open = False

    def _resumed(self, at: float | None) -> None:
        if self.error_open is None:
            return
        kind, since = self.error_open
        self.error_open = None
        if at is not None and since is not None:
            gap = max(0.0, at - since)
            self.report.add_gap(kind, gap)
            if kind == kinds.RATE_LIMIT:
                self.limits.ending(self.error_text, since, gap)
        else:
            self.report.api_errors_unresumed[kind] += 1

    def finish(self) -> None:
        for sub in self.subagents.values():
            sub.finish()
            if sub.messages:
                self.report.embedded_subagents += 1
        self._finish_message()
        self._failed_ending()
        self._end_run()
        self._close_stretch()
        self._close_stall("at_end_of_session")
        if self.error_open is not None:
            self.report.api_errors_unresumed[self.error_open[0]] += 1
            self.error_open = None


def _at(entry: Entry) -> float | None:
    return parse_iso(entry.get("timestamp"))
