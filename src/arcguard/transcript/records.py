"""What transcript entries mean: assistant messages grouped by id, and their classification.

Pure: works on parsed entries (dicts), so the hooks (stdlib JSON on a bounded tail) and
forensics (orjson over whole files) share it. Claude Code writes one entry per content block,
all sharing `message.id`; thinking, text and tool_use blocks of one message are merged here.
"""

from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterable
    from collections.abc import Iterator
    from typing import Any

THINKING_TYPES = frozenset({"thinking", "redacted_thinking"})
SYNTHETIC_MODEL = "<synthetic>"

# Kinds of a final assistant message.
TOOL_USE = "tool_use"
TEXT = "text"
THINKING = "thinking"
OTHER = "other"  # only blocks of unknown types (image, server tools, ...): content, not empty
EMPTY = "empty"


class Message:
    """One assistant API message, merged from its entries."""

    __slots__ = (
        "entries",
        "id",
        "synthetic",
        "texts",
        "thinking",
        "tool_ids",
        "tool_uses",
        "unknown_blocks",
    )

    def __init__(self, message_id: str) -> None:
        self.id = message_id
        self.texts: list[str] = []
        self.tool_uses: list[dict[str, Any]] = []
        self.tool_ids: list[str] = []
        self.thinking = False
        self.unknown_blocks = 0
        self.synthetic = False
        self.entries = 0

    @property
    def text(self) -> str:
        return " ".join(t.strip() for t in self.texts if t.strip()).strip()

    @property
    def kind(self) -> str:
        if self.tool_uses:
            return TOOL_USE
        if self.text:
            return TEXT
        if self.unknown_blocks:
            return OTHER
        if self.thinking:
            return THINKING
        return EMPTY

    def add_entry(self, entry: object) -> None:
        """Merge one transcript entry of this message (entries may arrive in any order)."""
        if not isinstance(entry, dict):
            return  # callers pass only entries `assistant_message_id` accepted: objects
        self.entries += 1
        message = entry.get("message")
        if entry.get("isApiErrorMessage") is True or (
            isinstance(message, dict) and message.get("model") == SYNTHETIC_MODEL
        ):
            self.synthetic = True
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            self.texts.append(content)
            return
        if not isinstance(content, list):
            return
        for block in content:
            self._add_block(block)

    def _add_block(self, block: object) -> None:
        if not isinstance(block, dict):
            return
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            if isinstance(text, str):
                self.texts.append(text)
        elif kind == "tool_use":
            self.tool_uses.append(block)
            if isinstance(block.get("id"), str):
                self.tool_ids.append(block["id"])
        elif kind in THINKING_TYPES:
            self.thinking = True
        else:
            self.unknown_blocks += 1


def assistant_message_id(entry: object) -> str | None:
    """The `message.id` of a main-chain assistant entry, else None.

    Entries without an id (old or synthetic) fall back to their `uuid` so they still group.
    """
    if not isinstance(entry, dict) or entry.get("type") != "assistant":
        return None
    if entry.get("isSidechain") is True:
        return None
    message = entry.get("message")
    if not isinstance(message, dict):
        return None
    mid = message.get("id")
    if isinstance(mid, str) and mid:
        return mid
    uuid = entry.get("uuid")
    return f"uuid:{uuid}" if isinstance(uuid, str) else None


def last_message(entries_newest_first: Iterable[object]) -> Message | None:
    """The newest assistant message, merged from all its entries in the given window."""
    found: Message | None = None
    for entry in entries_newest_first:
        mid = assistant_message_id(entry)
        if mid is None:
            continue
        if found is None:
            found = Message(mid)
        elif mid != found.id:
            break  # an older message: the newest one's entries are all behind us
        found.add_entry(entry)
    return found


class Exchange:
    """The end of the conversation: the newest assistant message, whether a tool result is
    newer than it (the model has not answered the result yet, or answered with nothing), and
    the hidden (`isMeta`) prompt it answers, if that is the message's prompt."""

    __slots__ = ("message", "meta_prompt", "meta_prompt_id", "result_pending")

    def __init__(self, message: Message | None, result_pending: bool) -> None:
        self.message = message
        self.result_pending = result_pending
        self.meta_prompt: str | None = None
        self.meta_prompt_id: str | None = None


def is_tool_result(entry: object) -> bool:
    """A main-chain `user` entry that carries tool results (the harness, not the operator)."""
    if not isinstance(entry, dict) or entry.get("type") != "user":
        return False
    if entry.get("isSidechain") is True:
        return False
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "tool_result" for block in content
    )


def last_exchange(entries_newest_first: Iterable[object]) -> Exchange:
    """The newest assistant message, whether a tool result came after it, and its prompt when
    that prompt is a hidden one (Claude Code's own, such as its resume prompt)."""
    exchange = Exchange(None, False)
    prompt_seen = False
    for entry in entries_newest_first:
        mid = assistant_message_id(entry)
        if mid is None:
            if exchange.message is None:
                exchange.result_pending = exchange.result_pending or is_tool_result(entry)
            elif not prompt_seen and _is_prompt(entry):
                prompt_seen = True
                _note_meta_prompt(exchange, entry)
            continue
        if exchange.message is None:
            exchange.message = Message(mid)
        elif mid != exchange.message.id:
            break  # an older message: the newest one's entries are all behind us
        exchange.message.add_entry(entry)
    return exchange


def _is_prompt(entry: object) -> bool:
    return (
        isinstance(entry, dict)
        and entry.get("type") == "user"
        and entry.get("isSidechain") is not True
        and not is_tool_result(entry)
    )


def _note_meta_prompt(exchange: Exchange, entry: object) -> None:
    if not isinstance(entry, dict) or entry.get("isMeta") is not True:
        return
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        content = " ".join(
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    if isinstance(content, str):
        exchange.meta_prompt = content
        uuid = entry.get("uuid")
        exchange.meta_prompt_id = uuid if isinstance(uuid, str) and uuid else None


def message_with_tool(entries_newest_first: Iterable[object], tool_ids: set[str]) -> Message | None:
    """The assistant message holding any of `tool_ids`, merged from all its entries."""
    seen: dict[str, Message] = {}
    target: str | None = None
    for entry in entries_newest_first:
        mid = assistant_message_id(entry)
        if mid is None:
            continue
        if target is not None and mid != target:
            break  # an older message: the target's entries are all behind us
        message = seen.get(mid)
        if message is None:
            message = seen[mid] = Message(mid)
        message.add_entry(entry)
        if target is None and tool_ids.intersection(message.tool_ids):
            target = mid
    return seen[target] if target is not None else None


def conversation_entries(
    lines: Iterable[bytes], loads: Callable[[bytes], object]
) -> Iterator[object]:
    """Like `assistant_entries`, also letting through `user` entries (prompts, tool results)."""
    for line in lines:
        if b'"assistant"' not in line and b'"user"' not in line:
            continue
        try:
            yield loads(line)
        except ValueError:
            continue


def assistant_entries(lines: Iterable[bytes], loads: Callable[[bytes], object]) -> Iterator[object]:
    """Parse the lines that may be assistant entries; skip everything unparseable.

    The byte test is a cheap filter that spares parsing big non-message entries
    (`api-request-blob`, tool results); the entry's own `type` is still checked afterwards.
    """
    for line in lines:
        if b'"assistant"' not in line:
            continue
        try:
            yield loads(line)
        except ValueError:
            continue


GOAL_STATUS = "goal_status"
# Claude Code's warning when its Stop-hook cap (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP) overrode a
# hook: "A hook blocked the turn from ending 9 consecutive times—overriding and ending turn."
CAP_OVERRIDE = "overriding and ending turn"
MAX_OVERRIDES = 16


class TailMarks:
    """What a Stop needs from the transcript's tail besides the final message: the release
    writing it (`version`), the newest `/goal` status as (met, condition), and the ids of
    Claude Code's Stop-cap override warnings, newest first."""

    __slots__ = ("goal", "overrides", "version")

    def __init__(self) -> None:
        self.version: str | None = None
        self.goal: tuple[bool, str] | None = None
        self.overrides: list[str] = []


def tail_marks(lines_newest_first: Iterable[bytes], loads: Callable[[bytes], object]) -> TailMarks:
    """One pass over the tail; only lines that may carry a mark are parsed."""
    marks = TailMarks()
    for line in lines_newest_first:
        wanted = (
            (marks.version is None and b'"version"' in line)
            or (marks.goal is None and b'"goal_status"' in line)
            or (CAP_OVERRIDE.encode() in line and len(marks.overrides) < MAX_OVERRIDES)
        )
        if not wanted:
            continue
        try:
            entry = loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            _mark(marks, entry)
    return marks


def _mark(marks: TailMarks, entry: dict[str, Any]) -> None:
    version = entry.get("version")
    if marks.version is None and isinstance(version, str) and version:
        marks.version = version
    if marks.goal is None:
        marks.goal = goal_status(entry)
    if is_cap_override(entry) and isinstance(entry.get("uuid"), str):
        marks.overrides.append(entry["uuid"])


def goal_status(entry: dict[str, Any]) -> tuple[bool, str] | None:
    """(met, condition) of a `goal_status` attachment (Claude Code's `/goal`): written with
    `met: false` when a goal is set and after each stop that did not meet it, `met: true` when
    it is met or cleared. None for any other entry."""
    if entry.get("type") != "attachment":
        return None
    body = entry.get("attachment")
    if not isinstance(body, dict) or body.get("type") != GOAL_STATUS:
        return None
    met, condition = body.get("met"), body.get("condition")
    if not isinstance(met, bool):
        return None
    return met, condition if isinstance(condition, str) else ""


def is_cap_override(entry: object) -> bool:
    """Claude Code's system warning that its Stop-hook cap ended a turn a hook kept blocking."""
    if not isinstance(entry, dict) or entry.get("type") != "system":
        return False
    content = entry.get("content")
    return isinstance(content, str) and CAP_OVERRIDE in content


# What Claude Code writes about its own resume at a usage limit: a system entry when it arms
# ("Usage limit reached · continuing automatically at 7:11am · esc to cancel" on 2.1.328,
# "... · set to continue automatically at 7:11am" on 2.1.332), when the user cancels it
# ("Automatic continue cancelled · ...") and when it resumes, then its resume prompt.
ARMED_START, ARMED_WORD = "Usage limit reached", "automatically"
RESUME_MARKS = (
    ("Automatic continue cancelled", "cancelled"),
    ("Usage limit reset · Continuing automatically", "resumed"),
    ("Your claude.ai usage limit has reset.", "resumed"),
)
_RESUME_BYTES = (b"Usage limit", b"usage limit has reset", b"Automatic continue cancelled")


def resume_mark(
    lines_newest_first: Iterable[bytes], loads: Callable[[bytes], object]
) -> str | None:
    """The newest of Claude Code's resume markers in the lines: "armed", "cancelled",
    "resumed" (`core.arc_keeper.handover`), or None when there is none."""
    for line in lines_newest_first:
        if not any(b in line for b in _RESUME_BYTES):
            continue
        try:
            entry = loads(line)
        except ValueError:
            continue
        found = _resume_mark(entry)
        if found is not None:
            return found
    return None


def _resume_mark(entry: object) -> str | None:
    if not isinstance(entry, dict) or entry.get("type") not in ("system", "user"):
        return None
    content = entry.get("content")
    if entry.get("type") == "user":
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if entry.get("isMeta") is not True:
            return None
    if not isinstance(content, str):
        return None
    if content.startswith(ARMED_START) and ARMED_WORD in content:
        return "armed"
    for start, mark in RESUME_MARKS:
        if content.startswith(start):
            return mark
    return None
