"""Operation identity: what makes two tool calls "the same call", and what a call's outcome is.

The key is the tool name plus the canonical JSON of its input, minus control parameters that
do not change what the call does (for Claude Code's own Bash: `timeout`, `description`), with
meaningless defaults made explicit (Read's offset and limit). Command text is never rewritten:
quoting changes meaning. Other tools (MCP, custom, a tool merely named like Bash) keep every
parameter.
"""

from __future__ import annotations

from arcguard import jsonio
from arcguard.core.hashing import digest
from arcguard.core.schema import LABEL_BYTES
from arcguard.core.schema import SUBJECT_CHARS
from arcguard.core.schema import TOOL_NAME_CHARS
from arcguard.core.state import clip_json
from arcguard.core.words.redact import WINDOW
from arcguard.core.words.redact import mask
from arcguard.text import clip


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.tool_call import ToolCall
    from arcguard.core.tool_call import ToolResult

BASH = "Bash"
CONTROL_PARAMS = {BASH: ("timeout", "description")}
EXPLICIT_DEFAULTS = {"Read": {"offset": 1, "limit": 2000}}
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
USER_TOOLS = frozenset({"AskUserQuestion", "ExitPlanMode"})  # their result is the user's answer
# Claude Code's Bash: default and maximum timeout in milliseconds.
BASH_DEFAULT_TIMEOUT_MS = 120_000
BASH_MAX_TIMEOUT_MS = 600_000
# The harness's words for a Bash timeout (see `is_harness_timeout`).
TIMEOUT_EXIT_LINE = "Exit code 143"
TIMEOUT_LINE = "Command timed out"
DURATION_CHARS = frozenset("0123456789.msh ")

COMPLETED = "completed"
FAILED = "failed"
TIMED_OUT = "timed_out"
UNKNOWN = "unknown"
NOT_RUN = "not_run"  # cancelled, interrupted, refused: the call did not execute
# How Claude Code words a call that never ran: cancelled because a parallel call failed, refused
# by the user, or interrupted (a PreToolUse hook's deny is recognised in `never_ran`).
NEVER_RAN_MARKS = (
    "Sibling tool call errored",
    "The user doesn't want to proceed",
    "[Request interrupted by user",
)
# Claude Code frames in a tool_use_error the calls it refused before they ran: its input checks
# (a file not read yet, a string to replace not found, a bad parameter), an unknown tool, a
# cancelled parallel call, a permission check. No hook runs for an input check's refusal, so
# the live hooks never see one. The one framed text of a call that did run is a tool that threw.
# PostToolBatch gives only the text the model saw, with no flag for a call that never ran: the
# frame tells it, and so do the permission texts (a line of their own).
RAN_AND_THREW = "Error calling tool"
# The user refused the call in the permission prompt; with a reason, the reason follows the
# words "the user said:" on the next lines.
REJECTED = "The user doesn't want to proceed with this tool use."
USER_SAID = "the user said:"
# How an answered question or an approved plan opens: the rest is the user's choice.
USER_ANSWERS = (
    "User has answered your questions",
    "Your questions have been answered",
    "The user answered",
    "User has approved",
)
REFUSAL_PREFIXES = (
    "This command requires approval",
    "Permission for this tool use was denied",
    REJECTED,
)
PERMISSION_DENIED = ("Permission to ", " has been denied")
TOOL_USE_ERROR = ("<tool_use_error>", "</tool_use_error>")
# The harness's stand-in for a call that printed nothing: "(<tool name> completed with no
# output)". A tool name is short, so a longer line is a command's own output.
EMPTY_OUTPUT = ("(", " completed with no output)")
MAX_EMPTY_OUTPUT_CHARS = 160
# The largest file content an Edit's effect is worked out for (the hook payload, which holds
# the original, is at most 4 MiB).
EDIT_EFFECT_CHARS = 4 * 1024 * 1024
# How much of a command or path a label looks at (it shows at most SUBJECT_CHARS of it).
MASKED_WINDOW = WINDOW
# The latest masked subjects. Several rules ask for one call's label in one hook run (its
# repeat record, its step in the turn, the stuck rule), each under the session's lock; the
# masking is the costly part, so it is done once per subject. A memo, not state: the label is
# the same with it or without it.
_MASKED: dict[str, str] = {}
MASKED_MEMO = 32


def operation_key(call: ToolCall) -> str:
    given = call.input
    params = dict(given) if isinstance(given, dict) else {"input": given}
    for name in CONTROL_PARAMS.get(call.name, ()):
        params.pop(name, None)
    for name, default in EXPLICIT_DEFAULTS.get(call.name, {}).items():
        if params.get(name) is None:
            params[name] = default
    return jsonio.dumps([call.name, params])


def operation_id(call: ToolCall) -> str:
    return digest(operation_key(call))


def subject(call: ToolCall) -> str:
    """What an allow-list glob is matched against besides the tool name: command or path."""
    if isinstance(call.input, dict):
        for field in ("command", "file_path", "path", "url", "pattern", "query"):
            value = call.input.get(field)
            if isinstance(value, str):
                return value
    return ""


def label(call: ToolCall, limit: int = SUBJECT_CHARS) -> str:
    """Short human description of a call, for messages and logs (at most `LABEL_BYTES` in
    the state file)."""
    what = clip(masked_subject(call), min(limit, SUBJECT_CHARS))
    name = clip(call.name, TOOL_NAME_CHARS)
    return clip_json(f"{name}: {what}" if what else name, LABEL_BYTES)


def masked_subject(call: ToolCall) -> str:
    """The start of the call's command or path, on one line, its obvious secrets masked.

    A window far wider than a label is masked, so a secret the label's clip would cut is
    masked whole first (`redact.mask`: an obvious one never reaches the state, a log or a
    reason), and a command of any size costs the same."""
    window = " ".join(subject(call)[:MASKED_WINDOW].split())
    masked = _MASKED.get(window)
    if masked is None:
        if len(_MASKED) >= MASKED_MEMO:
            _MASKED.clear()
        masked = _MASKED[window] = mask(window)
    return masked


def effective_timeout(call: ToolCall) -> int | None:
    """The timeout (ms) Claude Code's Bash will really apply, or None if not Bash/invalid."""
    if call.name != BASH or not isinstance(call.input, dict):
        return None
    raw = call.input.get("timeout", BASH_DEFAULT_TIMEOUT_MS)
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not raw > 0:
        return None
    if raw != raw or raw == float("inf"):
        return None
    return int(min(raw, BASH_MAX_TIMEOUT_MS))


def outcome(call: ToolCall, result: ToolResult) -> str:
    """`kind` or `kind:hash` of a finished call, from what the harness reported.

    A timeout is the harness's word (PostToolUseFailure saying the command timed out, with a
    duration near the timeout), never the command's own output.
    """
    if result.failed:
        if result.interrupted:
            return NOT_RUN
        error = result.error
        error = error if isinstance(error, str) else jsonio.dumps(error)
        if never_ran(error):
            return NOT_RUN
        if _is_timeout(call, error, result.duration_ms):
            return TIMED_OUT
        return f"{FAILED}:{digest(error)}"
    if not result.responded:
        return UNKNOWN
    response = result.response
    if isinstance(response, str) and response.lstrip().startswith(REJECTED):
        return NOT_RUN  # the batch's text for a call the user refused: it never ran
    return f"{COMPLETED}:{digest(jsonio.dumps(response))}"


def carries_user_words(call_name: str, result: ToolResult) -> bool:
    """The result brings the user's own words: a refusal with a reason, a question answered,
    a plan approved. New information by definition, whatever the call repeated."""
    text = result.error if result.failed else result.response
    if isinstance(text, str):
        head = text.lstrip()[:400]
        if head.startswith("<tool_use_error>"):
            head = head[len("<tool_use_error>") :]
        if head.startswith(REJECTED):
            return USER_SAID in head
        return head.startswith(USER_ANSWERS)
    # A user tool's structured result (its answers, the approved plan) on PostToolUse.
    return call_name in USER_TOOLS and not result.failed and isinstance(text, dict)


def never_ran(error: object) -> bool:
    """The harness's error text says the call was cancelled or refused before it ran.

    Only the start of the text is looked at: a command that ran may print any of these words
    later in its output.
    """
    if not isinstance(error, str):
        return False
    head = error.lstrip()[:200]
    opening = TOOL_USE_ERROR[0]
    if head.startswith(opening):
        return not head[len(opening) :].startswith(RAN_AND_THREW)
    return any(head.startswith(mark) for mark in NEVER_RAN_MARKS) or (
        head.startswith("PreToolUse:") and "hook error:" in head[:80]
    )


# Framed texts of calls refused after the hooks had their say, or cancelled mid-batch.
AFTER_HOOKS_MARKS = (*NEVER_RAN_MARKS, "Cancelled:", "Error: Streaming fallback", "PreToolUse:")


def refused_before_hooks(text: str) -> bool:
    """The whole text is Claude Code's input check refusing the call (a string to replace not
    in the file, a file not read yet, a wrongly typed parameter, an unknown tool): no hook ran
    for such a call, so `replay` fires none either."""
    opening, closing = TOOL_USE_ERROR
    if not (text.startswith(opening) and text.rstrip().endswith(closing)):
        return False
    return not text[len(opening) :].startswith((RAN_AND_THREW, *AFTER_HOOKS_MARKS))


def batch_never_ran(response: object) -> bool:
    """A PostToolBatch result is the harness's text for a call that never ran.

    Only whole texts of the harness's own shapes count: a command that ran may print the same
    words, but not as its entire output framed the way the harness frames them. A text this
    cannot place is taken as a result, so the worst case is the rule as it was before.
    """
    if not isinstance(response, str):
        return False
    text = response.strip()
    opening, closing = TOOL_USE_ERROR
    if text.startswith(opening) and text.endswith(closing):
        return not text[len(opening) :].startswith(RAN_AND_THREW)
    if text.startswith("PreToolUse:") and "hook error:" in text[:80]:
        return True  # a PreToolUse hook's deny, arcguard's own or another's: any reason
    if "\n" in text:
        return False  # the permission texts are one line
    start, denied = PERMISSION_DENIED
    return text.startswith(REFUSAL_PREFIXES) or (text.startswith(start) and denied in text)


def _is_timeout(call: ToolCall, error: str, duration: float | None) -> bool:
    limit = effective_timeout(call)
    if limit is None or duration is None:
        return False
    return is_harness_timeout(error) and duration >= 0.9 * limit


def is_harness_timeout(error: str) -> bool:
    """The error text has the harness's own timeout shape, not merely the words.

    Claude Code kills a timed-out command (exit 143, SIGTERM) and writes the error as the exit
    code line first and its own "Command timed out after 1s" line last. A command can print
    the same words anywhere in its output, but not outside that frame.
    """
    lines = error.splitlines()
    if len(lines) < 2 or lines[0] != TIMEOUT_EXIT_LINE:
        return False
    prefix, _, after = lines[-1].partition(" after ")
    return (
        prefix == TIMEOUT_LINE
        and 0 < len(after) <= 16
        and after[0].isdigit()
        and set(after) <= DURATION_CHARS
    )


def is_empty_result(result: ToolResult) -> bool:
    """A completed call that printed nothing: it tells nothing, so it is never fresh evidence."""
    if not result.responded:
        return False  # a failure: its error text is evidence
    response = result.response
    if isinstance(response, dict) and ("stdout" in response or "stderr" in response):
        return not response.get("stdout") and not response.get("stderr")
    if isinstance(response, str):
        return is_empty_output_text(response)
    return response in (None, [], {})


def is_empty_output_text(text: str) -> bool:
    """The text the model sees for a call that printed nothing, as PostToolBatch reports it:
    empty, or the harness's one-line placeholder ("(Bash completed with no output)")."""
    text = text.strip()
    return not text or (
        text.startswith(EMPTY_OUTPUT[0])
        and text.endswith(EMPTY_OUTPUT[1])
        and "\n" not in text
        and len(text) <= MAX_EMPTY_OUTPUT_CHARS
    )


def is_confirmed_edit(call: ToolCall, response: object) -> bool:
    """A write tool whose response shows the content really changed (identical bytes: no)."""
    if call.name not in EDIT_TOOLS or not isinstance(response, dict):
        return False
    patch = response.get("structuredPatch")
    if isinstance(patch, list) and patch:
        return True
    if "content" in response and "originalFile" in response:
        return response.get("originalFile") != response.get("content")
    if "original_file" in response and "updated_file" in response:
        return response.get("original_file") != response.get("updated_file")
    return False


def file_path(call: ToolCall) -> str:
    """The file a file tool's input names ("" if none)."""
    path = call.input.get("file_path") if isinstance(call.input, dict) else None
    return path if isinstance(path, str) else ""


def edited_contents(call: ToolCall, response: object) -> tuple[str, str | None, str] | None:
    """(path, content before or None, content after) of a confirmed edit, from its structured
    response: a Write's content, or an Edit's replacement applied to the original file.
    None when the response does not say (a MultiEdit, a notebook, an older release) or the
    content after would be over `EDIT_EFFECT_CHARS`."""
    if not isinstance(response, dict):
        return None
    path = response.get("filePath")
    if not isinstance(path, str):
        path = file_path(call)
    if not path:
        return None
    original = response.get("originalFile")
    before = original if isinstance(original, str) else None
    content = response.get("content")
    if isinstance(content, str) and response.get("type") in ("create", "update"):
        return path, before, content
    old, new = response.get("oldString"), response.get("newString")
    if before is None or not isinstance(old, str) or not isinstance(new, str) or not old:
        return None
    if old not in before:
        return None
    if response.get("replaceAll") is not True:
        return path, before, before.replace(old, new, 1)
    # Every occurrence replaced: the result may be far larger than the payload that asked for
    # it (each of n occurrences grows by the new string), so it is built only when its size,
    # known beforehand, stays within the bound; past it the effect is unknown (a new content).
    if len(before) + before.count(old) * (len(new) - len(old)) > EDIT_EFFECT_CHARS:
        return None
    return path, before, before.replace(old, new)
