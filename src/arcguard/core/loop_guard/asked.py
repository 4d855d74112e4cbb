"""One answer asked for many ways: a question already answered, asked again in other words.

A look answers with a state when it prints the value of a status, state, phase or health
field (`"status" : "yellow"`, `Status: Pending`) or column (kubectl's `STATUS`), or when all
it prints is one short line of values (`3.1.4`, `yellow`). When new spellings of the question
keep getting that same answer (`_cluster/health`, then `_cat/health`, then `jq -r .status`;
`npm view`, then `pnpm view`, then the registry through curl) with nothing changed, written or
heard between, the answer is known: another way of asking will not change it. Each new
spelling that gets it, in a turn of its own (calls issued together saw no answer yet), is an
attempt, staged as failures are (`error_checkin_repeats`, then `error_pause_repeats`). The
same spelling asked again is the shape rule's (`stuck`), and a wait is timed (`polls`).

Two answers are the same when the unsettled states they name are: counts, percentages and
values a clock moves aside (`yellow 3 50.0%` is `yellow`), and words the command itself gave
(a path it asked about). A settled answer (`SETTLED`: running, healthy, green...) ends the
run: a service found well from every side is a look around. So does the same answer of another
target (`is-active redis` after `nginx`, another host or port, the next resource of one API
path): a sweep's findings. More than `GAP` other new results, a change or real progress
(`stuck._progress`) end it too. Pure functions; the run lives in the track's `Stuck` record.
"""

from __future__ import annotations

from arcguard.core.loop_guard import answers
from arcguard.core.loop_guard import failures
from arcguard.core.loop_records import Asked


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.loop_records import Stuck

FIELDS = frozenset(("status", "state", "phase", "health"))
# Answers that say all is well: asked for many ways, they are a check from every side.
SETTLED = frozenset(
    "running ready healthy green active succeeded success successful completed complete bound "  # noqa: SIM905
    "up ok true yes open available passed pass done started online connected enabled synced "
    "in-sync current deployed serving issued inservice".split()
)
SETTLED_SUFFIX = "_complete"  # CloudFormation's `UPDATE_COMPLETE`
WELL = "="  # what `said` gives for an answer that is all settled
SHORT_WORDS = 3  # a one-line answer of at most this many words...
SHORT_CHARS = 40  # ... and characters is an answer whole (`3.1.4`, `yellow 3 50.0%`)
MAX_LINES = 40  # a longer print is a listing to read, not an answer
MAX_TEXT = 8000  # nor is a longer text
MAX_WAYS = 16
MAX_FILES = 4
FILE_CHARS = 64
EXTENSION_CHARS = 5
GAP = 3  # other new results that may come between two of the run's
ANSWER_CHARS = 60
FIELD_MARKS = "\"'{},"
COLUMN_GAP = "  "  # aligned columns: what sets a table's header apart from a sentence


def said(text: str) -> str:
    """The states `text` answers with, space-separated and lower case: the short line's words,
    or the values its status fields and columns hold; `WELL` when all are settled, "" when it
    names none."""
    if len(text) > MAX_TEXT:
        return ""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if not lines or len(lines) > MAX_LINES:
        return ""
    values = _field_values(lines)
    first = lines[0].strip()
    if not values and len(lines) == 1 and len(first) <= SHORT_CHARS:
        words = [word.strip(FIELD_MARKS) for word in answers.clock_free(first).lower().split()]
        values = {word for word in words if word}
        if len(words) > SHORT_WORDS or not all(map(_value_word, values)):
            return ""
    if not values:
        return ""
    return " ".join(sorted(values))[:ANSWER_CHARS] if _unsettled(values) else WELL


def _unsettled(values: set[str] | list[str]) -> list[str]:
    return [v for v in values if v not in SETTLED and not v.endswith(SETTLED_SUFFIX)]


def _value_word(word: str) -> bool:
    """A word a short answer may hold: a state (`yellow`), a version or a count (`3.1.4`, `3`,
    `50.0%`); not a path, an address or a sentence's punctuation."""
    return _state_word(word) or word.rstrip("%").replace(".", "").isdigit()


def _field_values(lines: list[str]) -> set[str]:
    """The values of the status fields (`key: value`, several to a line in JSON printed on one)
    and columns (under a header naming one) of `lines`."""
    values: set[str] = set()
    columns: list[int] = []
    for line in lines:
        if columns:
            values.update(_cell(line, at) for at in columns)
            continue
        columns = _header(line)
        pairs = [] if columns else line.split(",")
        for pair in pairs:
            key, colon, value = pair.partition(":")
            words = value.strip().strip(FIELD_MARKS).split()
            if colon and key.strip().strip(FIELD_MARKS).lower() in FIELDS and len(words) == 1:
                values.add(words[0].lower())
    return {value for value in values if _state_word(value)}


def _state_word(value: str) -> bool:
    """A state is named in letters (`ImagePullBackOff`, `yellow`): not a name with a hash or a
    count in it, nor a table's rule of dashes."""
    return value.replace("-", "").replace("_", "").isalpha()


def _header(line: str) -> list[int]:
    """Where a table's status columns start, when `line` is its header: three or more names,
    all words, one of them a status field, in capitals or set apart as aligned columns are (a
    sentence about a state is none); [] otherwise."""
    names = line.split()
    plain = all(name.replace(".", "").replace("_", "").isalpha() for name in names)
    columns = line.isupper() or COLUMN_GAP in line.strip()
    if len(names) < 3 or not plain or not columns:
        return []
    if not FIELDS.intersection(name.lower() for name in names):
        return []
    starts: list[int] = []
    at = 0
    for name in names:
        at = line.index(name, at)
        if name.lower() in FIELDS:
            starts.append(at)
        at += len(name)
    return starts


def _cell(line: str, at: int) -> str:
    """The word of a table's row that starts under its header's column at `at` ("" when the
    cell is empty)."""
    if at >= len(line) or line[at] == " " or (at and line[at - 1] != " "):
        return ""
    words = line[at:].split()
    return words[0].strip(FIELD_MARKS).lower() if words else ""


def observe(st: Stuck, answer: str, way: str, command: str, turn: int, label: str) -> None:
    """A look spelt `way` (`command`), in the track's `turn`, gave `answer` (`said`; mutates
    `st`). A run of one way gives way to another answer; a longer one lets `GAP` pass."""
    run = st.asked
    if answer == WELL:
        end(st)
        return
    key = _key(answer)
    words, files = failures.sweep_words(_addresses(command)), _files(command)
    if not key:
        other(st)
    elif run is not None and run.answer == key and not _elsewhere(run, words, files):
        if way not in run.ways and turn != run.turn:
            run.ways = [*run.ways, way][-MAX_WAYS:]
            run.label, run.turn = label, turn
        run.words, run.files, run.others = words, files, 0
    elif run is not None and len(run.ways) > 1 and run.others < GAP:
        run.others += 1
    else:
        st.asked = Asked(answer=key, ways=[way], label=label, words=words, files=files, turn=turn)


def _elsewhere(run: Asked, words: list[str], files: list[str]) -> bool:
    """The look asks of another target than the run's last: the same command but for a name or
    two (`failures.retargets`), or other files (a version read from each manifest in turn)."""
    other_files = bool(files and run.files) and not set(files) & set(run.files)
    return other_files or failures.retargets(run.words, words)


def _files(command: str) -> list[str]:
    """The files (or hosts) `command` names: words with a path's slash or an extension
    (`package.json`, `status.example.com`), not an address with a port, an option, a variable,
    a field (`.version`) or a scoped package (`@acme/sdk`); at most `MAX_FILES`, clipped."""
    found = []
    for word in command.split():
        bare = word.strip("'\"();")
        stem, dot, extension = bare.rpartition(".")
        short = 0 < len(extension) <= EXTENSION_CHARS and not extension.isdigit()
        named = "/" in bare or bool(dot and stem and short and extension.isalnum())
        if named and ":" not in bare and not bare.startswith(("-", "$", ".", "@")):
            found.append(bare[:FILE_CHARS])
    return found[:MAX_FILES]


def other(st: Stuck) -> None:
    """A new result of another kind came (mutates `st`): more than `GAP` end the run."""
    run = st.asked
    if run is not None:
        run.others += 1
        if run.others > GAP:
            end(st)


def end(st: Stuck) -> None:
    """The run is over (mutates `st`)."""
    if st.has("asked"):
        del st.asked


def _key(answer: str) -> str:
    """What an answer says, for comparing: its unsettled states but for counts and percentages
    (`yellow 3 50.0%` says `yellow`; a version's dots keep it: `3.1.4`)."""
    return " ".join(word for word in _unsettled(answer.split()) if not _count(word))


def _count(word: str) -> bool:
    return word.rstrip("%").isdigit() or (word.endswith("%") and _value_word(word))


def _addresses(command: str) -> str:
    """`command` with each address read as its service and the resource it names: another path
    of one service (`localhost:9200/_cat/health` after `/_cluster/health`) asks the same
    service; another port or host, or the next resource under one path (`/v1/jobs/a`, then
    `/v1/jobs/b`), asks another."""
    return " ".join(_address(word) for word in command.split())


def _address(word: str) -> str:
    bare = word.strip("'\"")
    rest = bare.partition("://")[2] or bare
    host, slash, path = rest.partition("/")
    if not slash or ("://" not in bare and ":" not in host):
        return word
    parts = path.partition("?")[0].strip("/").split("/")
    # The last part names a resource when the path is deep enough to hold a collection.
    return f"{host} {'/'.join(parts[:-1])}:{parts[-1]}" if len(parts) > 2 else host


def ways(st: Stuck) -> int:
    """How many ways the current run's answer was asked for."""
    return len(st.asked.ways) if st.asked is not None else 0
