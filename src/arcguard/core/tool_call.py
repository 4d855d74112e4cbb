"""One tool call and what the harness reported of it, as the tool hooks read them.

Claude Code names a call by four payload fields (`tool_name`, `tool_input`, `tool_use_id`,
`agent_id`) in PreToolUse, PostToolUse, PostToolUseFailure and each entry of PostToolBatch.
The hooks read them once into a `ToolCall`, and a finished call's report into a `ToolResult`;
the loop guard works on those values only. A tool's input and response are whatever JSON the
tool takes and gives, so they stay `object`, checked where they are looked into.
"""

from __future__ import annotations

from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

RESULT_EVENTS = ("PostToolUse", "PostToolUseFailure")


class _NoResponse:
    """The report had no `tool_response` at all (JSON `null` is a response)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_RESPONSE"


NO_RESPONSE = _NoResponse()


@value
class ToolCall:
    name: str
    input: object = None  # the tool's own parameters: any JSON
    id: str = ""  # tool_use_id; empty when the payload had none
    agent: str | None = None  # agent_id: the subagent that made the call; None for the main one


@value
class ToolResult:
    """A finished call as PostToolUse, PostToolUseFailure or a PostToolBatch entry reports it."""

    failed: bool = False  # PostToolUseFailure: the call failed (or never ran)
    response: object = NO_RESPONSE  # tool_response: any JSON
    error: object = None  # a failure's error: text, as a rule
    interrupted: bool = False  # is_interrupt: only a literal `true` counts
    duration_ms: float | None = None

    @property
    def responded(self) -> bool:
        return self.response is not NO_RESPONSE


def read_agent(fields: Mapping[str, object]) -> str | None:
    agent = fields.get("agent_id")
    return agent if isinstance(agent, str) else None


def read_call(fields: Mapping[str, object], agent: str | None) -> ToolCall | None:
    """The call `fields` name (a payload, or one entry of a batch); None without a tool name."""
    name = fields.get("tool_name")
    if not isinstance(name, str):
        return None
    given = fields.get("tool_use_id")
    return ToolCall(name, fields.get("tool_input"), given if isinstance(given, str) else "", agent)


def read_result(fields: Mapping[str, object], *, event: object) -> ToolResult:
    """The report of a finished call. A payload whose event is not named says it failed by
    carrying an `error`."""
    if event not in RESULT_EVENTS:
        event = "PostToolUseFailure" if "error" in fields else "PostToolUse"
    duration = fields.get("duration_ms")
    return ToolResult(
        failed=event == "PostToolUseFailure",
        response=fields.get("tool_response", NO_RESPONSE),
        error=fields.get("error"),
        interrupted=fields.get("is_interrupt") is True,
        duration_ms=(
            float(duration)
            if isinstance(duration, int | float) and not isinstance(duration, bool)
            else None
        ),
    )
