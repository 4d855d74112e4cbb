"""Replay one recorded session through the hooks, against a throwaway state directory.

The recorded entries are appended to a temporary transcript as the replay goes, exactly as
Claude Code writes them, so a hook that reads `transcript_path` sees what it would have seen.
A decision that would have changed the session (a continuation, a denial) is reported, and the
recorded events keep coming; after a pause the replay stops, as the session would have.
"""

from __future__ import annotations

import os
import tempfile
from typing import TYPE_CHECKING

from arcguard import jsonio
from arcguard.core import render
from arcguard.core.loop_guard import opkey
from arcguard.core.schema import StateFile
from arcguard.core.words import vocabulary
from arcguard.forensics import entries as kinds
from arcguard.forensics import lines
from arcguard.replay.events import EventBuilder
from arcguard.replay.executors import EXECUTORS
from arcguard.replay.executors import InProcess
from arcguard.replay.executors import hook_environment
from arcguard.storage import store
from arcguard.values import value


if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import BinaryIO
    from typing import Protocol
    from typing import TypedDict

    from arcguard.core.schema import LogEntry
    from arcguard.forensics.lines import Loads
    from arcguard.jsonio import JSONObject
    from arcguard.replay.events import HookEvent
    from arcguard.transcript.records import Entry

    class DecisionDoc(TypedDict):
        turn: int
        hook: str
        kind: str
        reason: str
        output: JSONObject | None  # the hook's stdout, parsed back

    # One replay as `arcguard replay --json` prints it.
    class ResultDoc(TypedDict):
        transcript: str
        session_id: str
        executor: str
        clock: str
        agent_id: str | None
        events: int
        turns: int
        subagents: dict[str, int]
        malformed_lines: int
        diverged_at_turn: int | None
        paused_at_turn: int | None
        summary: dict[str, int]
        decisions: list[DecisionDoc]

    class Executor(Protocol):
        name: str

        def run(self, hook: str, raw: bytes) -> str | None: ...


# Decisions that change what the session does next (the recorded one did not have them).
CHANGES = frozenset({vocabulary.CONTINUE, vocabulary.DENY, vocabulary.PAUSE})
SCRATCH_TRANSCRIPT = "transcript.jsonl"
_SIDE_CHAIN = b'"isSidechain":true'


@value
class Decision:
    turn: int
    hook: str
    kind: str
    reason: str
    output: JSONObject | None

    def as_dict(self) -> DecisionDoc:
        return {
            "turn": self.turn,
            "hook": self.hook,
            "kind": self.kind,
            "reason": self.reason,
            "output": self.output,
        }


@value
class Step:
    """One hook event and what arcguard decided on it (often nothing)."""

    event: HookEvent
    decisions: list[Decision]


@value
class Result:
    """One replay. `agent_id`: set when the transcript is a subagent's own; `subagents`:
    agent id -> turns, of those stored in the parent's file; `refused`: `refused_ids`."""

    path: str
    session_id: str
    executor: str
    steps: list[Step]
    subagents: dict[str, int]
    turns: int = 0
    malformed_lines: int = 0
    diverged_at: int | None = None
    paused_at: int | None = None
    agent_id: str | None = None
    clock: str = "wall"
    refused: frozenset[str] = frozenset()

    @property
    def decisions(self) -> list[Decision]:
        return [d for step in self.steps for d in step.decisions]

    def summary(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for decision in self.decisions:
            counts[decision.kind] = counts.get(decision.kind, 0) + 1
        return dict(sorted(counts.items()))

    def as_dict(self) -> ResultDoc:
        return {
            "transcript": self.path,
            "session_id": self.session_id,
            "executor": self.executor,
            "clock": self.clock,
            "agent_id": self.agent_id,
            "events": len(self.steps),
            "turns": self.turns,
            "subagents": self.subagents,
            "malformed_lines": self.malformed_lines,
            "diverged_at_turn": self.diverged_at,
            "paused_at_turn": self.paused_at,
            "summary": self.summary(),
            "decisions": [d.as_dict() for d in self.decisions],
        }


def new_log_entries(before: list[LogEntry], after: list[LogEntry]) -> list[LogEntry]:
    """The entries appended to a bounded log between two reads of it."""
    for kept in range(min(len(before), len(after)), -1, -1):
        if after[:kept] == before[len(before) - kept :]:
            return after[kept:]
    return after  # pragma: no cover (kept == 0 always matches)


def _log(home: str, session_id: str) -> list[LogEntry]:
    state = store.read_session(home, session_id)
    return list(StateFile.view(state).log) if state else []


def decisions_for(
    event: HookEvent, output: JSONObject | None, logged: list[LogEntry]
) -> list[Decision]:
    # `output` is the hook's stdout parsed back, as a tool reading it would see it.
    found = []
    for entry in logged:
        kind = entry.kind if entry.has("kind") else "?"
        found.append(
            Decision(
                event.turn,
                entry.hook if entry.hook is not None else event.hook,
                vocabulary.kind_name(kind),
                entry.reason,
                output,
            )
        )
    context = render.context_text(render.read(output))
    # A nudge's own text is that decision, not a posture besides it (a Stop's continuation is
    # never read as context).
    if context and not any(d.kind in (vocabulary.NUDGE, vocabulary.CONTINUE) for d in found):
        found.append(Decision(event.turn, event.hook, vocabulary.POSTURE, context, output))
    return found


@value
class Replayer:
    """Runs the events against `home` and writes the recorded lines where Claude Code would
    (`Replayer.start`). `others`: subagents' files, for their entries in the parent's file."""

    session_id: str
    executor: Executor
    home: str
    cwd: str
    transcript: str
    handle: BinaryIO
    others: dict[str, BinaryIO]
    recorded_time: bool = False
    agent_id: str | None = None
    log: list[LogEntry] | None = None  # the decision log as the last event left it

    @classmethod
    def start(
        cls, session_id: str, workdir: str, executor: Executor, home: str, *, recorded_time: bool
    ) -> Replayer:
        # A fixed name: the recorded session id is data from the transcript, and joining it
        # into a path would let a crafted id write anywhere the user can.
        transcript = os.path.join(workdir, "projects", SCRATCH_TRANSCRIPT)
        os.makedirs(os.path.dirname(transcript), exist_ok=True)
        handle = open(transcript, "xb")  # noqa: SIM115 (closed by `close`)
        return cls(session_id, executor, home, workdir, transcript, handle, {}, recorded_time)

    @property
    def clock(self) -> str:
        """Whose clock the hooks run on: "recorded" (the transcript's) or "wall"."""
        followed = self.recorded_time and isinstance(self.executor, InProcess)
        return "recorded" if followed else "wall"

    def close(self) -> None:
        self.handle.close()
        for handle in self.others.values():
            handle.close()

    def as_subagent(self, agent_id: str) -> None:
        """Write the rest where Claude Code keeps this subagent's own transcript, next to the
        session's (a hook finds it from `transcript_path` and `agent_id`)."""
        if self.agent_id is not None:
            return
        self.agent_id = agent_id
        folder = os.path.join(self.transcript.removesuffix(".jsonl"), "subagents")
        os.makedirs(folder)
        self.handle.close()
        self.handle = open(  # noqa: SIM115 (closed by `close`)
            os.path.join(folder, f"agent-{agent_id}.jsonl"), "xb"
        )

    def append(self, line: bytes, agent_id: str | None = None) -> None:
        """Write a recorded line where Claude Code keeps it now: a subagent's entries (older
        releases put them in the parent's file) in that subagent's own file."""
        handle = self.handle if agent_id is None else self._subagent_file(agent_id)
        handle.write(line if line.endswith(b"\n") else line + b"\n")
        handle.flush()

    def _subagent_file(self, agent_id: str) -> BinaryIO:
        handle = self.others.get(agent_id)
        if handle is None:
            folder = os.path.join(self.transcript.removesuffix(".jsonl"), "subagents")
            os.makedirs(folder, exist_ok=True)
            handle = self.others[agent_id] = open(  # noqa: SIM115 (closed by `close`)
                os.path.join(folder, f"agent-{agent_id}.jsonl"), "xb"
            )
        return handle

    def fire(self, event: HookEvent) -> list[Decision]:
        payload: JSONObject = {
            "session_id": self.session_id,
            "transcript_path": self.transcript,
            "cwd": self.cwd,
            "hook_event_name": event.event,
            "permission_mode": "default",
            **event.fields,
        }
        if self.recorded_time and isinstance(self.executor, InProcess):
            self.executor.at = event.at
        # Only the hooks write the state: the log after one event is the log before the next.
        before = self.log if self.log is not None else _log(self.home, self.session_id)
        text = self.executor.run(event.hook, jsonio.dumps(payload).encode("utf-8"))
        output = jsonio.loads(text) if text else None
        self.log = _log(self.home, self.session_id)
        logged = new_log_entries(before, self.log)
        return decisions_for(event, output if isinstance(output, dict) else None, logged)


def session_id_of(path: str, first: Entry | None) -> str:
    sid = (first or {}).get("sessionId")
    if sid:
        return sid
    return os.path.basename(path).removesuffix(".jsonl") or "replay"


def _first_entry(path: str, loads: Loads) -> Entry | None:
    with lines.open_transcript(path) as handle:
        for raw in lines.read_lines(handle):
            for entry in lines.judge(raw, loads).entries:
                if entry.get("sessionId"):
                    return entry
    return None


def refused_ids(path: str, loads: Loads) -> frozenset[str]:
    """The ids of the calls Claude Code's input check refused in the transcript at `path`: no
    hook ran for them, so the replay fires none (`EventBuilder.refused`). Only the few lines
    that carry a tool_use_error frame are parsed."""
    found: set[str] = set()
    with lines.open_transcript(path) as handle:
        for raw in lines.read_lines(handle):
            if raw is None or opkey.TOOL_USE_ERROR[0].encode() not in raw:
                continue
            for entry in lines.judge(raw, loads).entries:
                for block in kinds.tool_results(entry):
                    text = kinds.result_text(block)
                    if block.get("is_error") is True and opkey.refused_before_hooks(text):
                        found.add(str(block.get("tool_use_id")))
    return frozenset(found)


def replay(
    path: str,
    *,
    executor: str = "in-process",
    config_path: str | None = None,
    on_step: Callable[[Step], None] | None = None,
    arc: bool = False,
    recorded_time: bool = False,
) -> Result:
    """Replay the transcript at `path`; `executor` is "in-process" or "subprocess"; `arc`
    replays it as if its first operator prompt had started an arc. `recorded_time` (in-process
    only): the hooks see each event's time from the transcript's timestamps instead of the
    clock, so rules bounded by wall time (a poll's patience) see the gaps the session had."""
    import orjson

    sid = session_id_of(path, _first_entry(path, orjson.loads))
    with tempfile.TemporaryDirectory(prefix="arcguard-replay-") as workdir:
        home = os.path.join(workdir, "state")
        environ = hook_environment(home, config_path)
        chosen: Executor = EXECUTORS[executor](environ)
        runner = Replayer.start(sid, workdir, chosen, home, recorded_time=recorded_time)
        refused = refused_ids(path, orjson.loads)
        result = Result(path, sid, executor, [], {}, clock=runner.clock, refused=refused)
        try:
            builder = EventBuilder.start(arc=arc, refused=refused)
            _run(path, runner, result, orjson.loads, on_step, builder)
        finally:
            runner.close()
    return result


def _run(
    path: str,
    runner: Replayer,
    result: Result,
    loads: Loads,
    on_step: Callable[[Step], None] | None,
    builder: EventBuilder,
) -> None:
    last_owner: str | None = None
    with lines.open_transcript(path) as handle:
        for raw in lines.read_lines(handle):
            line = lines.judge(raw, loads)
            result.malformed_lines += line.status == lines.MALFORMED
            # A line not parsed (a `progress` entry, say) on a side chain is taken to belong
            # to the subagent whose entry came before it.
            owner = last_owner if raw is not None and _SIDE_CHAIN in raw else None
            for entry in line.entries:
                events = builder.feed(entry)
                owner = last_owner = builder.owner(entry)
                if builder.agent_id is not None:
                    runner.as_subagent(builder.agent_id)
                if _fire_all(events, runner, result, builder, on_step):
                    return
            if raw is not None:
                runner.append(raw, owner)
    _fire_all(builder.finish(), runner, result, builder, on_step)
    result.turns = builder.total_turns
    result.agent_id = builder.agent_id
    result.subagents = {sub.agent_id or "": sub.turn for sub in builder.subagents.values()}


def _fire_all(
    events: list[HookEvent],
    runner: Replayer,
    result: Result,
    builder: EventBuilder,
    on_step: Callable[[Step], None] | None,
) -> bool:
    """Run the events in order; True once arcguard has paused the session."""
    for event in events:
        decisions = runner.fire(event)
        step = Step(event, decisions)
        result.steps.append(step)
        result.turns = max(result.turns, event.turn)
        if event.hook == "stop":
            builder.after_stop(any(d.kind == vocabulary.CONTINUE for d in decisions))
        if on_step is not None:
            on_step(step)
        changed = [d for d in decisions if d.kind in CHANGES]
        if changed and result.diverged_at is None:
            result.diverged_at = event.turn
        if any(d.kind == vocabulary.PAUSE for d in decisions):
            result.paused_at = event.turn
            return True
    return False
