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

from arcguard.core.loop_guard import tool_effects as fx
from arcguard.core.state import remember


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.schema import Stuck

MAX_ANSWERS = 64  # looks' whole answers seen: enough for a loop's window, small in the state
# The words of a change command that name no target of their own: programs, verbs, filler.
GENERIC_WORDS = frozenset(
    "sudo env service services systemctl docker compose kubectl helm npm npx pnpm yarn pip pip3 "  # noqa: SIM905
    "uv poetry python python3 node make go cargo brew apt restart start stop reload up down run "
    "exec install reinstall uninstall apply build rebuild deploy redeploy rollout sync update "
    "upgrade create delete remove rm kill reset force recreate all then and sleep true echo cd "
    "sh bash pod pods deployment deployments svc add require".split()
)
MAX_NAMES = 8
NAME_CHARS = 32
SEGMENT_ENDS = ("&&", "||", ";", "|")


def changed(st: Stuck, label: str, command: str = "") -> None:
    """A call that may have changed the world ran (mutates `st`): the next look checks it. A
    change that names other targets than the run's (`restart redis` after `restart nginx`)
    starts a run of its own: a status that reads alike for each service is no loop."""
    names = _names(command)
    if names and st.futile_names and not set(names) & set(st.futile_names):
        end(st)
    if names:
        st.futile_names = names
    st.change = label


def _names(command: str) -> list[str]:
    """The words of `command` that may name what it changes (`app` in `systemctl restart
    app.service`): not a segment's program, an option or its value (`-n prod`), a part with
    digits in it (`api-6c8f7d9b4-k2x9p` is `api`), nor one of `GENERIC_WORDS`."""
    found: list[str] = []
    tokens = command.split()
    for at, token in enumerate(tokens):
        before = tokens[at - 1] if at else ""
        if at == 0 or before.endswith(SEGMENT_ENDS) or before in fx.VALUED_OPTIONS:
            continue  # a program, or an option's value
        if token.startswith("-"):
            continue
        for word in "".join(c.lower() if c.isalnum() or c in "-_" else " " for c in token).split():
            # `acme-api` and `acme-auth` are two services: a name keeps its dashes.
            name = "-".join(p for p in word.split("-") if p and not any(c.isdigit() for c in p))
            if len(name) > 1 and name not in GENERIC_WORDS and name[:NAME_CHARS] not in found:
                found.append(name[:NAME_CHARS])
                if len(found) == MAX_NAMES:
                    return found
    return found


def looked(st: Stuck, answer: str, label: str) -> None:
    """A look answered `answer` (its whole answer's digest, `answers.digest`; mutates `st`)."""
    answers = st.answers
    st.answers = answers
    seen = answer in answers
    remember(answers, answer, MAX_ANSWERS)
    if not st.change:
        return
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


def end(st: Stuck) -> None:
    """Something moved: the run of changes that changed nothing is over (mutates `st`)."""
    st.futile, st.futile_nudged, st.change, st.futile_first = 0, False, "", ""
    st.futile_names = []
