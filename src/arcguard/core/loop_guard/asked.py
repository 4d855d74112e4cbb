"""One answer asked for many ways: a question already answered, asked again in other words.

A look answers with a state when it prints the value of a status, state, phase or health
field (`"status" : "yellow"`, `Status: Pending`) or column (kubectl's `STATUS`), or when all
it prints is one short line (`3.1.4`, `yellow`). When new spellings of the question keep
getting that answer (`_cluster/health`, then `_cat/health`, then `jq -r .status`; `npm view`,
then `pnpm view`, then the registry through curl) with no file written and nothing heard
between, the answer is known: another way of asking will not change it. Each new spelling
that gets it is an attempt, staged as failures are (`error_checkin_repeats`, then
`error_pause_repeats`). The same spelling asked again is the shape rule's (`stuck`), a wait is
timed (`polls`), and a change with the look after it is judged by `checks`.

Only an answer that is not a settled one counts: a service found running or healthy in every
view is a look around, not a question asked again (`SETTLED`). Nor does a bare number (a
status code, a count): a sweep of endpoints all answering 200 asks of different targets. A few
other answers between do not end a run (`GAP`); more do, and so does real progress
(`stuck._progress`). Pure functions; the run lives in the track's `Stuck` record.
"""

from __future__ import annotations

from arcguard.core.loop_guard import answers
from arcguard.core.loop_guard import failures
from arcguard.core.schema import Asked


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.schema import Stuck

FIELDS = frozenset(("status", "state", "phase", "health"))
# Answers that say all is well: asked for many ways, they are a check from every side.
SETTLED = frozenset(
    "running ready healthy green active succeeded success successful completed complete bound "  # noqa: SIM905
    "up ok true yes open available passed pass done started online connected enabled synced "
    "in-sync current".split()
)
SHORT_WORDS = 3  # a one-line answer of at most this many words...
SHORT_CHARS = 40  # ... and characters is an answer whole (`3.1.4`, `yellow 3 50.0%`)
MAX_LINES = 40  # a longer print is a listing to read, not an answer
MAX_WAYS = 16
GAP = 3  # other answers that may come between two of the run's
ANSWER_CHARS = 60
FIELD_MARKS = "\"'{},"


def said(text: str) -> str:
    """The unsettled state `text` answers with: the short line itself, or the values its
    status fields and columns hold, space-separated and lower case ("": none, or all settled)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if not lines or len(lines) > MAX_LINES:
        return ""
    values = _field_values(lines)
    first = lines[0].strip()
    if not values and len(lines) == 1 and len(first.split()) <= SHORT_WORDS:
        words = [word.strip(FIELD_MARKS) for word in answers.clock_free(first).lower().split()]
        answer = " ".join(word for word in words if word)
        if len(first) > SHORT_CHARS or answer.isdigit():
            return ""
        return answer[:ANSWER_CHARS] if set(words) - SETTLED else ""
    return " ".join(sorted(values))[:ANSWER_CHARS] if values - SETTLED else ""


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
        for pair in () if columns else line.split(","):
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
    all words, one of them a status field ([] otherwise)."""
    names = line.split()
    plain = all(name.replace(".", "").replace("_", "").isalpha() for name in names)
    if len(names) < 3 or not plain or not FIELDS.intersection(n.lower() for n in names):
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
    return line[at:].split()[0].strip(FIELD_MARKS).lower()


def observe(st: Stuck, answer: str, way: str, label: str, command: str) -> None:
    """A look spelt `way` (`command`) gave `answer` (`said`; mutates `st`). The same answer of
    another target (`systemctl is-active redis` after `nginx`, the next port) is a sweep's
    finding, not the question asked again: an answer of its own. A run of one way gives way to
    another answer; a longer one lets `GAP` of them pass before it ends."""
    run = st.asked
    words = failures.sweep_words(_hosts_only(command))
    if run is not None and _shares(run.answer, answer) and not _elsewhere(run.words, command):
        if way not in run.ways:
            run.ways = [*run.ways, way][-MAX_WAYS:]
            run.label, run.words = label, words
        run.others = 0
    elif run is not None and len(run.ways) > 1 and run.others < GAP:
        run.others += 1
    else:
        st.asked = Asked(answer=answer, ways=[way], label=label, words=words)


def _elsewhere(words: list[str], command: str) -> bool:
    return failures.retargeted(words, _hosts_only(command))


def _hosts_only(command: str) -> str:
    """`command` with each address cut to its host and port: another path of one service
    (`localhost:9200/_cat/health` after `/_cluster/health`) asks the same service, another port
    or host asks another."""
    return " ".join(_host(word) for word in command.split())


def _host(word: str) -> str:
    bare = word.strip("'\"")
    rest = bare.partition("://")[2] or bare
    host, slash, _ = rest.partition("/")
    return host.partition("?")[0] if slash and ("://" in bare or ":" in host) else word


def _shares(run: str, answer: str) -> bool:
    """The answers share a word that is not a bare number: the same state, however shown."""
    return any(not word.isdigit() for word in set(run.split()) & set(answer.split()))


def ways(st: Stuck) -> int:
    """How many ways the current run's answer was asked for."""
    return len(st.asked.ways) if st.asked is not None else 0
