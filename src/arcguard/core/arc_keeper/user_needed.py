"""A stop that says why only the operator can go on.

The stop protocol asks the model to mark a decision that only the operator can take with
`DECISION NEEDED:`. Models often stop rightly without the mark: a force-push that rewrites a
shared history, a licence only the operator's lawyers can choose, a device to plug back in, a
code from the operator's phone, or an offer of work the task did not ask for once it is done.
Sending such a stop back fights the operator, so a stall that hands the turn back (a
question, a stop partway, an offer of help: not an announced step, which says the model goes
on) with one of these reasons (`REASONS`) in its closing paragraphs is left alone, and the log
says which. Only what the message says counts (code, quotes and block quotes set aside), only
whole phrases ("a legal question", not "no legal move"; "illegal" is none), and not a phrase
denied by a word just before it ("nothing irreversible here"). Work outside the task is a
reason once the task is done, with no milestone left. Pure word tests, no `re` (the Stop hook
runs on every turn's end).
"""

from __future__ import annotations

from arcguard.core.words.sentences import normal
from arcguard.core.words.sentences import paragraphs
from arcguard.core.words.sentences import prose


# Why only the operator can go on, and the phrases that say so. Work outside the task is a
# reason only once the task is done: with milestones left, the model has work of its own.
OUTSIDE = "work outside the task"
REASONS = {
    "a step that cannot be undone": (
        "irreversible",
        "can't be undone",
        "cannot be undone",
        "force-push",
        "force push",
        "force-pushing",
        "rewrites history",
        "rewriting history",
        "rewrite the history",
    ),
    "a legal or licensing call": (
        "legal call",
        "legal decision",
        "legal question",
        "legal review",
        "licensing call",
        "licensing decision",
        "licensing question",
    ),
    "something only a person at the machine can do": (
        "plugged back",
        "plug it back",
        "plug them back",
        "unplugged",
        "power-cycle",
        "power cycle",
    ),
    "the operator's own credentials": ("one-time code", "2fa code", "mfa code", "authenticator"),
    OUTSIDE: (
        "not part of this task",
        "not part of the task",
        "outside the scope",
        "beyond the scope",
    ),
}
# Words that deny the phrase after them ("nothing irreversible here", "no force-push needed").
NEGATIONS = frozenset({"no", "not", "nothing", "never", "without", "none", "neither", "nor"})
NEGATION_REACH = 4  # words before a phrase that may deny it ("nothing here needs a force push")
# The paragraphs read: the closing ones, where the turn is handed back. A reason said earlier
# in a long report is about something else (a force-push that already happened, an item set
# aside as out of scope, a licensing question settled last week), except a call the opening
# hands over: a report may lead with it ("..., but which library backs it is a licensing
# call I can't make for you.").
CLOSING_PARAGRAPHS = 2
LEADING = frozenset({"a legal or licensing call"})  # reasons read in the opening paragraph too
HANDED_OVER = (
    *("can't make", "cannot make", "can't decide", "cannot decide", "for you to", "up to you"),
    *("your call", "your decision", "you decide", "needs your", "not mine to", "not for me"),
)
WORD_CHARS = "'-"  # inside a word: "can't", "force-push" are one word each


def reason(text: str, *, work_left: bool = False) -> str | None:
    """Why the message says only the operator can go on (a key of `REASONS`), in its last
    `CLOSING_PARAGRAPHS` of prose (or its first, for `LEADING` reasons), and not denied there;
    None if it does not. `work_left`: the arc still has milestones to do."""
    kept = paragraphs(prose(text))
    said = _words(normal("\n".join(kept[-CLOSING_PARAGRAPHS:])))
    opening = _words(normal(kept[0])) if len(kept) > CLOSING_PARAGRAPHS else []
    if not any(_says(opening, phrase.split()) for phrase in HANDED_OVER):
        opening = []  # it tells what was, not what the user must decide
    for why, phrases in REASONS.items():
        if why == OUTSIDE and work_left:
            continue
        words = [said, opening] if why in LEADING else [said]
        if any(_says(w, p.split()) for w in words for p in phrases):
            return why
    return None


def _says(said: list[str], phrase: list[str]) -> bool:
    """`phrase` is among the words `said`, and none of the few words before it denies it."""
    size = len(phrase)
    for at in range(len(said) - size + 1):
        if said[at : at + size] == phrase:
            before = said[max(0, at - NEGATION_REACH) : at]
            if not any(w in NEGATIONS or w.endswith("n't") for w in before):
                return True
    return False


def _words(text: str) -> list[str]:
    """The words of `text`, punctuation dropped."""
    return "".join(c if c.isalnum() or c in WORD_CHARS else " " for c in text).split()
