"""A look's whole answer, with only the values a clock moves set aside.

`checks` asks whether the look after a change answered word for word as it did before. Its
counts must stay as they are (a row count that went from 100 to 200 moved), but what only a
clock moves says nothing of the change: a log line's timestamp, a clock time, a duration, an
age ("5 seconds ago", "Up 3 minutes"), a process id, a number too long to be a count (an
epoch time, a request id) and a hex id (a commit, a container, an address). Those are set
aside, so a restart followed by the same crash in the logs reads as the same answer. One
linear pass, no `re`: a hook runs this on every look.
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core.loop_guard import request_ids
from arcguard.core.loop_guard import shape


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.tool_call import ToolResult


CLOCK = "<t>"
# The characters of a timestamp around a clock time (`2026-08-08T00:47:13.000Z`).
CLOCK_CHARS = frozenset("0123456789-:.,TZ")
# A number followed by one of these words is an age or a duration ("3 minutes ago").
TIME_WORDS = frozenset(
    "ms s sec secs second seconds min mins minute minutes h hr hrs hour hours "  # noqa: SIM905
    "d day days week weeks".split()
)
# More digits than a count a look shows: epoch times, ids.
LONG_DIGITS = 7
# A hex word this long with a letter and a digit is an id (`3f2a1b9`), not a code (`E501`).
HEX_ID_CHARS = 7
RUN_SEEDS = frozenset((("with", "seed"), ("randomly", "seed")))  # the words before a run's seed
LOOK_CHARS = 8
MAX_LINES = 40  # of a poll's answer read line by line (`lines`)
LINE_DIGEST = 8  # hex digits kept of a line's digest: enough to tell a wait's lines apart
LINES_CHARS = 8 * 1024  # of a poll's answer read line by line


def digest(kind: str, text: str) -> str:
    """`kind:digest` of `text` with its clock values set aside."""
    return f"{kind}:{hashing.digest(clock_free(text.strip()))}"


def closing_line(result: ToolResult) -> str:
    """The last line a command printed, what its closing look printed last
    (`tool_effects.checked_restart`): from its standard output when it has one, where what ran
    before may have written its chatter beside it. "" when that line holds fewer than
    `LOOK_CHARS` letters and digits (`}`, `active`, `200`) or closes markup (`</html>`): too
    little to tell one answer from another (`502 Bad Gateway` and a version's JSON are not)."""
    response = result.response
    out = response.get("stdout") if isinstance(response, dict) else None
    text = out if isinstance(out, str) else shape.result_text(result)
    line = text.rstrip().rpartition("\n")[2].strip()
    closes = line.startswith("</")
    return line if sum(c.isalnum() for c in line) >= LOOK_CHARS and not closes else ""


def clock_free(text: str) -> str:
    """`text` whole (a change may show in its middle), with what a clock moves as `CLOCK`."""
    tokens = _tokens(_without_clock_times(text))
    out = []
    previous = ("", "")  # the last two words seen, lower case
    for at, token in enumerate(tokens):
        if token[0] in shape.WORD and any(c in shape.DIGITS for c in token):
            token = (
                CLOCK if _moves_with_the_clock(token, previous, _next_word(tokens, at)) else token
            )
        if token[0] in shape.WORD:
            previous = (previous[1], token.lower())
        out.append(token)
    return "".join(out)


def _moves_with_the_clock(word: str, previous: tuple[str, str], following: str) -> bool:
    # A process id, and a seed a test runner picked for its order, are new for each run
    # (`Randomized with seed 7710`); a seed the command names (`--seed 11`) is its own.
    picked = previous[1] == "pid" or previous in RUN_SEEDS
    if shape.is_duration(word) or picked or word.lower().startswith("pid"):
        return True
    if word.isdigit():
        return len(word) >= LONG_DIGITS or following in TIME_WORDS
    if word[:2] in ("0x", "0X"):  # an address (`0x7f3a9c21d0b8`)
        return len(word) >= HEX_ID_CHARS and all(c in shape.HEX for c in word[2:])
    return (
        len(word) >= HEX_ID_CHARS
        and all(c in shape.HEX for c in word)
        and any(c.isalpha() for c in word)
    )


def _next_word(tokens: list[str], at: int) -> str:
    """The word after `tokens[at]` when only spaces come between, lower case; else ""."""
    if at + 2 < len(tokens) and tokens[at + 1].isspace() and tokens[at + 2][0] in shape.WORD:
        return tokens[at + 2].lower()
    return ""


def _tokens(text: str) -> list[str]:
    """`text` as runs of word characters, runs of spaces, and single other characters."""
    tokens: list[str] = []
    i, n = 0, len(text)
    while i < n:
        j = i + 1
        if text[i] in shape.WORD:
            while j < n and text[j] in shape.WORD:
                j += 1
        elif text[i].isspace():
            while j < n and text[j].isspace():
                j += 1
        tokens.append(text[i:j])
        i = j
    return tokens


def _without_clock_times(text: str) -> str:
    """Each run of `CLOCK_CHARS` that starts with a digit and holds a clock time (a timestamp
    around one too) as `CLOCK`; an address (`127.0.0.1:5432`) or a port map (`80:30080`) is
    none."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] not in shape.DIGITS or (i and text[i - 1] in shape.WORD):
            out.append(text[i])
            i += 1
            continue
        j = i
        while j < n and text[j] in CLOCK_CHARS:
            j += 1
        run = text[i:j]
        out.append(CLOCK if _is_clock_time(run) else run)
        i = j
    return "".join(out)


def _is_clock_time(run: str) -> bool:
    """`run` holds one or two digits, a colon and two digits (`9:05`, `10:42:01`), the hour
    not after a dot (an address) and the minutes not followed by a third digit (a port)."""
    colon = run.find(":")
    while colon > 0:
        hour = colon
        while hour > 0 and run[hour - 1] in shape.DIGITS:
            hour -= 1
        minutes = run[colon + 1 : colon + 4]
        if (
            1 <= colon - hour <= 2
            and (hour == 0 or run[hour - 1] != ".")
            and minutes[:2].isdigit()
            and not minutes[2:].isdigit()
        ):
            return True
        colon = run.find(":", colon + 1)
    return False


# Around a mark of progress in a line (`(45%)`, `step 2866/14436,`).
PROGRESS_MARKS = "()[]{},;:|"
MAX_PROGRESS = 8
PROGRESS_CHARS = 24


# The columns of a table that say how far a job went, by their names: a share, or a count
# of what is done with the column of its total beside it, named alike (`blocks_done`,
# `blocks_total`; `heap_blks_scanned`, `heap_blks_total`: PostgreSQL's progress views).
# A share of something else (`mem_pct`, `error_pct`) or a count in progress is no progress.
SHARE_COLUMNS = frozenset(
    "pct percent percentage progress pct_done percent_done percent_complete".split()  # noqa: SIM905
)
DONE_WORDS = ("done", "scanned", "processed", "streamed", "completed")
TOTAL = "total"


def progress(text: str) -> str:
    """The marks of progress a poll's answer shows, in order: fractions (`2866/14436`, `2 out
    of 3`) and percentages (`45%`, `12.5%`), after those a table's cells show
    (`_table_marks`), the last `MAX_PROGRESS` of them ("": none). A bare count is none: a
    crash loop's restarts count up too."""
    words = [t.strip(PROGRESS_MARKS) for t in text.split()]
    marks = _table_marks(text)
    marks.extend(_spelt_out(words, at) or word for at, word in enumerate(words))
    return " ".join([m for m in marks if _progress_value(m) is not None][-MAX_PROGRESS:])


def _table_marks(text: str) -> list[str]:
    """Marks from the rows of a table whose cells are set apart by `|` (`psql`, `mysql`,
    `--output table`), read by the names in the row above (`_row_marks`)."""
    marks: list[str] = []
    names: list[str] = []
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) > 2 and not cells[0] and not cells[-1]:
            cells = cells[1:-1]  # a table drawn with a border (`| a | b |`)
        if len(cells) < 2 or not any(cells):
            continue
        if all(cell.replace("_", "").isalpha() for cell in cells):
            names = [cell.lower() for cell in cells]
        elif len(cells) == len(names):
            marks.extend(_row_marks(dict(zip(names, cells, strict=True))))
    return marks


def _row_marks(row: dict[str, str]) -> list[str]:
    """A share column's value as a percentage, a done column's as a fraction of its total."""
    marks = []
    for name, value in row.items():
        prefix, _, word = name.rpartition("_")
        if name in SHARE_COLUMNS:
            marks.append(f"{value.rstrip('%')}%")
        elif word in DONE_WORDS and f"{prefix}_{TOTAL}" in row:
            marks.append(f"{value}/{row[f'{prefix}_{TOTAL}']}")
    return marks


def _spelt_out(words: list[str], at: int) -> str:
    """`1/3` for `1 of 3` or `1 out of 3` starting at `words[at]` (kubectl's `1 out of 3 new
    replicas have been updated`); "" otherwise."""
    done = words[at]
    rest = words[at + 1 : at + 4]
    total = rest[1] if rest[:1] == ["of"] else rest[2] if rest[:2] == ["out", "of"] else ""
    return f"{done}/{total}" if done.isdigit() and total.isdigit() else ""


def ahead(marks: str, furthest: str) -> tuple[bool, str]:
    """Whether `marks` go past `furthest` (the furthest seen so far, mark by mark) anywhere,
    and the furthest of the two: a count that goes back and forth (`0/1`, `1/1`, `0/1`) moves
    ahead once."""
    new, old = marks.split(), furthest.split()
    if len(new) != len(old) or not new:
        return False, marks or furthest
    pairs = [
        (_progress_value(a) or 0.0, _progress_value(b) or 0.0, a, b)
        for a, b in zip(new, old, strict=True)
    ]
    return any(a > b for a, b, _, _ in pairs), " ".join(x if a > b else y for a, b, x, y in pairs)


# The bare numbers of an answer kept to find a timer among them, and their size: a timer counts
# seconds; more digits is an id or an epoch time.
MAX_NUMBERS = 16
NUMBER_DIGITS = 6
# A timer is read over at least this long a wait, may lag the clock by a few seconds (the time
# a command takes to answer), and runs out within the hour: a wait on a longer one, or on a
# count that falls for another reason (the space left on a filling disk), is no reason to poll.
MIN_TIMER_SECONDS = 20
TIMER_SLACK = 10
MAX_TIMER_SECONDS = 3600
# A poll's answer that is one count draws nearer to its end when it falls to a new low by this
# share of where the wait began (a queue, a consumer's lag, rows left to copy); a count that
# wobbles, creeps or falls back and forth makes no new low so, and the wait stays bounded.
DRAIN_SHARE = 1 / 10
LONE_DIGITS = 15


def bare_numbers(text: str) -> str:
    """The bare whole numbers of a poll's answer, in order, the first `MAX_NUMBERS` of them
    ("": none): `counts_down` looks for a timer among them. An answer that is one number is
    kept however long (a backlog's count): `drains` reads it."""
    lone = text.strip()
    if lone.isdigit() and lone.isascii() and len(lone) <= LONE_DIGITS:
        return lone
    found = []
    for word in text.split():
        number = word.strip(PROGRESS_MARKS + ".")
        if number.isdigit() and len(number) <= NUMBER_DIGITS:
            found.append(number)
            if len(found) == MAX_NUMBERS:
                break
    return " ".join(found)


def counts_down(before: str, after: str, elapsed: float) -> bool:
    """The answer's numbers (`bare_numbers`) since it was first seen, `elapsed` seconds ago,
    are those of timers running down (a cached DNS record's TTL, the seconds left on a lock):
    each that changed went down by half as many to half as many again as the seconds elapsed,
    one of them will run out within the hour, and the others stayed in their places. A number
    that moved otherwise (a memory size wobbling, a random id) is no timer, and says so."""
    old, new = before.split(), after.split()
    if elapsed < MIN_TIMER_SECONDS or len(old) != len(new):
        return False
    moved = [(int(a), int(b)) for a, b in zip(old, new, strict=True) if a != b]
    low, high = elapsed / 2, elapsed * 1.5 + TIMER_SLACK
    falling = all(low <= a - b <= high for a, b in moved)
    return falling and any(b <= MAX_TIMER_SECONDS for _, b in moved)


def _progress_value(word: str) -> float | None:
    if not 0 < len(word) <= PROGRESS_CHARS:
        return None
    if word.endswith("%"):
        number = word[:-1]
        return float(number) if number.replace(".", "", 1).isdigit() else None
    done, slash, total = word.partition("/")
    return float(done) if slash and done.isdigit() and total.isdigit() else None


def drains(before: str, after: str) -> bool:
    """The answer is one count (`bare_numbers`), lower by `DRAIN_SHARE` or more than it was
    when the wait began: a backlog draining."""
    if not before.isdigit() or not after.isdigit():
        return False
    old, new = int(before), int(after)
    return old > 0 and old - new >= old * DRAIN_SHARE


def lines(text: str, *, ids: bool = False) -> list[str]:
    """Short digests of the lines of a poll's answer, blank ones aside, what a clock moves set
    aside (`clock_free`), and with `ids` those made up per request (`request_ids`); none for an
    answer of more than `MAX_LINES` lines or `LINES_CHARS` characters, which may move where no
    line kept would show it. A wait whose polls show only lines it has shown saw nothing move,
    however each poll was spelt (`tail -n 3` of a log, then `tail -n 1`)."""
    text = text.strip()
    if len(text) > LINES_CHARS or text.count("\n") >= MAX_LINES:
        return []
    text = clock_free(request_ids.without(text) if ids else text)
    found = [line.strip() for line in text.splitlines()]
    return [hashing.digest(line)[:LINE_DIGEST] for line in found if line]
