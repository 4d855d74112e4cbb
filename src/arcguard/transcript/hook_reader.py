"""The hook path's view of the transcript: a bounded tail, parsed with the fast JSON reader."""

from __future__ import annotations

import os

from arcguard import jsonio
from arcguard.storage.paths import SAFE_CHARS
from arcguard.transcript import records
from arcguard.transcript.tail import NotReadable
from arcguard.transcript.tail import lines_newest_first


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def path_for(payload: dict[str, Any]) -> str | None:
    """The transcript of whoever made the calls: a subagent's own file, else the session's."""
    main = payload.get("transcript_path")
    if not isinstance(main, str) or not main:
        return None
    agent = payload.get("agent_id")
    if isinstance(agent, str) and agent:
        if not set(agent) <= SAFE_CHARS or agent.startswith("."):
            return None
        sid = os.path.basename(main).removesuffix(".jsonl")
        return os.path.join(os.path.dirname(main), sid, "subagents", f"agent-{agent}.jsonl")
    return main


def message_with_tool(path: str, tool_ids: set[str], max_bytes: int) -> records.Message | None:
    try:
        lines = lines_newest_first(path, max_bytes)
        return records.message_with_tool(records.assistant_entries(lines, jsonio.loads), tool_ids)
    except NotReadable:
        return None


def last_message(path: str, max_bytes: int) -> records.Message | None:
    """The newest assistant message of the transcript's tail; None if none or unreadable."""
    try:
        lines = lines_newest_first(path, max_bytes)
        return records.last_message(records.assistant_entries(lines, jsonio.loads))
    except NotReadable:
        return None


def last_exchange(path: str, max_bytes: int) -> records.Exchange | None:
    """The newest assistant message and whether a tool result is newer; None if unreadable."""
    try:
        lines = lines_newest_first(path, max_bytes)
        return records.last_exchange(records.conversation_entries(lines, jsonio.loads))
    except NotReadable:
        return None
