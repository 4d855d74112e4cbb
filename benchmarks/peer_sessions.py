"""A recorded Claude Code session as the peers' loop detectors see it: prompts, tool calls with
their results, and replies, per agent, numbered by the turns `arcguard replay` counts.

The order of events and the turn numbers come from arcguard's own replay event builder (one
assistant `message.id` is one turn), so a peer's intervention and arcguard's can be compared
turn for turn against one label. The text of each message and each call's result are read from
the same entries here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from arcguard.forensics import entries as kinds
from arcguard.forensics import lines
from arcguard.replay.events import EventBuilder
from arcguard.replay.events import HookEvent
from arcguard.replay.replayer import refused_ids


# Claude Code delivers a background task's end as a prompt; it is not the user speaking, so it
# resets no peer's counters.
NOTIFICATION = "<task-notification>"


@dataclass(frozen=True)
class Prompt:
    """The user's words."""

    turn: int


@dataclass(frozen=True)
class Reply:
    """A turn that ended on text, without a tool call."""

    turn: int
    text: str


@dataclass(frozen=True)
class Call:
    """One tool call. `thought`: the text its message carried before its calls (only on the
    message's first call); `output`: the result's text (None: no result was recorded);
    `error`: Claude Code marked the result as an error."""

    turn: int
    name: str
    tool_input: object
    output: str | None
    error: bool
    first: bool
    thought: str = ""

    def key(self, *, sort: bool = False) -> str:
        """The tool name and the whole recorded input, serialised the way the peers do
        (JSON without spaces; `sort`: keys sorted, else in the order written)."""
        text = json.dumps(self.tool_input, separators=(",", ":"), sort_keys=sort, default=str)
        return f"{self.name}:{text}"


Item = Prompt | Reply | Call


@dataclass
class Session:
    """What the detectors need of one transcript: the items of each agent (None: the main
    conversation) and the number of tool calls."""

    name: str
    agents: dict[str | None, list[Item]] = field(default_factory=dict)

    @property
    def calls(self) -> int:
        return sum(isinstance(i, Call) for items in self.agents.values() for i in items)


@dataclass
class _Texts:
    """Message texts by message id, and each call's message and result, as read."""

    message_of: dict[str, str] = field(default_factory=dict)
    text: dict[str, str] = field(default_factory=dict)
    results: dict[str, tuple[str, bool]] = field(default_factory=dict)

    def read(self, entry: dict[str, object]) -> None:
        message = entry.get("message")
        if not isinstance(message, dict):
            return
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        if entry.get("type") == "assistant":
            mid = str(message.get("id"))
            for block in blocks:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text":
                    self.text[mid] = self.text.get(mid, "") + str(block.get("text", ""))
                elif block.get("type") == "tool_use":
                    self.message_of[str(block.get("id"))] = mid
        elif entry.get("type") == "user":
            for block in blocks:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    text = kinds.result_text(block)  # type: ignore[arg-type]
                    self.results[str(block.get("tool_use_id"))] = (
                        text,
                        block.get("is_error") is True,
                    )


def read_session(path: Path) -> Session:
    """Rebuild the session's items from the transcript at `path`."""
    import orjson

    builder = EventBuilder.start(refused=refused_ids(str(path), orjson.loads))
    texts = _Texts()
    events: list[HookEvent] = []
    with lines.open_transcript(str(path)) as handle:
        for raw in lines.read_lines(handle):
            for entry in lines.judge(raw, orjson.loads).entries:
                texts.read(entry)  # type: ignore[arg-type]
                events += builder.feed(entry)
    events += builder.finish()
    return _assemble(path.name, events, texts)


def _assemble(name: str, events: list[HookEvent], texts: _Texts) -> Session:
    session = Session(name)
    seen_messages: set[str] = set()
    for event in events:
        fields = event.fields
        agent = fields.get("agent_id")
        items = session.agents.setdefault(agent if isinstance(agent, str) else None, [])
        if event.event == "UserPromptSubmit":
            if not str(fields.get("prompt", "")).startswith(NOTIFICATION):
                items.append(Prompt(event.turn))
        elif event.event == "Stop":
            items.append(Reply(event.turn, str(fields.get("last_assistant_message") or "")))
        elif event.event == "PreToolUse":
            call_id = str(fields.get("tool_use_id"))
            mid = texts.message_of.get(call_id, call_id)
            first = mid not in seen_messages
            seen_messages.add(mid)
            output, error = texts.results.get(call_id, (None, False))
            items.append(
                Call(
                    event.turn,
                    str(fields.get("tool_name")),
                    fields.get("tool_input"),
                    output,
                    error,
                    first,
                    texts.text.get(mid, "") if first else "",
                )
            )
    return session
