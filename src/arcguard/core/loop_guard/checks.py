"""Changes that change nothing: a command meant to change the world, then a look that shows,
word for word, what it showed before.

A restart, then the same 502; a `sed -i`, then `grep` still showing the old line; a reinstall,
then the same listing. Each change is an attempt, and each look after it says the attempt did
nothing a look could see, however the change and the look were spelt. That is a failure
repeating, even when every command exits 0, so it is staged as failures are
(`error_checkin_repeats`, then `error_pause_repeats`), counted in changes.

Only the first look after a change counts, and only a look (a call that changes nothing) with
something to show; it answers as before when its whole answer, not only its shape, was seen
before, the values only a clock moves set aside (`answers`): a count that went from 100 to 200
moved, a log line's timestamp did not. A look whose answer is new ends the run, and
so does real progress (`stuck._progress`); the change before that new answer counts as the
first of the next run if the next change's look gives the same answer (a restart, then a 502
not seen before, then the same 502 after the next restart: two restarts that did nothing), as
a failure's first attempt counts. An edit is not one of these changes: what it changed
is on record, and the loop guard's other rules judge it. Pure functions; the counters live in
the track's `Stuck` record.
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import tool_effects as fx
from arcguard.core.state import remember


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.loop_records import Stuck

MAX_ANSWERS = 64  # looks' whole answers seen: enough for a loop's window, small in the state
# The words of a change command that name no target of their own: programs, verbs, filler.
GENERIC_WORDS = frozenset(
    "sudo env service services systemctl docker compose kubectl helm npm npx pnpm yarn pip pip3 "  # noqa: SIM905
    "uv poetry python python3 node make go cargo brew apt restart start stop reload up down run "
    "exec install reinstall uninstall apply build rebuild deploy redeploy rollout sync update "
    "upgrade create delete remove rm kill reset force recreate all then and sleep true echo cd "
    "sh bash pod pods deployment deployments svc add require".split()
)
MAX_NAMES = 8  # names kept of a change, its numbers' mark among them
# Programs whose numbers say how long or which process, not what a change is aimed at.
UNNAMING = shape.VALUE_PROGRAMS | {"kill", "pkill"}
NODE_DIGITS = 3  # a number this short in a name numbers a node or a replica (`app-04`, `db-2`)
TARGET = "@"  # marks a name the change and its look both gave (`Stuck.futile_names`)
NUMBER = "#"  # marks the numbers the change gave (`Stuck.futile_names`)
ID_DIGITS = 3
NAME_CHARS = 32
SEGMENT_ENDS = ("&&", "||", ";", "|")


def changed(st: Stuck, label: str, command: str = "") -> None:
    """A call that may have changed the world ran (mutates `st`): the next look checks it. A
    change that names other targets than the run's (`restart redis` after `restart nginx`)
    starts a run of its own: a status that reads alike for each service is no loop. So does
    one that no longer names the target the last change and its look both named (`TARGET`):
    a rollout's next step (`restart app-05` after `restart app-04`, `curl app-04/version`).
    So does one given other numbers than the last change (`_numbered`): a batch's next range
    (`where id >= 100000 and id < 200000` after `>= 0 and < 100000`), the next shard, with a
    health check after each that reads alike."""
    names, number = _names(command), _numbered(command)
    named = [name for name in st.futile_names if name[:1] != NUMBER]
    kept = [name.removeprefix(TARGET) for name in named]
    target = {bare for name, bare in zip(named, kept, strict=True) if name != bare}
    elsewhere = not _services(names) & _services(kept)
    before = st.futile_names[len(named) :]
    swept = bool(number and before) and before != [number]
    if (names and kept and (elsewhere or _swapped(target, names, kept))) or swept:
        end(st)
    if names or number:
        st.futile_names = names[: MAX_NAMES - bool(number)] + [number] * bool(number)
    st.change = label


def _numbered(command: str) -> str:
    """The numbers `command` gives, as one mark (`NUMBER` and their digest; "" for none): of
    `ID_DIGITS` digits or more (an id, a range's end: `touch restarted-2.flag`, `--try 2` only
    spell a retry their own way), and not an option's (`--lock-timeout=900s`: how long), a value
    set by name (`TIMEOUT=300`: a value tried), a wait's or a signal's (`sleep 300`, `kill
    4812`: which process, not what)."""
    found: list[str] = []
    for words in shape.runs(command, UNNAMING):
        for word in words[1:]:
            name, given, _ = word.partition("=")
            if word.startswith("-") or (
                given and name.replace("_", "a").replace("-", "a").isalnum()
            ):
                continue
            digits = "".join(c if c.isdigit() else " " for c in word).split()
            found += [n for n in digits if len(n) >= ID_DIGITS]
    return NUMBER + hashing.digest(" ".join(sorted(found))) if found else ""


def _names(command: str) -> list[str]:
    """The words of `command` that may name what it changes (`app` in `systemctl restart
    app.service`): not a segment's program, an option or its value (`-n prod`), a part with
    digits in it but a node's number (`_name`), nor one of `GENERIC_WORDS`."""
    found: list[str] = []
    tokens = command.split()
    for at, token in enumerate(tokens):
        before = tokens[at - 1] if at else ""
        if at == 0 or before.endswith(SEGMENT_ENDS) or before in fx.VALUED_OPTIONS:
            continue  # a program, or an option's value
        if token.startswith("-"):
            continue
        for word in "".join(c.lower() if c.isalnum() or c in "-_" else " " for c in token).split():
            name = _name(word)
            if len(name) > 1 and name not in GENERIC_WORDS and name[:NAME_CHARS] not in found:
                found.append(name[:NAME_CHARS])
                if len(found) == MAX_NAMES:
                    return found
    return found


def _service(name: str) -> str:
    """A name without its node's number: `redis-0` is a pod of `redis`."""
    return "-".join(part for part in name.split("-") if not part.isdigit())


def _services(names: list[str]) -> set[str]:
    return {_service(name) for name in names}


def _swapped(target: set[str], names: list[str], kept: list[str]) -> bool:
    """The change names something the last one did not, in place of part of its target (not
    only the target's service: `statefulset/redis` after `redis-0`)."""
    given = set(names)
    dropped = any(name not in given and _service(name) not in given for name in target)
    return dropped and not given <= set(kept)


def _name(word: str) -> str:
    """A word's name: `acme-api` and `acme-auth` are two services, so it keeps its dashes; a
    node's number stays with its name (`app-04`, `web1`), a hash does not
    (`api-6c8f7d9b4-k2x9p`)."""
    parts = [part for part in word.split("-") if part]
    named = [part for part in parts if not any(c.isdigit() for c in part) or _node(part)]
    return "-".join(
        p for p in parts if p in named or (named and p.isdigit() and len(p) <= NODE_DIGITS)
    )


def _node(part: str) -> bool:
    """Letters, then a number of at most `NODE_DIGITS` digits: a host's name (`web1`, `db12`)."""
    letters = part.rstrip("0123456789")
    return letters.isalpha() and len(part) - len(letters) <= NODE_DIGITS


def looked(st: Stuck, answer: str, label: str, command: str = "") -> None:
    """A look (`command`) answered `answer` (its whole answer's digest, `answers.digest`;
    mutates `st`). The names the change before it and the look both give are their target."""
    answers = st.answers
    st.answers = answers
    seen = answer in answers
    remember(answers, answer, MAX_ANSWERS)
    if not st.change:
        return
    looks = set(_names(command))
    target = [TARGET + name for name in st.futile_names if name in looks]
    if seen:
        # The change before a new answer was the first of this run if it got the same answer.
        first = st.futile == 0 and st.futile_first == answer
        st.futile += 2 if first else 1
        st.futile_label = label if label == st.change else f"{st.change}, then {label}"
        st.futile_first = ""
    else:
        end(st)
        st.futile_first = answer
    st.change = ""
    if target:
        st.futile_names = target + [n for n in st.futile_names if n[:1] == NUMBER]


def end(st: Stuck) -> None:
    """Something moved: the run of changes that changed nothing is over (mutates `st`)."""
    st.futile, st.futile_nudged, st.change, st.futile_first = 0, False, "", ""
    st.futile_names = []
