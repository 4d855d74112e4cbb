"""Failures an edit did not move.

An edit to a content a file never had is progress: the failure seen before it is set aside.
But when the next failure prints what the last one printed, line for line, except where it
quotes the edit itself (the setting a test run's header reports, the Dockerfile step a build
shows), the edit moved nothing the failure depends on: a setting toggled, a step respelt, a
knob raised that the run reports. That failure's run goes on (`stuck.recognise`).

Lines are compared as printed, numbers and ids aside but paths kept (`tests/a.py` failing
after an edit fixed `tests/b.py` is what the edit did), with the counts of outcomes apart
(`7 failed` then `6 failed` is what it fixed). A line the edit's change explains is one its
old text would have printed: the line with the edit's new text put back to the old one.
Pure functions of the track's `Stuck` record and the call.
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core.loop_guard import shape


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.schema import Stuck
    from arcguard.core.tool_call import ToolCall


# The end of a failure's text compared, in lines: where a build or a test run says what failed.
PRINT_CHARS = 4000
# Words a count of outcomes is followed by (`2 failed`, `3 errors`, `5 examples, 1 failure`).
OUTCOME_WORDS = ("fail", "pass", "error", "warning", "skip", "problem", "test", "example", "issue")
COUNT_MARKS = ",;:.()[]{}|"  # around a count or its word
COUNTS = "="  # the line of counts of outcomes, kept apart from the numbers set aside
# The [new, old] texts kept of the edits in a failure's run, which its output may quote, and
# their bound.
MAX_SWAPS = 8
MAX_SWAP_CHARS = 80


def printed(text: str) -> list[str]:
    """The end of a failure's text line by line, lower case, numbers and ids set aside, and
    then its counts of outcomes."""
    tail = text[-PRINT_CHARS:]
    if len(text) > PRINT_CHARS:
        tail = tail.partition("\n")[2]  # from a whole line: a cut one moves with the length
    lines = [shape.of_text(line).strip().lower() for line in tail.splitlines()]
    kept = [line for line in lines if any(c.isalpha() for c in line)]
    return [*kept[-shape.MAX_CAUSE_LINES :], COUNTS + _counts(tail)]


def digests(lines: list[str]) -> list[str]:
    return [hashing.digest(line) for line in lines]


def _counts(text: str) -> str:
    counts = []
    for line in text.splitlines():
        words = [w.strip(COUNT_MARKS).lower() for w in line.split()]
        for n in range(1, len(words)):
            if words[n - 1].isdigit() and words[n].startswith(OUTCOME_WORDS):
                counts.append(words[n - 1] + words[n][0])
    return " ".join(counts)


def swaps(call: ToolCall) -> list[list[str]]:
    """[new, old] texts an Edit or MultiEdit changed, lower case: each changed line, and the
    word changed in it when one word was (`"auto"` for `"strict"`). A Write has none: all of
    the file is new."""
    found = [s for new, old in _changes(call) for s in _swaps_in(old, new)]
    return [s for s in found if all(0 < len(t) <= MAX_SWAP_CHARS for t in s)]


def _changes(call: ToolCall) -> list[tuple[str, str]]:
    """(new, old) lines, lower case and stripped, an Edit or MultiEdit changed, where it
    replaced as many lines as it wrote."""
    edits = call.input.get("edits") if isinstance(call.input, dict) else None
    found = []
    for change in edits if isinstance(edits, list) else [call.input]:
        if not isinstance(change, dict):
            continue
        old, new = change.get("old_string"), change.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str):
            continue
        olds, news = old.lower().splitlines(), new.lower().splitlines()
        if len(olds) == len(news):
            pairs = zip(news, olds, strict=True)
            found += [(a.strip(), b.strip()) for a, b in pairs if a.strip() != b.strip()]
    return found


def _swaps_in(before: str, after: str) -> list[list[str]]:
    gone = set(shape.words_of(before)).difference(shape.words_of(after))
    added = set(shape.words_of(after)).difference(shape.words_of(before))
    line = [after, before]
    return [line, [added.pop(), gone.pop()]] if len(gone) == len(added) == 1 else [line]


def again(st: Stuck, lines: list[str]) -> bool:
    """The failure prints every line the failure set aside printed (`Stuck.fail_print`) and
    nothing else, but for lines the edits since explain (`_explained`), one at least: the
    failing run shows the edit took effect, and nothing else moved. A failure printed word
    for word after an edit proves less: the edit may be work it does not show yet (a module
    written piece by piece while its import still fails, one fix tried after another)."""
    was = set(st.fail_print)
    gone = set(was)
    explained = False
    for line, digest in zip(lines, digests(lines), strict=True):
        if digest in was:
            gone.discard(digest)
        elif _explained(line, gone, st.edit_swaps):
            explained = True
        else:
            return False
    return not gone and explained


def _explained(line: str, gone: set[str], swaps: list[list[str]]) -> bool:
    """The line, with the edits' new texts put back to their old ones, is a line the failure
    printed that this result does not print again (consumed from `gone`)."""
    for new, old in swaps:
        if new in line:
            line = line.replace(new, old)
            digest = hashing.digest(line)
            if digest in gone:
                gone.discard(digest)
                return True
    return False
