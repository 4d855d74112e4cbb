"""One failure read again and again: the same failing lines through other readers.

A traceback in a log, read with `Read`, then `tail`, then `grep -B2 -A21`, then `sed -n`; a CI
job's failing step through `gh run view --log-failed`, `gh api .../logs`, a saved copy and
`awk`: each reader shows the lines that say what failed, and little the session had not seen.
Once a failure is read, reading it again in other words will not change it.

A look (a completed call that changed nothing, not a poll) whose print reports a failure
(`failure_lines.failure_line`, past a reader's own marks: `12→`, `2504:`, `src/app.py:12:`, a
count) gives its failing lines, what a clock moves set aside (`answers.clock_free`: one error
logged at two times is one line); a line of code or a quote naming an error
(`logger.error("payment failed: %s")`, `t.Fatalf(...)`) is none. It is one more reading when
every failing line it shows was shown by the run's looks, at most half of all its lines
are new to them (paging through a log, a look with new context, is news), it reads what the
last reading read (not another pod's log, run or host: a sweep's finding), and it is spelt
anew in a turn of its own (calls issued together saw no answer yet). The 4th reading gets a
request to summarise and the 6th a pause (`error_checkin_repeats`, `error_pause_repeats`), as
one answer asked many ways does (`asked`). A look that shows only another failure starts the
run again. A change, an edit, the user's words, real progress (`stuck._progress`) or more than
`GAP` looks in a row without a failing line end it. A failing call is an attempt, for the
failures' rules; a poll is timed (`polls`). Pure functions; the run lives in the track's
`Stuck` record.
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core.loop_guard import answers
from arcguard.core.loop_guard import asked
from arcguard.core.loop_guard import failure_lines
from arcguard.core.loop_guard import failures
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import tool_effects
from arcguard.core.loop_records import Reread
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.loop_records import Stuck
    from arcguard.core.tool_call import ToolCall
    from arcguard.core.tool_call import ToolResult

GAP = 4  # looks without a failing line that may come between two readings
NEW_SHARE = 2  # a look with more than half its lines new to the run brings news
TEXT_CHARS = 8000  # of a print's end, read for failing lines
MAX_LINES = 32  # failing lines a run keeps
MAX_SEEN = 128  # lines a run keeps of all its looks showed
MAX_WAYS = 16
MAX_NAMES = 4
NAME_CHARS = 64
LINE_DIGEST = 8
STREAMS = frozenset({"stdout", "stderr"})  # a command's answer: the text the model saw
DEPTH = 2  # a tool's answer nests its text this deep at most (`Read`: `file`, then `content`)
ARROW = "→"  # the Read tool's mark after a line's number
NUMBER_CHARS = 8  # a line number before a reader's mark, at most
DATE_CHARS = 10  # `2026-05-12`
TIME_MARKS = frozenset("-:.,TZ+")  # between the numbers of a date or a time
CODE_MARKS = "\"'`("  # before a failing word: a quote or a call's argument, not a report
EXTENSION_CHARS = 4  # a file's name ends in a dot and a short extension (`app.log`)


@value
class Shown:
    """What a look's print showed, as a reading compares it: its failing lines and all its
    lines, as short digests."""

    failing: list[str]
    lines: list[str]


@value
class Look:
    """A look as a reading is told apart from a sweep's finding: its spelling
    (`opkey.operation_id`), its words as sweeps compare them (`failures.sweep_words`), the
    files it reads, its turn and its label."""

    way: str
    words: list[str]
    names: list[str]
    turn: int
    label: str


def shown(result: ToolResult) -> Shown:
    """The failing lines and all the lines a look's print shows, each once, in order; none
    when it shows no failing line (most looks: only their words are tested then)."""
    printed = _text(result)[-TEXT_CHARS:].splitlines()
    failing = [
        _digest(bare)
        for line in printed
        if failure_lines.may_report(line)
        and (bare := _unmarked(line))
        and failure_lines.failure_line(bare)
        and not _code(bare)
    ]
    if not failing:
        return Shown(failing=[], lines=[])
    lines = [_untimed(bare) for line in printed if (bare := _unmarked(line))]
    return Shown(failing=list(dict.fromkeys(failing)), lines=list(dict.fromkeys(lines)))


def _untimed(line: str) -> str:
    """A line's short digest, its dates and times aside (`2026-05-12`, `08:14:03,221`): a
    cheaper test than `_digest`'s for the many lines of a print."""
    words = [word for word in line.split() if not _time(word)]
    return hashing.digest(" ".join(words))[:LINE_DIGEST]


def _time(word: str) -> bool:
    """`word` is a date, a time or both (`2026-05-12`, `08:14:03,221`, `2026-10-15T08:14:02Z`)."""
    return (
        word[:1].isdigit()
        and ("-" in word or ":" in word)
        and all(c.isdigit() or c in TIME_MARKS for c in word)
    )


def _digest(line: str) -> str:
    """A line's short digest, what a clock moves set aside."""
    head = answers.clock_free(line)[: failure_lines.HEAD_CHARS]
    return hashing.digest(" ".join(head.split()))[:LINE_DIGEST]


def look(call: ToolCall, turn: int, label: str) -> Look:
    """What `call` looked at, as `observe` compares it."""
    command = tool_effects.command_of(call) or ""
    path = opkey.file_path(call)
    named = [path] if path else asked.files(command)
    names = [name.rpartition("/")[2][:NAME_CHARS] for name in named]
    files = [name for name in names if _file_name(name)]
    words = failures.sweep_words(command) if command else []
    return Look(opkey.operation_id(call), words, files[:MAX_NAMES], turn, label)


def _file_name(name: str) -> bool:
    stem, dot, extension = name.rpartition(".")
    return bool(stem and dot) and 0 < len(extension) <= EXTENSION_CHARS and extension.isalpha()


def _code(line: str) -> bool:
    """A quote, a call's parenthesis or a method's dot comes before the first word that may say
    something failed: a line of code or a quoted message (`logger.error("payment failed")`),
    not a report of one."""
    lowered = line.lower()
    first = min((at for stem in failure_lines.STEMS if (at := lowered.find(stem)) >= 0), default=0)
    before = line[:first]
    return before.endswith(".") or any(mark in before for mark in CODE_MARKS)


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
    if count.isdigit() and count.strip("0") and rest:  # `0 errors` is a count of none
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


def aside(st: Stuck) -> None:
    """A look showed no failing line (mutates `st`): more than `GAP` in a row end the run."""
    run = st.reread
    if run is not None:
        run.others += 1
        if run.others > GAP:
            end(st)


def observe(st: Stuck, seen: Shown, at: Look) -> None:
    """A look (`at`) showed `seen`, failing lines among them (mutates `st`)."""
    run = st.reread
    if run is None or not set(seen.failing) & set(run.lines):
        st.reread = Reread(
            lines=seen.failing[-MAX_LINES:],
            ways=[at.way],
            label=at.label,
            turn=at.turn,
            seen=seen.lines[-MAX_SEEN:],
            words=at.words,
            names=at.names,
        )
        return
    fresh = [line for line in seen.lines if line not in set(run.seen)]
    told = len(fresh) > max(1, len(seen.lines) // NEW_SHARE)
    news = told or not set(seen.failing) <= set(run.lines)
    elsewhere = failures.retargets(run.words, at.words) or bool(
        run.names and at.names and not set(run.names) & set(at.names)
    )
    run.others = 0
    run.lines = list(dict.fromkeys([*run.lines, *seen.failing]))[-MAX_LINES:]
    run.seen = list(dict.fromkeys([*run.seen, *fresh]))[-MAX_SEEN:]
    run.names = list(dict.fromkeys([*run.names, *at.names]))[-MAX_NAMES:]
    run.words = at.words
    if not (news or elsewhere) and at.way not in run.ways and at.turn != run.turn:
        run.ways = [*run.ways, at.way][-MAX_WAYS:]
        run.label, run.turn = at.label, at.turn


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
