"""What a task lists item by item, and a stop that names only some of the items.

A task that lists what to do in backticks (`list`, `show`, `diff`, `export` and `prune`: three
or more, set apart by commas, `and` or `&`, in a sentence that opens with what to do: "Add",
"Port", "Fix"; not options such as `-r`) says how far the work must go. Items joined by "or"
are a choice, and items a sentence only describes ("The CLI has `list`, `show` and `diff`.")
or rules out ("Don't touch ...") are no work to do.

A stop whose message names some of the items and not the others, and says nothing of the rest
(no "all", "every", "each", "both", "the others", "remaining"), reports part of the work as
the whole of it: the model stopped believing it was done, or left the rest unsaid. Which
stops this sends back is the Stop decision's (`stop`). Items are named as written, in any
case, as whole words: `show` is not named by "showing". Pure functions of the task and the
message.
"""

from __future__ import annotations


MIN_ITEMS = 3
MAX_ITEMS = 16
ITEM_CHARS = 40  # a longer code span is a command or a snippet, not an item of a list
# What may stand between two items of one list.
SEPARATORS = frozenset({",", "and", ", and", "&"})
# Verbs that open a sentence telling what to do, and words that may come before them.
DOING = frozenset(
    "add fix convert port update migrate implement write rename remove delete drop refactor "  # noqa: SIM905
    "create make move replace support translate wrap document test cover upgrade bump apply "
    "change extend rewrite clean split expose register handle validate wire enable disable "
    "deprecate build generate localize annotate type format backfill".split()
)
BEFORE_DOING = frozenset({"please", "also", "then", "now", "and", "next"})
SENTENCE_ENDS = ".!?\n"
# Words by which a message speaks of every item at once, or of those it does not name.
WHOLE_WORDS = frozenset(
    {"all", "every", "each", "both", "everywhere", "rest", "other", "others", "remaining"}
)
WORD_CHARS = "_-"  # besides letters and digits, what a name may hold (`--json`, `test_tax`)


def lists(task: str) -> list[list[str]]:
    """The lists of three or more backticked items in `task`, in order, each item once."""
    parts = task.split("`")
    found: list[list[str]] = []
    current: list[str] = []
    doing = False  # the sentence the current list is in tells what to do
    # Code spans are the odd parts; one after an unpaired backtick is not a span.
    for at in range(1, len(parts) - 1, 2):
        item = parts[at].strip()
        joined = current and parts[at - 1].strip().lower() in SEPARATORS
        if not joined:
            _close(found, current, doing=doing)
            current, doing = [], _tells_what_to_do(parts[:at])
        # An option listed (`-r`, `-s`, `-b`) is what a tool takes, not work to do.
        if 0 < len(item) <= ITEM_CHARS and not item.startswith("-") and item not in current:
            current.append(item)
    _close(found, current, doing=doing)
    return found


def _close(found: list[list[str]], items: list[str], *, doing: bool) -> None:
    if doing and MIN_ITEMS <= len(items) <= MAX_ITEMS:
        found.append(items)


def _tells_what_to_do(before: list[str]) -> bool:
    """The sentence that `before` (the task's parts up to a list, code spans at odd places)
    ends in opens with a verb of `DOING`, past a list's bullet and words like "please"."""
    text = "".join(p if at % 2 == 0 else " X " for at, p in enumerate(before))
    start = max(text.rfind(end) for end in SENTENCE_ENDS) + 1
    words = "".join(c.lower() if c.isalpha() or c == "'" else " " for c in text[start:]).split()
    while words and words[0] in BEFORE_DOING:
        words = words[1:]
    return bool(words) and words[0] in DOING


def unsaid(task: str, message: str) -> list[str]:
    """The items of a list in `task` that `message` leaves unnamed while naming others of the
    same list ([] when it names all or none of each, or speaks of them all at once)."""
    lowered = message.lower()
    if WHOLE_WORDS.intersection(_words(lowered)):
        return []
    for items in lists(task):
        left = [item for item in items if not _names(lowered, item.lower())]
        if 0 < len(left) < len(items):
            return left
    return []


def _words(lowered: str) -> list[str]:
    return "".join(c if c.isalpha() else " " for c in lowered).split()


def _names(lowered: str, item: str) -> bool:
    """`item` appears in `lowered` as a whole word (neither end runs on into another word)."""
    at = lowered.find(item)
    while at != -1:
        before = lowered[at - 1 : at]
        after = lowered[at + len(item) : at + len(item) + 1]
        if not (_word_char(before) and _word_char(item[0])) and not (
            _word_char(after) and _word_char(item[-1])
        ):
            return True
        at = lowered.find(item, at + 1)
    return False


def _word_char(char: str) -> bool:
    return bool(char) and (char.isalnum() or char in WORD_CHARS)
