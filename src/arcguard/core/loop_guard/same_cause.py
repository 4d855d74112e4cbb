"""One root cause printed other ways, as `persisting` counts a failure that outlives the tries.

A migration's error read through `tail -3`, then through `grep`, then the function called on
its own: each print differs, none as a whole is the last one, yet each says the same thing
went wrong. An attempt failed of a cause the last ones gave when every cause its print names
(`failures.cause_pieces`), every line of it that says what went wrong or went through
(`failure_lines.read`; paths and numbers kept, a runner's `E` before
a line aside) and every number naming its target (`shape.identity_numbers`) was printed or
named by one of the last attempts kept (`Persist.causes`), and what it counts of its failures,
if anything, is what the last count said (`Reading.tally`).

What tells otherwise is news: a line no attempt printed (another file failing, another status,
one more package passing), more tests passing than any print counted (work moving on beside
the failure), the same failure met at another target (`failures.aimed_elsewhere`: a sweep),
and fewer causes or lines than the last attempt spelt the same way printed (a list burnt down
by the fixes, whatever filter each run went through). A print that says nothing went wrong
(steps and notes) or names no cause is left to the rest of `persisting`. Pure functions of the
track's `Persist` record and the call.
"""

from __future__ import annotations

from arcguard.core.loop_guard import failure_lines
from arcguard.core.loop_guard import failures
from arcguard.core.loop_guard import opkey


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.loop_guard.stuck import Finished
    from arcguard.core.loop_records import Persist
    from arcguard.core.tool_call import ToolCall

ATTEMPTS = 4  # attempts whose causes are kept, as `persisting` keeps failures
TARGET_CHARS = 24  # of each number naming a target, kept
# Marks of what `Persist.causes` keeps beside the causes a print names (hex digests, or a cause
# outside the code after `known_causes.MARK`): its lines, its targets, how many of its lines
# said what went wrong, and last its spelling.
WRONG, PASSING, TARGET, FAILING, SPELLING = "=", "+", "#", "!", "%"
MAX_FAILING = 9999  # lines counted, at most


def caused(persist: Persist, call: ToolCall, f: Finished) -> tuple[bool, bool]:
    """Whether the failing attempt failed of a cause the last ones gave, and whether it printed
    fewer of them than the last attempt spelt the same way (the fixes' work). Its causes are
    kept (mutates `persist`)."""
    reading = failure_lines.read(f.printed or [])
    *mine, _, spelling = causes = _causes(call, f.pieces or [], reading)
    spelt = [kept for kept in persist.causes if kept[-1] == spelling][-1:]
    # Fewer of its causes, or as many printed fewer times (seven alike errors, then six).
    burnt = bool(spelt) and (
        set(mine) < {c for c in spelt[0][:-1] if c[:1] != FAILING}
        or min(reading.failing, MAX_FAILING) < _failing(spelt[0])
    )
    counted, passed = reading.tally, reading.passes
    same = (
        bool(f.pieces and reading.wrong)
        and not burnt
        and passed <= persist.passed
        and _given_before(persist, call, mine, counted)
    )
    persist.causes = [*persist.causes, causes][-ATTEMPTS:]
    persist.tally, persist.passed = counted or persist.tally, max(passed, persist.passed)
    return same, burnt


def _causes(call: ToolCall, pieces: list[str], reading: failure_lines.Reading) -> list[str]:
    """What an attempt gives as its cause, as `Persist.causes` keeps it: the causes its print
    names, as short digests; its lines that say what went wrong or went through (`reading`),
    marked; the numbers naming its target, marked; how many lines said what went wrong; and
    last its spelling."""
    return [
        *(piece[: failure_lines.HEAD_DIGEST] for piece in pieces),
        *(WRONG + line for line in reading.wrong),
        *(PASSING + line for line in reading.passing),
        *(TARGET + number[:TARGET_CHARS] for number in failures.target_numbers(call)),
        FAILING + str(min(reading.failing, MAX_FAILING)),
        SPELLING + opkey.operation_id(call)[: failure_lines.HEAD_DIGEST],
    ]


def _failing(kept: list[str]) -> int:
    """How many lines of a kept attempt said what went wrong (0 when it does not say)."""
    return next((int(c[1:]) for c in kept if c[:1] == FAILING and c[1:].isdigit()), 0)


def _given_before(persist: Persist, call: ToolCall, causes: list[str], counted: str) -> bool:
    """Every one of `causes` (its spelling aside) was given by one of the last attempts, the
    count of failures is none or the last one, and the call is not a failure kept aimed at
    another target."""
    seen = {cause for *kept, _ in persist.causes for cause in kept}
    return (
        set(causes) <= seen
        and counted in ("", persist.tally)
        and not any(failures.aimed_elsewhere(words, call) for words in persist.words)
    )
