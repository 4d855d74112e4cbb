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

from arcguard.core.state import remember


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.schema import Stuck

MAX_ANSWERS = 64  # looks' whole answers seen: enough for a loop's window, small in the state


def changed(st: Stuck, label: str) -> None:
    """A call that may have changed the world ran (mutates `st`): the next look checks it."""
    st.change = label


def looked(st: Stuck, answer: str, label: str) -> None:
    """A look answered `answer` (an `opkey.outcome`, the whole answer's digest; mutates `st`)."""
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
        st.futile_label = f"{st.change}, then {label}"
        st.futile_first = ""
    else:
        end(st)
        st.futile_first = answer
    st.change = ""


def end(st: Stuck) -> None:
    """Something moved: the run of changes that changed nothing is over (mutates `st`)."""
    st.futile, st.futile_nudged, st.change, st.futile_first = 0, False, "", ""
