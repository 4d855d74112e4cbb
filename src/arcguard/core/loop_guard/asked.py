"""One answer asked for many ways: a question already answered, asked again in other words.

A look answers with a state when it prints the value of a status, state, phase or health
field (`"status" : "yellow"`, `Status: Pending`), the status column of a table of one row
(kubectl's `STATUS`), or, when its command asks for a state or a version, one short line of
values (`3.1.4`, `yellow`). A short print that names no state answers with its values
(`print_values`: a host name, a date, a queue's depth). When new spellings of the question keep
getting the same states or values (`_cluster/health`, then `_cat/health`, then `jq -r .status`;
`dig`, then `host`, then `nslookup`) with nothing changed, written or heard between, the answer is
known: another way of asking will not change it. Each new spelling that gets it, in a turn of
its own (calls issued together saw no answer yet), is an attempt, staged as failures are
(`error_checkin_repeats`, then `error_pause_repeats`). The same spelling asked again is the
shape rule's (`stuck`), a wait is timed (`polls`), and a command arcguard cannot tell from a
change (`psql`, `python -c`) is one: its print never counts here.

What the states are: the unsettled ones, counts and percentages aside (`yellow 3 50.0%` says
`yellow`; a version keeps its dots). Two answers are the same when they share a state or a
value, and the run keeps what they share (one resolver adds the address to the name another
gave). A longer print that shows all of it again (`describe`, among its many lines) tells
nothing new about it: it neither counts nor comes between. What ends a run: a settled answer
(`SETTLED`: a service found well from every side is a look around), a change, an edit, the
user's words, more than `GAP` other new results, or, after the request to summarise, a look
elsewhere and a wait (`waited`); reading alone cannot move the answer. A look at another target
(`is-active redis` after `nginx`; another host, port, path, file or number) asks another
question: it does not join; nor does a value got by a look asking about nothing the run's
looks asked about (`_about`: a uid from `id`, then from `stat data`). A value a change or an
edit set since the user last spoke (`expect`) is that change checked: it ends the run. Pure
functions; the run lives in the track's `Stuck` record.

| the look gives | the run |
|---|---|
| the run's states or values, another target | stays, the look is one of the other results |
| some of them, a spelling not counted, another turn | counts one more way, keeps those |
| none of them, the run has one way | starts again from this look |
| none of them, or no answer but a new result | one more other result (`other`) |
| a longer print showing them all | stays as it is |
| all settled, or a value a change set | ends |
"""

from __future__ import annotations

from arcguard.core.loop_guard import answers
from arcguard.core.loop_guard import cloud_clis
from arcguard.core.loop_guard import failures
from arcguard.core.loop_guard import print_values
from arcguard.core.loop_guard import tool_effects
from arcguard.core.loop_records import Asked


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.loop_records import Stuck

FIELDS = frozenset(("status", "state", "phase", "health"))
# What a command asks for when a short line answers it with a state or a version.
ASKING = ("status", "state", "phase", "health", "version", "conclusion", "is-", "ready")
# Answers that say all is well: asked for many ways, they are a check from every side.
SETTLED = frozenset(
    "running ready healthy green active succeeded success successful completed complete bound "  # noqa: SIM905
    "up ok true yes open available passed pass done started online connected enabled synced "
    "in-sync insync current deployed serving issued inservice merged".split()
)
SETTLED_SUFFIX = "_complete"  # CloudFormation's `UPDATE_COMPLETE`
# Answers that say nothing was found: no state.
ABSENT = frozenset("none null nil unset undefined empty missing n/a no <none> (none)".split())  # noqa: SIM905
WELL = "="  # what `said` gives for an answer that is all settled
SHORT_WORDS = 3  # a one-line answer of at most this many words...
SHORT_CHARS = 40  # ... and characters is an answer whole (`3.1.4`, `yellow 3 50.0%`)
MAX_LINES = 40  # a longer print is a listing to read, not an answer
MAX_TEXT = 8000  # nor is a longer text
MAX_WAYS = 16
VALUE_LINES = 8  # a print of at most this many lines...
PRINT_CHARS = 800  # ... and characters answers with its values (`print_values`)...
MAX_VALUES = 2  # ... when it shows at most this many: more are a listing or a log to read
MAX_SHOWN = 64  # values of a longer print kept to compare with the run's answer
SHOWN = "~"  # what `said` gives before the values of a print that answers no other way
MAX_TARGETS = 4
TARGET_CHARS = 64
EXTENSION_CHARS = 4
GAP = 3  # other new results that may come between two of the run's
WAITED = 120.0  # seconds after which an outside process may have moved the answer (`waited`)
ANSWER_CHARS = 60
FIELD_MARKS = "\"'{},"
RULE_CHARS = frozenset("-=+| ")
COLUMN_GAP = "  "  # aligned columns: what sets a table's header apart from a sentence
TARGET = "@"  # between a look's sweep words and the names it asks about (`targets`)
ABOUT_CHARS = 3  # the shortest part of a word that names what a look asks about (`api`)
SETTING_OPTIONS = tool_effects.VALUED_OPTIONS | {"-o", "--output"}
NAMESPACED = frozenset(("kubectl", "helm", "oc"))
NAMESPACE_SETTINGS = frozenset("-n --namespace --context --kubeconfig -o --output".split())  # noqa: SIM905
CLOUD_SETTINGS = cloud_clis.VALUED_OPTIONS - {"--name", "-n", "--cluster"}  # a name is asked of
ABOUT = "^"  # between the names a look asks about and its words' parts (`targets`)
MAX_ABOUT = 16
ABOUT_PART_CHARS = 16


def said(text: str, command: str) -> str:
    """What `text` answers `command` with, space-separated and lower case: its unsettled states,
    counts aside, or else the values of a short print that measures nothing (`print_values`);
    `WELL` when the states it names are all settled; when it answers neither way, `SHOWN` and
    the values it shows (to tell whether it shows the run's answer again); "" when it shows
    none, or is longer than `MAX_TEXT`."""
    if len(text) > MAX_TEXT:
        return ""
    lines = [line.rstrip() for line in text.strip().splitlines()]  # columns stay where they are
    short = [line.strip() for line in lines if line.strip()]
    states = _states(lines, short, command)
    if states and states != WELL:
        return states
    shown = print_values.values(short, command)
    if states == WELL:
        return " ".join([WELL, *shown[:MAX_SHOWN]])
    fits = len(short) <= VALUE_LINES and sum(map(len, short)) <= PRINT_CHARS
    if fits and 0 < len(shown) <= MAX_VALUES and not print_values.measured(short):
        return " ".join(shown)
    return " ".join([SHOWN, *shown[:MAX_SHOWN]]) if shown else ""


def _states(lines: list[str], short: list[str], command: str) -> str:
    """The unsettled states `lines` answer with, counts aside; `WELL` when all are settled."""
    if len(lines) > MAX_LINES:
        return ""
    values = _field_values(lines) - ABSENT or _short_state(short, command)
    if not values:
        return ""
    unsettled = _unsettled(values)
    return _clip(sorted(v for v in unsettled if not _count(v))) if unsettled else WELL


def _short_state(short: list[str], command: str) -> set[str]:
    """The states of a one-line answer to a command that asks for a state or a version."""
    if len(short) != 1 or len(short[0]) > SHORT_CHARS or not _asks(command):
        return set()
    words = [word.strip(FIELD_MARKS) for word in answers.clock_free(short[0]).lower().split()]
    values = {word for word in words if word} - ABSENT
    if len(words) > SHORT_WORDS or not all(map(_value_word, values)):
        return set()
    return values


def _asks(command: str) -> bool:
    """The command asks for a state or a version (`jq -r .status`, `npm view x version`)."""
    lowered = command.lower()
    return any(word in lowered for word in ASKING)


def _clip(words: list[str]) -> str:
    """`words` joined, as many whole ones as `ANSWER_CHARS` holds (a longer one left out)."""
    kept: list[str] = []
    for word in words:
        if len(" ".join([*kept, word])) <= ANSWER_CHARS:
            kept.append(word)
    return " ".join(kept)


def _unsettled(values: set[str]) -> list[str]:
    return [v for v in values if v not in SETTLED and not v.endswith(SETTLED_SUFFIX)]


def _count(word: str) -> bool:
    """A count or a percentage (`3`, `50.0%`): how much, not which state."""
    number = word.removesuffix("%")
    return number.isdigit() or (number != word and number.replace(".", "", 1).isdigit())


def _value_word(word: str) -> bool:
    """A word a short answer may hold: a state (`yellow`), a version or a count (`3.1.4`, `3`,
    `50.0%`); not a path, an address or a sentence's punctuation."""
    return _letters(word) or word.rstrip("%").replace(".", "").isdigit()


def _field_values(lines: list[str]) -> set[str]:
    """The values of the status fields (`key: value`, several to a line in JSON printed on one)
    and of the status columns of tables of one row (a header, then its row, then a blank line
    or the end): a listing of many rows holds many things' states."""
    values: set[str] = set()
    columns: list[int] = []
    rows: list[str] = []
    for line in [*lines, ""]:
        if not line.strip():
            if len(rows) == 1:
                values.update(_cell(rows[0], at) for at in columns)
            columns, rows = [], []
        elif columns:
            if not set(line) <= RULE_CHARS:  # not the rule under a header
                rows.append(line)
        else:
            columns = _header(line)
            if not columns:
                values.update(_field_value(pair) for pair in line.split(","))
    return {value for value in values if _letters(value)}


def _field_value(pair: str) -> str:
    """The value of `pair` when it is a status field (`"status":"yellow"`), else ""."""
    key, colon, value = pair.partition(":")
    words = value.strip().strip(FIELD_MARKS).split()
    named = colon and key.strip().strip(FIELD_MARKS).lower() in FIELDS
    return words[0].lower() if named and len(words) == 1 else ""


def _letters(value: str) -> bool:
    """A state is named in letters (`ImagePullBackOff`, `yellow`): not a name with a hash or a
    count in it, nor a table's rule of dashes."""
    return value.replace("-", "").replace("_", "").isalpha()


def _header(line: str) -> list[int]:
    """Where a table's status columns start, when `line` is the header of a table ([] when it
    names no status column): three or more names in capitals, or set apart as aligned columns
    are (a sentence about a state is none)."""
    names = line.split()
    plain = all(name.replace(".", "").replace("_", "").replace("-", "").isalpha() for name in names)
    columns = line.isupper() or COLUMN_GAP in line.strip()
    if len(names) < 3 or not plain or not columns:
        return []
    starts: list[int] = []
    at = 0
    for name in names:
        at = line.index(name, at)
        if name.lower() in FIELDS:
            starts.append(at)
        at += len(name)
    return starts or [-1]  # a header without a status column still ends the table before


def _cell(line: str, at: int) -> str:
    """The word of a table's row that starts under its header's column at `at` ("" when the
    cell is empty)."""
    if at < 0 or at >= len(line) or line[at] == " " or (at and line[at - 1] != " "):
        return ""
    words = line[at:].split()
    return words[0].strip(FIELD_MARKS).lower() if words else ""


def observe(st: Stuck, answer: str, way: str, asking: list[str], turn: int, label: str) -> None:
    """A look spelt `way`, asking of what `asking` names (`targets`), in the track's `turn`,
    gave `answer` (`said`; mutates `st`). See the table above."""
    run = st.asked
    words = answer.split()
    marked = words[0] in (WELL, SHOWN)  # then the values it shows follow the mark
    if set(words[1:] if marked else words) & set(st.expected.split()):
        end(st)  # it answers with what a change set: that change checked
        return
    if marked:
        if run is not None and set(run.answer.split()) <= set(words[1:]):
            return  # it shows the run's answer again: no news about it
        if words[0] == WELL:
            end(st)
        else:
            other(st)
        return
    shared = _shared(run.answer, answer) if run is not None else ""
    if (run is None or (not shared and len(run.ways) == 1)) and _clip(answer.split()):
        st.asked = Asked(
            answer=_clip(answer.split()), ways=[way], label=label, words=asking, turn=turn
        )
    elif run is None:
        return
    elif not shared or _elsewhere(run.words, asking) or _apart(answer, run.words, asking):
        other(st)
    elif way not in run.ways and turn != run.turn:
        run.ways = [*run.ways, way][-MAX_WAYS:]
        run.answer = shared
        run.label, run.turn, run.words, run.others = label, turn, _merged(run.words, asking), 0


def _apart(answer: str, before: list[str], after: list[str]) -> bool:
    """A value (not a state) got by a look that asks about nothing the run's looks asked about
    (`targets`): one fact met by two questions (a uid from `id` and from `stat data`), not one
    question asked again. A look asking about nothing (`python3 --version`) may be either."""
    value = not all(map(_letters, answer.split()))
    about, new = _split(before)[2], _split(after)[2]
    return value and bool(about and new) and not set(about) & set(new)


def _merged(before: list[str], after: list[str]) -> list[str]:
    """`after` (`targets`), asking about what the run's looks asked about so far too."""
    words, names, about = _split(after)
    kept = [*about, *(part for part in _split(before)[2] if part not in about)][:MAX_ABOUT]
    return [*words, TARGET, *names, ABOUT, *kept]


def _about(command: str) -> list[str]:
    """What a look's command asks about: the parts of its words (`api`, `tls` of `api-tls`),
    of three characters or more, but its programs, their subcommands, their options and what
    sets where or how they answer (a namespace, a context, an output format)."""
    found: dict[str, None] = {}
    # The shell's own split (quotes kept whole, already made for the look's read-only test);
    # a rough one for a command it does not read.
    simple = tool_effects.segments(command)
    if simple is None:
        simple = [part.split() for part in command.replace(";", "|").replace("&", "|").split("|")]
    for segment in simple:
        words = tool_effects.unwrap(segment)
        skip = _subcommand(words)
        for at, word in enumerate(words):
            if at == 0 or at in skip or word.startswith(("-", "+")) or _setting(words, at, skip):
                continue
            clean = "".join(c if c.isalnum() else " " for c in word.lower())
            parts = [part for part in clean.split() if len(part) >= ABOUT_CHARS]
            found.update((part[:ABOUT_PART_CHARS], None) for part in parts if not part.isdigit())
    return list(found)[:MAX_ABOUT]


def _setting(words: list[str], at: int, skip: list[int]) -> bool:
    """The word at `at` is the value of an option that says where or how a look answers, not
    what it asks about: a namespace, a context, an output format (`-n prod`, `-o json`) before
    a subcommand or anywhere in kubectl's and helm's words, a cloud CLI's region or query.
    After a subcommand such options mean other things (`git grep -n TODO`, `docker logs -f`)."""
    option = words[at - 1]
    program = tool_effects.program_name(words[0])
    if program in cloud_clis.CLIS:
        return option in CLOUD_SETTINGS
    if not skip:
        return False
    if at > skip[0]:
        return program in NAMESPACED and option in NAMESPACE_SETTINGS
    return option in SETTING_OPTIONS


def _subcommand(words: list[str]) -> list[int]:
    """Where the subcommand of a program that takes one is among `words` (`get` of `kubectl
    -n edge get secret`), or a cloud CLI's service and action (`ec2 describe-instances`);
    [] for another program."""
    program = tool_effects.program_name(words[0]) if words else ""
    if program in cloud_clis.CLIS:
        return _cloud_action(words)
    if program not in failures.SUBCOMMANDS:
        return []
    return [1 + tool_effects.subcommand_of(program, words[1:])]


def _cloud_action(words: list[str]) -> list[int]:
    """Where a cloud CLI's groups and action are (`ec2 describe-instances`, `s3 ls`, `compute
    instances describe`): its leading positional words, up to its verb."""
    found: list[int] = []
    for at in range(1, min(len(words), 1 + cloud_clis.ACTION_WORDS * 2)):
        if words[at].startswith("-") or words[at - 1] in cloud_clis.VALUED_OPTIONS:
            continue
        found.append(at)
        verb = words[at].partition("-")[0]
        if verb in cloud_clis.ACTIONS_THAT_READ or verb in cloud_clis.AWS_READ_VERBS:
            break
        if len(found) == cloud_clis.ACTION_WORDS:
            break
    return found


def _shared(before: str, after: str) -> str:
    """The words of the run's answer `before` that the look's answer `after` gives too."""
    given = set(after.split())
    return " ".join(word for word in before.split() if word in given)


def expect(st: Stuck, text: str, before: str = "") -> None:
    """A change or an edit named, or a change reported, the values of `text` and not of the
    text an edit replaced, `before` (mutates `st`), until the user speaks: looks answering
    with them check it, from every side as need be (`helm upgrade --set image.tag=2026.06.3`,
    or an edit to `tag: 2026.06.3` and the deploy after it; then the release read from the
    endpoint, the pods and the chart; a reindex's count, then the index counted)."""
    lines = text[:MAX_TEXT].splitlines()[:MAX_LINES]
    old = print_values.values(before[:MAX_TEXT].splitlines()[:MAX_LINES], "")
    named = [value for value in print_values.values(lines, "") if value not in old]
    # The latest first, the earlier kept as room allows: an edit sets the tag, the commit and
    # the deploy after it name none.
    st.expected = _clip([*named, *(v for v in st.expected.split() if v not in named)])


def other(st: Stuck) -> None:
    """A new result of another kind came (mutates `st`): more than `GAP` end the run."""
    run = st.asked
    if run is not None:
        run.others += 1
        if run.others > GAP:
            end(st)


def waited(st: Stuck, now: float) -> None:
    """A run asked to summarise, then looked away from, asked again after `WAITED` starts over
    (mutates `st`): a registry, a resolver or a provisioner may have moved the answer."""
    run = st.asked
    if run is not None and run.nudged and run.others and now - run.at > WAITED:
        end(st)


def end(st: Stuck) -> None:
    """The run is over (mutates `st`)."""
    if st.has("asked"):
        del st.asked


def targets(command: str, numbers: frozenset[str]) -> list[str]:
    """What `command` asks about, as a sweep compares it (`failures.sweep_words`, with each
    address's host, path parts and query apart), then the files, hosts and numbers it names
    (`numbers`: `shape.identity_numbers`) after a `TARGET` mark, then the parts of its words
    (`_about`) after an `ABOUT` mark."""
    named = [*files(command), *sorted(numbers)][:MAX_TARGETS]
    words = failures.sweep_words(" ".join(_address(word) for word in command.split()))
    return [*words, TARGET, *(name[:TARGET_CHARS] for name in named), ABOUT, *_about(command)]


def _elsewhere(before: list[str], after: list[str]) -> bool:
    """The look asks of another target than the run's last: the same command but for a name or
    two (`failures.retargets`), or other files, hosts or numbers altogether."""
    words, names, _ = _split(before)
    new_words, new_names, _ = _split(after)
    other_names = bool(names and new_names) and not set(names) & set(new_names)
    return other_names or failures.retargets(words, new_words)


def _split(kept: list[str]) -> tuple[list[str], list[str], list[str]]:
    """A look's sweep words, the names it asks about, and its words' parts (`targets`)."""
    at = kept.index(TARGET) if TARGET in kept else len(kept)
    about = kept.index(ABOUT) if ABOUT in kept else len(kept)
    return kept[:at], kept[at + 1 : about], kept[about + 1 :]


def files(command: str) -> list[str]:
    """The files (or hosts) `command` names: words with a path's slash or a short lower-case
    extension (`package.json`, `status.example.com`), not an address, an option, a variable, a
    field (`.version`, `State.Name`) or a scoped package (`@acme/sdk`)."""
    found = []
    for word in command.split():
        bare = word.strip("'\"();")
        stem, dot, extension = bare.rpartition(".")
        short = 0 < len(extension) <= EXTENSION_CHARS and extension.isalpha()
        named = "/" in bare or bool(dot and stem and short and extension.islower())
        if named and ":" not in bare and not bare.startswith(("-", "$", ".", "@")):
            found.append(bare)
    return found


def _address(word: str) -> str:
    """An address as words: its host, each part of its path, its query as an option (the same
    path asked another way is the same question; another host, port or part is another)."""
    bare = word.strip("'\"")
    rest = bare.partition("://")[2] or bare
    host, slash, path = rest.partition("/")
    port = host.rpartition(":")[2]
    if not slash or ("://" not in bare and not port.isdigit()):
        return word
    path, _, query = path.partition("?")
    parts = [part for part in path.split("/") if part]
    return " ".join([host, *parts, *([f"-?{query}"] if query else [])])


def ways(st: Stuck) -> int:
    """How many ways the current run's answer was asked for."""
    return len(st.asked.ways) if st.asked is not None else 0
