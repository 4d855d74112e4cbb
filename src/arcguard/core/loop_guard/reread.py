"""One failure read again and again: the same failing lines through other readers.

A traceback in a log, read with `Read`, then `tail`, then `grep -B2 -A21`, then `sed -n`; a CI
job's failing step through `gh run view --log-failed`, `gh api .../logs`, a saved copy and
`awk`: each reader shows the lines that say what failed, and none the session had not seen.
Once a failure is read, reading it again in other words will not change it.

A look (a completed call that changed nothing, not a poll) whose print reports a failure
(`failure_lines.failure_line`, past a reader's own marks: `12→`, `2504:`, `src/app.py:12:`)
gives its failing lines, what a clock moves set aside (`answers.clock_free`: one error logged at
two times is one line). When every one of them was shown by the run's looks, and the look is
spelt anew, in a turn of its own (calls issued together saw no answer yet), it is one more
reading: the 4th reading gets a request to summarise and the 7th a pause (`error_checkin_repeats`,
`error_pause_repeats`), as one answer asked many ways does (`asked`). A look that shows failing
lines the run had not goes on without counting (some other failure is news); one sharing none
starts the run again. A change, an edit, the user's words, real progress (`stuck._progress`)
or more than `GAP` looks in a row without a failing line end it. A failing call is an attempt,
for the failures' rules; a poll is timed (`polls`). Pure functions; the run lives in the
track's `Stuck` record.
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core.loop_guard import answers
from arcguard.core.loop_guard import failure_lines
from arcguard.core.loop_guard import shape
from arcguard.core.loop_records import Reread


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.loop_records import Stuck
    from arcguard.core.tool_call import ToolResult

GAP = 4  # looks without a failing line that may come between two readings
TEXT_CHARS = 8000  # of a print's end, read for failing lines
MAX_LINES = 32  # failing lines a run keeps
MAX_WAYS = 16
LINE_DIGEST = 8
STREAMS = frozenset({"stdout", "stderr"})  # a command's answer: the text the model saw
DEPTH = 2  # a tool's answer nests its text this deep at most (`Read`: `file`, then `content`)
ARROW = "→"  # the Read tool's mark after a line's number
NUMBER_CHARS = 8  # a line number before a reader's mark, at most
DATE_CHARS = 10  # `2026-05-12`


def failing(result: ToolResult) -> list[str]:
    """The failing lines a look's print shows, as short digests, in order, each once."""
    found: dict[str, None] = {}
    for line in _text(result)[-TEXT_CHARS:].splitlines():
        bare = _unmarked(line) if failure_lines.may_report(line) else ""
        if bare and failure_lines.failure_line(bare):
            words = answers.clock_free(bare)[: failure_lines.HEAD_CHARS].split()
            found[hashing.digest(" ".join(words))[:LINE_DIGEST]] = None
    return list(found)


def _text(result: ToolResult) -> str:
    """What a look printed: a tool's structured answer's longest text (a file's lines as `Read`
    gave them, a search's matches), or the text the model saw."""
    response = result.response
    if isinstance(response, dict) and not set(response) & STREAMS:
        return max(_texts(response, DEPTH), key=len, default="")
    return shape.result_text(result)


def _texts(value: object, depth: int) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict) and depth:
        return [text for inner in value.values() for text in _texts(inner, depth - 1)]
    return []


def _unmarked(line: str) -> str:
    """`line` without the marks a reader puts before it: a line number and `→` (`Read`), a
    number, maybe after a path, and `:` or `-` (`grep -n`, `grep -rn`, `grep -B`), or a count
    (`uniq -c`)."""
    head, arrow, rest = line.partition(ARROW)
    if arrow and head.strip().isdigit() and len(head) <= NUMBER_CHARS:
        return rest.strip()
    count, _, rest = line.strip().partition(" ")
    if count.isdigit() and rest:
        return rest.strip()
    if _dated(line):
        return line.strip()  # `2026-05-12 08:14:03 ERROR ...`: a log's own line
    for mark in (":", "-"):
        first, found, after = line.partition(mark)
        if found and first.isdigit():
            return after.strip()
        number, found, text = after.partition(mark)
        if found and number.isdigit() and "/" in first and " " not in first:
            return text.strip()
    return line.strip()


def _dated(line: str) -> bool:
    """`line` opens with a date (`2026-05-12`), whose first number is no line number."""
    day = line[:10]
    return len(day) == DATE_CHARS and day[4] == day[7] == "-" and day.replace("-", "").isdigit()


def observe(st: Stuck, found: list[str], way: str, turn: int, label: str) -> None:
    """A look spelt `way`, in the track's `turn`, showed the failing lines `found` (mutates
    `st`)."""
    run = st.reread
    if not found:
        if run is not None:
            run.others += 1
            if run.others > GAP:
                end(st)
        return
    if run is None or not set(found) & set(run.lines):
        st.reread = Reread(lines=found[-MAX_LINES:], ways=[way], label=label, turn=turn)
        return
    run.others = 0
    if not set(found) <= set(run.lines):
        run.lines = list(dict.fromkeys([*run.lines, *found]))[-MAX_LINES:]
    elif way not in run.ways and turn != run.turn:
        run.ways = [*run.ways, way][-MAX_WAYS:]
        run.label, run.turn = label, turn


def readings(st: Stuck) -> int:
    """The looks that showed the run's failure, each spelt its own way."""
    return len(st.reread.ways) if st.reread is not None else 0


def word_due(st: Stuck, checkin: int) -> bool:
    """The readings have earned their one request, at `checkin` of them."""
    return st.reread is not None and not st.reread.nudged and readings(st) >= checkin


def pause_due(st: Stuck, pause: int) -> bool:
    """Still read again `pause` ways on, after the request."""
    return st.reread is not None and st.reread.nudged and readings(st) >= pause


def end(st: Stuck) -> None:
    """The run is over (mutates `st`)."""
    if st.has("reread"):
        del st.reread
