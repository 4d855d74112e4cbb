"""Work a final message leaves where its closing sentence does not say so.

A report often ends on a list of notes, and the note that says work is left comes last ("-
nothing is compiled yet"), after a lead that asks nothing ("Notes on what's in place:"). Or it
hands the user the commands it was asked to run ("To roll it out: ... Run the backfill before
`migrate`."). Both stop partway: the `ask` policy sends them back as it does a closing that
says work is left. A completion claim is read before this (`handback.claims_done`), so a
finished task's list of known limits is left alone. Pure word tests, no `re`.
"""

from __future__ import annotations

from arcguard.core.arc_keeper import handback
from arcguard.core.words.sentences import has_words
from arcguard.core.words.sentences import is_list
from arcguard.core.words.sentences import normal
from arcguard.core.words.sentences import paragraphs
from arcguard.core.words.sentences import prose
from arcguard.core.words.sentences import split


# Closing sentences opening like this tell the user to run something: a step the model, with a
# shell of its own, was there to take.
HANDED_OVER = ("run ", "rerun ", "re-run ", "apply ", "execute ")
ITEM_MARKS = "-*+•0123456789.) "


def leaves(text: str) -> bool:
    """The message's closing list says work is left, or its last sentence hands a step over."""
    return _in_list(text) or _handed_over(text)


def _in_list(text: str) -> bool:
    """One of the last items of the list that ends the message says work is left, when what
    leads into the list asks nothing (a question's options are no work left)."""
    kept = [p for p in paragraphs(prose(handback.tail(text))) if has_words(p)]
    lines = kept[-1].splitlines() if kept else []
    items: list[str] = []
    while lines and is_list(lines[-1]):
        items.insert(0, lines.pop())
    lead = lines[-1] if lines else (kept[-2].splitlines()[-1] if len(kept) > 1 else "")
    if not items or lead.rstrip().endswith("?"):
        return False
    last = items[-handback.PAUSING_SENTENCES :]
    sentences = [s for item in last for s in split(normal(item.lstrip(ITEM_MARKS)))]
    return any(map(handback.is_pausing, sentences))


def _handed_over(text: str) -> bool:
    sentences = handback.closing_sentences(text)
    return bool(sentences) and sentences[-1].startswith(HANDED_OVER)
