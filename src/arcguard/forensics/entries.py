"""What a transcript `user` entry is: the operator, a tool result, or something the harness made.

Pure, over typed entries (`transcript.records.Entry`). Forensics and replay share it, so "the
operator spoke" means the same thing in the measurement, in the replayed hook events and in the
loop guard's backstop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcguard.core.words.final_words import is_task_notification
from arcguard.transcript.records import result_text as result_text  # one reading for all


if TYPE_CHECKING:
    from collections.abc import Sequence

    from arcguard.transcript.records import Attachment
    from arcguard.transcript.records import Block
    from arcguard.transcript.records import Entry
    from arcguard.transcript.records import ToolResultBlock

OPERATOR = "operator"  # a prompt a person typed (a slash command included)
TASK_NOTIFICATION = "task_notification"  # the harness waking the session: not the operator
TOOL_RESULT = "tool_result"
STOP_FEEDBACK = "stop_feedback"  # a Stop hook's block reason, fed back to the model
META = "meta"  # other isMeta entries: caveats, skill bodies, resume prompts, hook context
COMPACT_SUMMARY = "compact_summary"
INTERRUPT = "interrupt"  # "[Request interrupted by user...]": Stop does not fire
LOCAL_OUTPUT = "local_output"  # a local command's printed output
OTHER = "other"

STOP_FEEDBACK_PREFIX = "Stop hook feedback:"
INTERRUPT_PREFIX = "[Request interrupted by user"
LOCAL_OUTPUT_PREFIXES = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<bash-stdout>",
    "<bash-stderr>",
)
COMMAND_NAME = ("<command-name>", "</command-name>")
COMMAND_ARGS = ("<command-args>", "</command-args>")
COMPACT_PREFIX = "This session is being continued from a previous conversation"


def content_text(content: str | Sequence[Block] | None) -> str:
    """The text of a message's content: a string, or its text blocks joined."""
    if content is None or isinstance(content, str):
        return content or ""
    return "\n".join(b["text"] for b in content if b["type"] == "text")


def message_text(entry: Entry) -> str:
    """The text of an entry's message (empty without one)."""
    return content_text(entry.get("message", {}).get("content"))


def tool_results(entry: Entry) -> list[ToolResultBlock]:
    content = entry.get("message", {}).get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if b["type"] == "tool_result"]


def classify_user(entry: Entry) -> tuple[str, str]:
    """(kind, text) of a `user` entry; the text is the prompt as the hook would see it."""
    if tool_results(entry):
        return TOOL_RESULT, ""
    text = message_text(entry)
    body = text.lstrip()
    if is_task_notification(body):
        return TASK_NOTIFICATION, text
    if entry.get("isCompactSummary") is True or (
        entry.get("isVisibleInTranscriptOnly") is True and body.startswith(COMPACT_PREFIX)
    ):
        return COMPACT_SUMMARY, ""
    if entry.get("isMeta") is True:
        return (STOP_FEEDBACK if body.startswith(STOP_FEEDBACK_PREFIX) else META), text
    if body.startswith(INTERRUPT_PREFIX):
        return INTERRUPT, ""
    if body.startswith(LOCAL_OUTPUT_PREFIXES):
        return LOCAL_OUTPUT, ""
    if COMMAND_NAME[0] in body:
        return OPERATOR, slash_command(body)
    if not body:
        return OTHER, ""
    return OPERATOR, text


def _between(text: str, marks: tuple[str, str]) -> str:
    start = text.find(marks[0])
    if start < 0:
        return ""
    start += len(marks[0])
    end = text.find(marks[1], start)
    return text[start : end if end >= 0 else len(text)].strip()


def slash_command(body: str) -> str:
    """A recorded slash command (`<command-name>/x</command-name><command-args>..`) as typed."""
    name = _between(body, COMMAND_NAME)
    args = _between(body, COMMAND_ARGS)
    if name and not name.startswith("/"):
        name = "/" + name
    return f"{name} {args}".strip()


def is_synthetic(entry: Entry) -> bool:
    return (
        entry.get("isApiErrorMessage") is True
        or entry.get("message", {}).get("model") == "<synthetic>"
    )


def is_api_error(entry: Entry) -> bool:
    """A synthetic entry the harness wrote for a failed API call (not a local placeholder)."""
    if entry.get("isApiErrorMessage") is True:
        return True
    if not is_synthetic(entry):
        return False
    return message_text(entry).lstrip().startswith(("API Error", "Claude AI usage limit reached"))


RATE_LIMIT = "rate_limit"
OVERLOAD = "overload"
OTHER_ERROR = "other"
_RATE_WORDS = (
    "rate limit",
    "rate_limit",
    "usage limit",
    "(429)",
    " 429",
    "session limit",
    "weekly limit",
    "limit reached",
    "quota",
)
_OVERLOAD_WORDS = ("overloaded", "(529)", " 529")


def api_error_kind(entry: Entry) -> str:
    """rate limit, overload or other: the harness's `error` field first, then its own text."""
    error = entry.get("error")
    if isinstance(error, str):
        if error == RATE_LIMIT:
            return RATE_LIMIT
        if error in ("overloaded", "overloaded_error"):
            return OVERLOAD
    text = message_text(entry).lower()
    if any(word in text for word in _RATE_WORDS):
        return RATE_LIMIT
    if any(word in text for word in _OVERLOAD_WORDS):
        return OVERLOAD
    return OTHER_ERROR


NETWORK = "network"  # no HTTP answer at all: a connection reset, a timeout, DNS


def system_error_kind(entry: Entry) -> str | None:
    """The kind of a `system` entry recording a failed API call (None for any other entry).

    Claude Code writes one per failed attempt, retries included, so on its own it is not an
    ending: only when no real reply follows before the next prompt did the turn end on it.
    """
    if entry.get("type") != "system" or entry.get("subtype") != "api_error":
        return None
    error = entry.get("error")
    status = None if error is None or isinstance(error, str) else error.get("status")
    if status == 429:
        return RATE_LIMIT
    if status == 529:
        return OVERLOAD
    return OTHER_ERROR if isinstance(status, int) else NETWORK


QUEUED_COMMAND = "queued_command"
HOOK_CONTEXT = "hook_additional_context"
HOOK_STOPPED = "hook_stopped_continuation"
ARCGUARD_TAG = "[arcguard]"
PAUSE_MARK = "arcguard paused this session"
HOOK_DENIED = "hook error:"


def _hook_attachment(entry: Entry, kind: str) -> Attachment | None:
    attachment = entry.get("attachment")
    if entry.get("type") != "attachment" or attachment is None:
        return None
    return attachment if attachment.get("type") == kind else None


def stop_continuation(entry: Entry) -> str | None:
    """The text a Stop hook sent the model back to work with as `additionalContext` (releases
    from 2.1.163 record it as a `hook_additional_context` attachment of the Stop event; a
    `decision: block` is a `user` entry "Stop hook feedback:", see `classify_user`)."""
    attachment = _hook_attachment(entry, HOOK_CONTEXT)
    if attachment is None or attachment.get("hookEvent") != "Stop":
        return None
    return attachment.get("content", "")


def hook_stop(entry: Entry) -> str | None:
    """The reason a hook gave for ending the session (`continue: false`), from the
    `hook_stopped_continuation` attachment current releases write for it."""
    attachment = _hook_attachment(entry, HOOK_STOPPED)
    return None if attachment is None else attachment.get("message", "")


def hook_denial(text: str) -> str | None:
    """The reason a PreToolUse hook denied a call, from the call's error result: "PreToolUse:Bash
    hook error: R" on current releases, the bare R on older ones (2.1.78), where only
    arcguard's own reasons can be told from a failure. None: the call ran and failed."""
    if text.startswith("PreToolUse:") and HOOK_DENIED in text[:80]:
        return text[text.index(HOOK_DENIED) + len(HOOK_DENIED) :].lstrip()
    if text.startswith((ARCGUARD_TAG, PAUSE_MARK)):
        return text
    return None


def classify_queued(entry: Entry) -> tuple[str, str] | None:
    """(kind, text) of a prompt Claude Code queued while the model worked, delivered as an
    `attachment` entry; None for every other attachment. A person's queued prompt is the
    operator; the harness queues its task notifications the same way."""
    attachment = entry.get("attachment")
    if entry.get("type") != "attachment" or attachment is None:
        return None
    if attachment.get("type") != QUEUED_COMMAND:
        return None
    text = content_text(attachment.get("prompt"))
    if attachment.get("commandMode") == "task-notification" or is_task_notification(text):
        return TASK_NOTIFICATION, text
    if not text.strip():
        return None
    return OPERATOR, text


# Operator messages that only say "go on" (how often a stop needed a push), compared after
# lower-casing and dropping punctuation: whole message only, never a substring.
CONTINUE_NUDGES = frozenset(
    {
        "continue",
        "continue please",
        "please continue",
        "pls continue",
        "keep going",
        "keep going please",
        "please keep going",
        "go on",
        "go ahead",
        "carry on",
        "proceed",
        "please proceed",
        "resume",
        "keep working",
        "continue working",
        "dont stop",
        "do not stop",
        "next",
        "yes continue",
        "ok continue",
        "okay continue",
        "continue the work",
        "keep at it",
        "finish it",
    }
)


def is_continue_nudge(text: str) -> bool:
    if len(text) > 40:
        return False
    words = "".join(c if c.isalnum() or c.isspace() else "" for c in text.lower()).split()
    return " ".join(words) in CONTINUE_NUDGES
