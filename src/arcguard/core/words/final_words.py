"""Reading the model's final words: the no-op sentinel, completion claims, `/autonomous`.

The sentinel and `/autonomous` tests are written out by hand, and the completion pattern is
compiled only for short texts: importing `re` costs a hook as much as Python's own start-up,
and most final messages are long summaries that cannot be a whole-message completion claim.
"""

from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

SENTINEL = "no response requested"
AUTONOMOUS = "/autonomous"
# Claude Code names a plugin's commands `/<plugin>:<command>`.
PLUGIN_AUTONOMOUS = "/arcguard:autonomous"
TASK_NOTIFICATION = "<task-notification>"
# The prompt Claude Code itself adds when it resumes a session after a crash or reconnect.
RESUME_PROMPT = "continue from where you left off"


# Prompts the harness writes on the operator's event: a Stop hook's block reason fed back, and
# the summary that opens a compacted conversation.
HARNESS_PREFIXES = (
    TASK_NOTIFICATION,
    "Stop hook feedback:",
    "This session is being continued from a previous conversation",
    # Claude Code's own resume after a usage limit (a claude.ai login): nobody typed it.
    "Your claude.ai usage limit has reset.",
)
QUEUED_COMMAND = "queued_command"
# A queued command's `commandMode` when a person typed it while the model worked.
QUEUED_PROMPT_MODE = "prompt"
_TRAILING = ".! \t\r\n\f\v"
# The longest text the completion pattern can match once trailing punctuation is removed.
_MAX_COMPLETION_CHARS = 80
_COMPLETION_SOURCE = (
    r"\s*(?:the\s+)?(?:"
    r"arc\s+(?:is\s+)?complete"
    r"|arc[- ]done"
    r"|all\s+(?:the\s+)?milestones?(?:\s+(?:are|is|have|has|been|were|now|all|finally|fully))*"
    r"\s+(?:shipped|done|complete)"
    r"|milestones?\s+complete"
    r"|task\s+complete"
    r"|all\s+done"
    r"|everything(?:['’]s|\s+is)?\s+(?:shipped|done|merged|complete)"
    r")"
)
_COMPLETION_WORDS = ("complete", "done", "shipped", "merged")
# A claim that is denied or hedged is no claim: these words anywhere in the message void it,
# whatever the pattern would accept now or after a later widening.
_QUALIFIERS = frozenset(
    {
        "not",
        "never",
        "no",
        "none",
        "nothing",
        "except",
        "but",
        "almost",
        "nearly",
        "partially",
        "partly",
        "mostly",
        "yet",
        "until",
        "unless",
        "if",
        "once",
        "when",
        "some",
        "most",
        "half",
        "few",
        "several",
        "remaining",
        "remain",
        "left",
        "pending",
        "soon",
        "probably",
        "maybe",
        "hopefully",
        "should",
        "will",
        "would",
        "might",
        "may",
        "can",
        "cannot",
        "isn't",
        "aren't",
    }
)
_completion: re.Pattern[str] | None = None


def is_sentinel(text: str) -> bool:
    """The whole message is "No response requested" plus dots and whitespace (any case)."""
    body = text.strip().lower()
    if not body.startswith(SENTINEL):
        return False
    return all(c == "." or c.isspace() for c in body[len(SENTINEL) :])


# A compound claim: every clause of a short message says the work landed or its checks pass
# ("The changes are committed and all tests pass."), at least one of each.
_MAX_COMPOUND_CHARS = 200
_WORK_WORDS = frozenset(
    {
        "committed",
        "merged",
        "shipped",
        "pushed",
        "done",
        "complete",
        "completed",
        "implemented",
        "fixed",
        "released",
        "deployed",
        "landed",
        "finished",
    }
)
_CHECK_WORDS = frozenset(
    {"pass", "passes", "passing", "passed", "green", "succeeds", "succeeded", "clean", "verified"}
)
_PART_WORDS = frozenset({"milestone", "step", "phase", "stage", "part"})
_CLAUSE_BREAKS = (";", ",", ". ", " and ", " & ", " — ", " - ", ":")


def _names_a_part(body: str) -> bool:
    """ "Milestone 1 of 3 complete and verified.", "Phase 1 is done and tests pass.": a part of
    the work landed, not the work."""
    words = "".join(c if c.isalnum() else " " for c in body).split()
    triples = zip(words, words[1:], words[2:], strict=False)
    return bool(_PART_WORDS.intersection(words)) or any(
        a.isdigit() and b == "of" and c.isdigit() for a, b, c in triples
    )


def is_completion(text: str) -> bool:
    """The whole message claims the arc is finished ("All milestones shipped.", ...), alone or
    as a compound claim about the work and its checks."""
    return _is_single_completion(text) or is_compound_completion(text)


def is_compound_completion(text: str) -> bool:
    """Two or more clauses, each a positive claim that the work landed or its checks pass, at
    least one of each, and nothing in the message denies or hedges them."""
    body = text.strip().rstrip(_TRAILING).lower().replace("’", "'")
    if not body or len(body) > _MAX_COMPOUND_CHARS or "?" in body or "\n" in body:
        return False
    if is_qualified(body) or _names_a_part(body):
        return False
    for mark in _CLAUSE_BREAKS:
        body = body.replace(mark, "|")
    clauses = [c.split() for c in body.split("|")]
    clauses = [[w.strip(".!'\"()") for w in words] for words in clauses if words]
    if len(clauses) < 2:
        return False
    work = [bool(_WORK_WORDS.intersection(c)) for c in clauses]
    checks = [bool(_CHECK_WORDS.intersection(c)) for c in clauses]
    return all(w or c for w, c in zip(work, checks, strict=True)) and any(work) and any(checks)


def _is_single_completion(text: str) -> bool:
    global _completion
    body = text.rstrip(_TRAILING)
    if not body.strip() or len(body.strip()) > _MAX_COMPLETION_CHARS:
        return False
    lowered = body.lower()
    if not any(word in lowered for word in _COMPLETION_WORDS):
        return False  # every branch of the pattern needs one: spare the `re` import
    if is_qualified(lowered):
        return False
    if _completion is None:
        import re

        _completion = re.compile(_COMPLETION_SOURCE, re.IGNORECASE)
    return _completion.fullmatch(body) is not None


def is_qualified(lowered: str) -> bool:
    """A negation ("not", "n't", "never") or a hedge ("but two", "almost") anywhere."""
    words = "".join(c if c.isalnum() or c in "'’" else " " for c in lowered).split()
    return any(w in _QUALIFIERS or w.endswith(("n't", "n’t")) for w in words)


def starts_autonomous(prompt: str) -> bool:
    """The prompt starts with `/autonomous` (or the plugin's `/arcguard:autonomous`) as a word:
    leading whitespace allowed, any case."""
    body = prompt.lstrip()
    for command in (AUTONOMOUS, PLUGIN_AUTONOMOUS):
        if body[: len(command)].lower() == command:
            rest = body[len(command) :]
            return not rest or rest[0].isspace()
    return False


def is_task_notification(prompt: str) -> bool:
    """A prompt the harness made to wake the session when a background task ended."""
    return prompt.lstrip().startswith(TASK_NOTIFICATION)


def is_resume_prompt(prompt: str) -> bool:
    """Claude Code's own resume prompt, "Continue from where you left off." (any case)."""
    return prompt.strip().rstrip(".!").strip().lower() == RESUME_PROMPT


def is_harness_prompt(prompt: str) -> bool:
    """A prompt the harness made (a wake-up, fed-back hook output, a compaction summary):
    it arrives where the operator's prompts do, but nobody typed it."""
    return prompt.lstrip().startswith(HARNESS_PREFIXES)


def queued_prompt(entry: object) -> tuple[str, bool] | None:
    """(text, typed by the operator) of a transcript entry recording a queued command.

    Claude Code records a prompt typed while the model works as an `attachment` entry of type
    `queued_command`; it queues its own task notifications the same way, told apart by
    `commandMode` (and `origin.kind` where present) and by the text itself.
    """
    if not isinstance(entry, dict) or entry.get("type") != "attachment":
        return None
    attachment = entry.get("attachment")
    if not isinstance(attachment, dict) or attachment.get("type") != QUEUED_COMMAND:
        return None
    prompt = attachment.get("prompt")
    if not isinstance(prompt, str):
        return None
    mode = attachment.get("commandMode", QUEUED_PROMPT_MODE)
    origin = attachment.get("origin")
    kind = origin.get("kind", "human") if isinstance(origin, dict) else "human"
    typed = mode == QUEUED_PROMPT_MODE and kind == "human" and not is_harness_prompt(prompt)
    return prompt, typed
