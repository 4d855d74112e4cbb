"""Claude Code's hook output shapes: the only place that knows the wire format."""

from __future__ import annotations

from arcguard.text import clip


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.schema import EventName
    from arcguard.core.schema import HookSpecificOutput
    from arcguard.core.schema import Output as Output

# Claude Code caps `additionalContext` at 10,000 characters and moves longer text to a file,
# showing the model only a preview: every text arcguard sends stays below that, whole.
MAX_TEXT = 9000


def bounded(text: str) -> str:
    """`text`, cut to MAX_TEXT characters (an ellipsis marks the cut)."""
    return clip(text, MAX_TEXT)


def block_stop(reason: str) -> Output:
    """Stop: keep the session going, with `reason` as the model's next instruction."""
    return {"decision": "block", "reason": bounded(reason)}


def continue_stop(reason: str, *, via_context: bool) -> Output:
    """Stop: one more turn with `reason` for the model. `via_context` (releases that support
    it): as additional context, which neither the user nor the model reads as an error."""
    return add_context("Stop", reason) if via_context else block_stop(reason)


def deny_tool(reason: str) -> Output:
    """PreToolUse: the call does not run; the model gets `reason` as an error tool result."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": bounded(reason),
        }
    }


def add_context(event_name: EventName, text: str) -> Output:
    """Text added to the model's context next to the event (Claude Code caps it at 10,000)."""
    return {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": bounded(text)}}


def pause(reason: str) -> Output:
    """End the session now; `reason` is shown to the user."""
    return {"continue": False, "stopReason": bounded(reason)}


def merge(*outputs: Output | None) -> Output | None:
    """One object from several outputs (a pause with a deny, context with a pause, ...)."""
    merged: Output = {}
    for output in outputs:
        if not output:
            continue
        specific: HookSpecificOutput = {
            **merged.get("hookSpecificOutput", {}),
            **output.get("hookSpecificOutput", {}),
        }
        merged.update(output)
        if specific:
            merged["hookSpecificOutput"] = specific
    return merged or None
