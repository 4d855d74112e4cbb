"""The hook payloads, once read: each hook's `read` checks the fields it uses of Claude Code's
JSON and returns one of these, and the hook works on it from then on.

Types only: nothing here runs, so a hook pays nothing to import it.
"""

from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypedDict

    from arcguard.core.tool_call import ToolCall
    from arcguard.core.tool_call import ToolResult

    class PromptPayload(TypedDict):
        """UserPromptSubmit."""

        session_id: str
        prompt: str
        cwd: str | None  # None when missing, empty or not text

    class SessionStartPayload(TypedDict):
        session_id: str
        source: str  # "unknown" when missing or not text
        cwd: str | None  # None when missing, empty or not text

    class StopPayload(TypedDict):
        session_id: str
        transcript_path: str | None  # None when missing, empty or not text
        last_assistant_message: str | None  # None when missing or not text
        stop_hook_active: bool  # only a literal `true` counts
        background_running: bool | None  # `background_tasks` lists one running (None: no list)
        # The payload has a field only releases that leave `last_assistant_message` out for a
        # final message without text send: its absence then means "no text".
        newer_release: bool

    class FailurePayload(TypedDict):
        session_id: str
        error: str  # "unknown" when missing or not text

    class LimitPayload(TypedDict):
        session_id: str
        error: str | None  # None when missing or not text
        last_assistant_message: str | None  # the error text; None when missing or not text
        transcript_path: str | None  # None when missing, empty or not text

    class StatusPayload(TypedDict):
        session_id: str
        # `rate_limits.<window>.resets_at` as seconds by window (`limits.reset_times`).
        resets: dict[str, float]

    class PreToolPayload(TypedDict):
        session_id: str
        call: ToolCall
        # The session's transcript as the payload names it; a subagent's own file is found from
        # it and the call's agent where it is read (`hook_reader.path_for`).
        transcript_path: str | None

    class PostToolPayload(TypedDict):
        session_id: str
        call: ToolCall
        result: ToolResult

    class BatchPayload(TypedDict):
        session_id: str
        agent: str | None
        calls: list[tuple[ToolCall, ToolResult]]  # each entry's `tool_response` its result
        tool_use_ids: list[str]  # the entries' ids, sorted
        transcript_path: str | None
