"""What transcript entries are and mean: the typed entry, its parse, and assistant messages.

Pure. A transcript line is parsed once (`parse_entry`, from the raw JSON object) into an
`Entry` holding only the fields arcguard reads, each of the type it reads it as; a field of
another type is left out, as if absent. The hooks (stdlib JSON on a bounded tail), replay and
forensics (orjson over whole files) all read entries through it. Claude Code writes one entry
per content block, all sharing `message.id`; thinking, text and tool_use blocks of one message
are merged here (`Message`).
"""

from __future__ import annotations

from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterable
    from collections.abc import Iterator
    from typing import Literal
    from typing import NotRequired
    from typing import TypedDict

    from arcguard.jsonio import JSONObject

    class TextBlock(TypedDict):
        type: Literal["text"]
        text: str

    class ToolUseBlock(TypedDict):
        type: Literal["tool_use"]
        id: NotRequired[str]
        name: NotRequired[str]
        input: NotRequired[object]  # the call's arguments as recorded, passed on unread

    class ToolResultBlock(TypedDict):
        type: Literal["tool_result"]
        tool_use_id: NotRequired[str]
        content: NotRequired[str | list[TextBlock]]
        is_error: NotRequired[bool]

    class OtherBlock(TypedDict):
        # Thinking (redacted or not), or any block of a kind arcguard does not read.
        type: Literal["thinking", "other"]

    Block = TextBlock | ToolUseBlock | ToolResultBlock | OtherBlock
    Content = str | list[Block]

    class MessageBody(TypedDict, total=False):
        id: str
        model: str
        content: Content

    class Attachment(TypedDict, total=False):
        type: str
        met: bool  # a `goal_status`'s
        condition: str
        prompt: Content  # a `queued_command`'s
        commandMode: str
        hookEvent: str  # a hook's attachment: the event whose hook wrote it
        content: str  # `hook_additional_context`: its texts, one a line
        message: str  # `hook_stopped_continuation`: the hook's stop reason

    class ApiError(TypedDict, total=False):
        status: int

    class Entry(TypedDict, total=False):
        """One transcript entry: `user` and `assistant` messages, `system` and `attachment`
        entries, and the fields shared by all of them."""

        type: str
        uuid: str
        timestamp: str
        sessionId: str
        agentId: str
        version: str
        cwd: str  # the session's working folder when the entry was written
        isSidechain: bool
        isMeta: bool
        isApiErrorMessage: bool
        isCompactSummary: bool
        isVisibleInTranscriptOnly: bool
        message: MessageBody  # user, assistant
        toolUseResult: object  # user: a tool's structured result, passed on unread
        attachment: Attachment  # attachment
        subtype: str  # system
        content: str  # system
        error: str | ApiError  # assistant: a string; system: an object with `status`

    TextField = Literal[
        "type", "uuid", "timestamp", "sessionId", "agentId", "version", "cwd", "subtype", "content"
    ]
    FlagField = Literal[
        "isSidechain",
        "isMeta",
        "isApiErrorMessage",
        "isCompactSummary",
        "isVisibleInTranscriptOnly",
    ]

THINKING_TYPES = frozenset({"thinking", "redacted_thinking"})
SYNTHETIC_MODEL = "<synthetic>"
FAILURE_CHARS = 2000  # of a failed result: its opening says whether it ran and what failed

_TEXT_FIELDS: tuple[TextField, ...] = (
    "type", "uuid", "timestamp", "sessionId", "agentId", "version", "cwd", "subtype", "content"
)  # fmt: skip
_FLAG_FIELDS: tuple[FlagField, ...] = (
    "isSidechain", "isMeta", "isApiErrorMessage", "isCompactSummary", "isVisibleInTranscriptOnly"
)  # fmt: skip


def parse_entry(raw: JSONObject) -> Entry:
    """The entry a line's JSON object holds: the fields arcguard reads, of the types it reads."""
    entry: Entry = {}
    for name in _TEXT_FIELDS:
        text = raw.get(name)
        if isinstance(text, str):
            entry[name] = text
    for flag in _FLAG_FIELDS:
        setting = raw.get(flag)
        if isinstance(setting, bool):
            entry[flag] = setting
    message = raw.get("message")
    if isinstance(message, dict):
        entry["message"] = _message_body(message)
    attachment = raw.get("attachment")
    if isinstance(attachment, dict):
        entry["attachment"] = _attachment(attachment)
    error = raw.get("error")
    if isinstance(error, str):
        entry["error"] = error
    elif isinstance(error, dict):
        status = error.get("status")
        entry["error"] = {"status": status} if isinstance(status, int) else {}
    if "toolUseResult" in raw:
        entry["toolUseResult"] = raw["toolUseResult"]
    return entry


def _message_body(raw: dict[str, object]) -> MessageBody:
    body: MessageBody = {}
    mid, model, content = raw.get("id"), raw.get("model"), _content(raw.get("content"))
    if isinstance(mid, str):
        body["id"] = mid
    if isinstance(model, str):
        body["model"] = model
    if content is not None:
        body["content"] = content
    return body


def _attachment(raw: dict[str, object]) -> Attachment:
    body: Attachment = {}
    for name in ("type", "condition", "commandMode", "hookEvent", "message"):
        text = raw.get(name)
        if isinstance(text, str):
            body[name] = text
    met, prompt, content = raw.get("met"), _content(raw.get("prompt")), raw.get("content")
    if isinstance(met, bool):
        body["met"] = met
    if prompt is not None:
        body["prompt"] = prompt
    if isinstance(content, list):  # a hook's added contexts, one a line
        content = "\n".join(part for part in content if isinstance(part, str))
    if isinstance(content, str):
        body["content"] = content
    return body


def _content(raw: object) -> Content | None:
    """A string, or the list of blocks arcguard reads (anything else in it is left out)."""
    if isinstance(raw, str):
        return raw
    if not isinstance(raw, list):
        return None
    return [block for block in map(_block, raw) if block is not None]


def _block(raw: object) -> Block | None:
    if not isinstance(raw, dict):
        return None
    kind = raw.get("type")
    if kind == "text":
        text = raw.get("text")
        return {"type": "text", "text": text} if isinstance(text, str) else None
    if kind == "tool_use":
        return _tool_use(raw)
    if kind == "tool_result":
        return _tool_result(raw)
    return {"type": "thinking" if kind in THINKING_TYPES else "other"}


def _tool_use(raw: dict[str, object]) -> ToolUseBlock:
    call: ToolUseBlock = {"type": "tool_use"}
    call_id, name = raw.get("id"), raw.get("name")
    if isinstance(call_id, str):
        call["id"] = call_id
    if isinstance(name, str):
        call["name"] = name
    if "input" in raw:
        call["input"] = raw["input"]
    return call


def _tool_result(raw: dict[str, object]) -> ToolResultBlock:
    result: ToolResultBlock = {"type": "tool_result"}
    call_id, failed, content = raw.get("tool_use_id"), raw.get("is_error"), raw.get("content")
    if isinstance(call_id, str):
        result["tool_use_id"] = call_id
    if isinstance(failed, bool):
        result["is_error"] = failed
    if isinstance(content, str):
        result["content"] = content
    elif isinstance(content, list):
        result["content"] = _text_blocks(content)
    return result


def _text_blocks(raw: list[object]) -> list[TextBlock]:
    return [block for block in map(_block, raw) if block is not None and block["type"] == "text"]


# Kinds of a final assistant message.
TOOL_USE = "tool_use"
TEXT = "text"
THINKING = "thinking"
OTHER = "other"  # only blocks of unknown types (image, server tools, ...): content, not empty
EMPTY = "empty"


@value
class Message:
    """One assistant API message, merged from its entries."""

    id: str
    texts: tuple[str, ...] = ()
    tool_uses: tuple[ToolUseBlock, ...] = ()
    tool_ids: tuple[str, ...] = ()
    thinking: bool = False
    unknown_blocks: int = 0
    synthetic: bool = False
    entries: int = 0

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

    def add_entry(self, entry: Entry) -> None:
        """Merge one transcript entry of this message (entries may arrive in any order)."""
        self.entries += 1
        message = entry.get("message", {})
        if entry.get("isApiErrorMessage") is True or message.get("model") == SYNTHETIC_MODEL:
            self.synthetic = True
        content = message.get("content")
        if isinstance(content, str):
            self.texts += (content,)
            return
        for block in content or ():
            self._add_block(block)

    def _add_block(self, block: Block) -> None:
        if block["type"] == "text":
            self.texts += (block["text"],)
        elif block["type"] == "tool_use":
            self.tool_uses += (block,)
            if "id" in block:
                self.tool_ids += (block["id"],)
        elif block["type"] == "thinking":
            self.thinking = True
        else:
            self.unknown_blocks += 1


def assistant_message_id(entry: Entry) -> str | None:
    """The `message.id` of a main-chain assistant entry, else None.

    Entries without an id (old or synthetic) fall back to their `uuid` so they still group.
    """
    if entry.get("type") != "assistant" or entry.get("isSidechain") is True:
        return None
    if "message" not in entry:
        return None
    mid = entry["message"].get("id")
    if mid:
        return mid
    uuid = entry.get("uuid")
    return f"uuid:{uuid}" if uuid is not None else None


def last_message(entries_newest_first: Iterable[Entry]) -> Message | None:
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


@value
class Exchange:
    """The end of the conversation: the newest assistant message, whether a tool result is newer
    (not answered yet, or answered with nothing), the hidden (`isMeta`) prompt it answers, and
    the texts of the failed tool results it answers (those between it and the assistant message
    before it, with no prompt between: `FAILURE_CHARS` of each)."""

    message: Message | None = None
    result_pending: bool = False
    meta_prompt: str | None = None
    meta_prompt_id: str | None = None
    failures: tuple[str, ...] = ()


def is_tool_result(entry: Entry) -> bool:
    """A main-chain `user` entry that carries tool results (the harness, not the operator)."""
    if entry.get("type") != "user" or entry.get("isSidechain") is True:
        return False
    content = entry.get("message", {}).get("content")
    return isinstance(content, list) and any(block["type"] == "tool_result" for block in content)


def last_exchange(entries_newest_first: Iterable[Entry]) -> Exchange:
    """The newest assistant message, whether a tool result came after it, and its prompt when
    that prompt is a hidden one (Claude Code's own, such as its resume prompt)."""
    exchange = Exchange()
    prompt_seen = False
    for entry in entries_newest_first:
        mid = assistant_message_id(entry)
        if mid is None:
            result = is_tool_result(entry)
            if result and not prompt_seen and exchange.message is not None:
                exchange.failures += _failures(entry)
            if exchange.message is None:
                exchange.result_pending = exchange.result_pending or result
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


def _failures(entry: Entry) -> tuple[str, ...]:
    content = entry.get("message", {}).get("content")
    blocks = content if isinstance(content, list) else []
    failed = [b for b in blocks if b["type"] == "tool_result" and b.get("is_error") is True]
    return tuple(result_text(b)[:FAILURE_CHARS] for b in failed)


def result_text(block: ToolResultBlock) -> str:
    """What the model saw of a tool result, as one string."""
    content = block.get("content", "")
    return content if isinstance(content, str) else "\n".join(b["text"] for b in content)


def _is_prompt(entry: Entry) -> bool:
    return (
        entry.get("type") == "user"
        and entry.get("isSidechain") is not True
        and not is_tool_result(entry)
    )


def _note_meta_prompt(exchange: Exchange, entry: Entry) -> None:
    if entry.get("isMeta") is not True:
        return
    content = entry.get("message", {}).get("content")
    if content is None:
        return
    if not isinstance(content, str):
        content = " ".join(b["text"] for b in content if b["type"] == "text")
    exchange.meta_prompt = content
    exchange.meta_prompt_id = entry.get("uuid") or None


def message_with_tool(entries_newest_first: Iterable[Entry], tool_ids: set[str]) -> Message | None:
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


def parsed(line: bytes, loads: Callable[[bytes], object]) -> Entry | None:
    """The entry on one line, or None when the line is not one JSON object."""
    try:
        document = loads(line)
    except ValueError:
        return None
    return parse_entry(document) if isinstance(document, dict) else None


def conversation_entries(
    lines: Iterable[bytes], loads: Callable[[bytes], object]
) -> Iterator[Entry]:
    """Like `assistant_entries`, also letting through `user` entries (prompts, tool results)."""
    for line in lines:
        if b'"assistant"' in line or b'"user"' in line:
            entry = parsed(line, loads)
            if entry is not None:
                yield entry


def assistant_entries(lines: Iterable[bytes], loads: Callable[[bytes], object]) -> Iterator[Entry]:
    """Parse the lines that may be assistant entries; skip everything unparseable.

    The byte test is a cheap filter that spares parsing big non-message entries
    (`api-request-blob`, tool results); the entry's own `type` is still checked afterwards.
    """
    for line in lines:
        if b'"assistant"' in line:
            entry = parsed(line, loads)
            if entry is not None:
                yield entry
