"""Where the operator's turns go: how a final message handed the turn back, and what the
operator answered. Pure word tests, shared with the Stop hook's classifier.

A handback a policy would have avoided is a stop it continues that the operator only answered
with a bare affirmation ("yes", "go ahead"); its cost is a stop it continues that the operator
answered with a decision or a correction, which a continuation would have run over.
"""

from __future__ import annotations

from arcguard.core.arc_keeper import handback
from arcguard.core.words import vocabulary
from arcguard.core.words.final_words import is_sentinel
from arcguard.forensics.entries import is_continue_nudge


# How a final message ended the turn: the stop classes the arc keeper logs.
NOOP = vocabulary.NO_OP
QUESTION = vocabulary.QUESTION
ANNOUNCED = vocabulary.ANNOUNCED_STEP
PAUSED = vocabulary.PAUSED
COMPLETION = vocabulary.COMPLETION
DECISION = vocabulary.DECISION_NEEDED
OTHER = vocabulary.UNEXPLAINED
STOP_CLASSES = (NOOP, QUESTION, ANNOUNCED, PAUSED, COMPLETION, DECISION, OTHER)

# What the operator answered.
AFFIRMATION = "affirmation"
CHOICE = "choice-or-decision"
INSTRUCTION = "instruction-or-correction"
INTERRUPT = "interrupt"
REPLY_CLASSES = (AFFIRMATION, CHOICE, INSTRUCTION, INTERRUPT)

# The stop classes each policy sends back to work (see `arcguard.core.arc_keeper.stop`).
CONTINUED_BY = {
    "noop": frozenset({NOOP}),
    "ask": frozenset({NOOP, QUESTION, ANNOUNCED, PAUSED}),
    "strict": frozenset({NOOP, QUESTION, ANNOUNCED, PAUSED, OTHER}),
}

_AFFIRMATIONS = frozenset(
    {
        "yes",
        "y",
        "yep",
        "yup",
        "yeah",
        "ya",
        "sure",
        "ok",
        "okay",
        "k",
        "do it",
        "go for it",
        "please do",
        "yes do it",
        "yes go ahead",
        "yes proceed",
        "yes continue",
        "yes please do",
        "sounds good",
        "lgtm",
        "go",
        "ship it",
        "fix it",
        "yes fix it",
        "do that",
        "yes do that",
        "alright",
        "all right",
        "absolutely",
        "definitely",
        "of course",
        "agreed",
        "go on",
        "yeah go ahead",
        "yeah do it",
        "ok do it",
        "okay do it",
        "sure go ahead",
        "ok go ahead",
        "yes lets do it",
        "lets do it",
        "lets do this",
        "yeah lets do it",
        "yeah lets do this",
        "perfect",
        "great",
        "great thanks",
        "nice",
        "cool",
    }
)
_POLITE = ("please", "thanks", "thank", "you", "pls", "plz", "too")
_YES = frozenset(
    {
        "yes",
        "yeah",
        "yep",
        "yup",
        "sure",
        "ok",
        "okay",
        "alright",
        "lets",
        "absolutely",
        "definitely",
        "perfect",
        "great",
        "sounds",
    }
)
_GO = frozenset(
    {"fix", "do", "go", "continue", "proceed", "ship", "commit", "push", "run", "carry", "keep"}
)
# "yes" plus at most this many words is still a bare yes ("yes, let's add this").
_AFFIRMED_WORDS = 5
_CHOICE_WORDS_FIRST = frozenset(
    {
        "yes",
        "yeah",
        "yep",
        "no",
        "nope",
        "nah",
        "option",
        "both",
        "neither",
        "first",
        "second",
        "third",
        "a",
        "b",
        "c",
        "use",
        "keep",
        "skip",
        "prefer",
    }
)
_CHOICE_PHRASES = ("the first", "the second", "go with", "lets go with", "i prefer")
_CHOICE_WORDS = 6


def stop_class(text: str) -> str:
    """How a text (or empty) final message handed the turn back."""
    if not text.strip() or is_sentinel(text):
        return NOOP
    if handback.claims_done(text):
        return COMPLETION
    kind = handback.classify(text)
    # A courtesy closing is a stall only with milestones left, which a transcript does not say.
    return kind if kind in (DECISION, QUESTION, ANNOUNCED, PAUSED) else OTHER


def reply_class(text: str) -> str:
    """What the operator's next prompt did with the handback."""
    words = _words(text)
    while words and words[-1] in _POLITE:
        words = words[:-1]
    body = " ".join(words)
    if not words:
        return CHOICE  # a bare emoji or punctuation: an answer, but not a clear yes
    if body in _AFFIRMATIONS or is_continue_nudge(body):
        return AFFIRMATION
    if text.rstrip().endswith("?"):
        return INSTRUCTION  # a question back: the operator probes or corrects
    if words[0] in _YES and len(words) <= _AFFIRMED_WORDS:
        return AFFIRMATION  # "yes, let's add this", "yeah close it"
    if words[0] in _GO and len(words) <= 3:
        return AFFIRMATION  # "fix all", "do it now", "continue until done"
    if (
        words[0] in _CHOICE_WORDS_FIRST
        or words[0].isdigit()
        or any((body + " ").startswith(p + " ") for p in _CHOICE_PHRASES)
        or len(words) <= _CHOICE_WORDS
    ):
        return CHOICE
    return INSTRUCTION


def by_policy(table: dict[tuple[str, str], int]) -> dict[str, dict[str, int]]:
    """Per policy: handbacks it would have avoided, and decisions or corrections it would
    have run over."""
    out: dict[str, dict[str, int]] = {}
    for policy, continued in CONTINUED_BY.items():
        avoided = sum(
            n for (stop, reply), n in table.items() if stop in continued and reply == AFFIRMATION
        )
        overrun = sum(
            n
            for (stop, reply), n in table.items()
            if stop in continued and reply in (CHOICE, INSTRUCTION)
        )
        out[policy] = {"handbacks_avoided": avoided, "decisions_or_corrections_overrun": overrun}
    return out


def _words(text: str) -> list[str]:
    cleaned = "".join(
        c if c.isalnum() or c.isspace() else " " if c in ",;:-" else ""
        for c in text.lower().replace("’", "'").replace("'", "")
    )
    return cleaned.split()
