"""What a hook decided, and Claude Code's output for it: the only place that knows the wire
format.

The core decides in the records below (a deny, a pause, a continuation, added context, a line
for the user, a terminal alert); a hook run's decisions are a tuple of them, empty when it
decided nothing. `output` turns them into the JSON object Claude Code reads, for the event
the hook answers and the release in use; `read` turns such an object back into records, for
the tools that only see what a hook printed (replay's subprocesses, the SDK's callbacks).
"""

from __future__ import annotations

from arcguard.text import clip
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.names import EventName
    from arcguard.core.schema import HookSpecificOutput
    from arcguard.core.schema import Output as Output
    from arcguard.jsonio import JSONObject

# Claude Code caps `additionalContext` at 10,000 characters and moves longer text to a file,
# showing the model only a preview: every text arcguard sends stays below that, whole.
MAX_TEXT = 9000
# Several texts for the model in one hook run reach it as one, in this order.
CONTEXT_JOIN = "\n\n"


def bounded(text: str) -> str:
    """`text`, cut to MAX_TEXT characters (an ellipsis marks the cut)."""
    return clip(text, MAX_TEXT)


@value
class Said:
    """One decision and its text; each kind is a subclass (plain: a hook loads all six, and a
    plain subclass costs a fraction of another value class)."""

    text: str


class Deny(Said):
    """PreToolUse: the call does not run; the model gets the text as the call's error."""


class Pause(Said):
    """End the session now; the text is shown to the user."""


class Continue(Said):
    """Stop: one more turn, with the text as the model's next instruction."""


class Context(Said):
    """Text added to the model's context beside the event."""


class Notice(Said):
    """One line for the user about what arcguard did; the model never reads it."""


class Alert(Said):
    """A terminal sequence (a bell, a window title) for Claude Code to emit."""


if TYPE_CHECKING:
    Decision = Deny | Pause | Continue | Context | Notice | Alert
    # One hook run's decisions, in order.
    Decisions = tuple[Decision, ...]


def merge(*parts: Decisions | None) -> Decisions | None:
    """The decisions of several steps of one hook run, in order (None: nothing decided)."""
    joined = tuple(d for part in parts if part for d in part)
    return joined or None


def only_pauses(decisions: Decisions) -> Decisions:
    """The pauses among `decisions` (an event with no channel for the rest)."""
    return tuple(d for d in decisions if isinstance(d, Pause))


def context_text(decisions: Decisions) -> str | None:
    """The context `decisions` add for the model, as one text, or None."""
    texts = [d.text for d in decisions if isinstance(d, Context)]
    return CONTEXT_JOIN.join(texts) if texts else None


def output(
    decisions: Decisions | None, event: EventName, *, via_context: bool = False
) -> Output | None:
    """Claude Code's output for `decisions` on `event` (None: nothing to print).

    `via_context` (Stop, releases that support it): a continuation goes as additional context,
    which neither the user nor the model reads as an error; older releases get a block.
    """
    out: Output = {}
    specific: HookSpecificOutput = {}
    texts = []
    for d in decisions or ():
        if isinstance(d, Deny):
            specific["permissionDecision"] = "deny"
            specific["permissionDecisionReason"] = bounded(d.text)
        elif isinstance(d, Pause):
            out["continue"] = False
            out["stopReason"] = bounded(d.text)
        elif isinstance(d, Continue) and not via_context:
            out["decision"] = "block"
            out["reason"] = bounded(d.text)
        elif isinstance(d, Continue | Context):
            texts.append(d.text)
        elif isinstance(d, Notice):
            out["systemMessage"] = d.text
        else:
            out["terminalSequence"] = d.text
    if texts:
        specific["additionalContext"] = bounded(CONTEXT_JOIN.join(texts))
    if specific:
        out["hookSpecificOutput"] = {"hookEventName": event, **specific}
    return out or None


def read(printed: JSONObject | None) -> Decisions:
    """The decisions a hook's printed output (parsed) carries, as far as it tells them: a Stop's
    added context is its continuation."""
    if not printed:
        return ()
    found: list[Decision] = []
    raw = printed.get("hookSpecificOutput")
    specific = raw if isinstance(raw, dict) else {}
    if specific.get("permissionDecision") == "deny":
        found.append(Deny(str(specific.get("permissionDecisionReason", ""))))
    if printed.get("continue") is False:
        found.append(Pause(str(printed.get("stopReason", ""))))
    if printed.get("decision") == "block":
        found.append(Continue(str(printed.get("reason", ""))))
    text = specific.get("additionalContext")
    if isinstance(text, str) and text:
        found.append(Continue(text) if specific.get("hookEventName") == "Stop" else Context(text))
    line = printed.get("systemMessage")
    if isinstance(line, str):
        found.append(Notice(line))
    sequence = printed.get("terminalSequence")
    if isinstance(sequence, str):
        found.append(Alert(sequence))
    return tuple(found)


def with_context_first(printed: JSONObject, event: str, text: str) -> JSONObject:
    """A printed output (parsed) with `text` added for the model before any context it carries
    (for callers that hold only the printed form)."""
    raw = printed.get("hookSpecificOutput")
    specific = dict(raw) if isinstance(raw, dict) else {"hookEventName": event}
    before = specific.get("additionalContext")
    joined = f"{text}{CONTEXT_JOIN}{before}" if isinstance(before, str) else text
    specific["additionalContext"] = joined
    return {**printed, "hookSpecificOutput": specific}
