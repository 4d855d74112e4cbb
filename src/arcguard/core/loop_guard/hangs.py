"""A command that seemed to hang, then finished well.

The harness moves a command that outlives its timeout to the background, and the loop guard
counts that as a failure of the command (`exit_status.hung`): a command that hangs every time
it is tried is a loop. But a slow command (a benchmark, a commit whose checks take minutes)
is moved the same way, and then finishes in the background; the harness says so in a task
notification (`<status>completed</status>`) or, on releases that lend one, in a status tool's
report. That attempt did not fail, so it no longer counts: the failure run it was counted in
(`Stuck.hung` keeps which, under the task's id) loses it, and the failures kept since the
last change to code (`persisting`) start again, as they do when the program that failed
completes.

Only that run: a task completing is no news for any other run (a rebuild in the background
that completes, followed by the same test failure as before, moved nothing the failure shows).
Pure.
"""

from __future__ import annotations

from arcguard.core.loop_guard import opkey
from arcguard.core.schema import StateFile


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.loop_records import Stuck
    from arcguard.core.state import State

MAX_HUNG = 8  # tasks kept: the hangs of a loop's last few attempts
COMPLETED = "<status>completed</status>"  # a notification of a task that ended well
AT_COUNT = " "  # between a hang's run and the run's count when it was counted


def note(st: Stuck, task: str, run: str) -> None:
    """The harness moved a command to the background as task `task` (a short id), and its
    hang was counted in failure run `run`, now at its count (mutates `st`)."""
    hung = st.hung
    hung.pop(task, None)
    hung[task] = f"{run}{AT_COUNT}{st.runs.get(run, 0)}"
    for old in list(hung)[:-MAX_HUNG]:
        del hung[old]
    st.hung = hung


def completed(state: State, tasks: list[str]) -> None:
    """The tasks named (short ids) completed well: each one's hang is no failure (mutates
    `state`)."""
    for track in StateFile.view(state).guard.tracks.values():
        if not track.has("stuck"):
            continue
        st = track.stuck
        hung = st.hung
        hangs = [hung.pop(task) for task in tasks if task in hung]
        for hang in hangs:
            _retire(st, hang)
        if hangs:
            st.hung = hung


def _retire(st: Stuck, hang: str) -> None:
    """One attempt of the failure run a hang was counted in did not fail after all (mutates
    `st`). Not when the run has fewer attempts now than it had then: it started over since (an
    edit), and this attempt is no longer in it; or a parallel copy of the attempt, counted
    with it as one, was retired already."""
    run, _, then = hang.rpartition(AT_COUNT)
    runs, marks = st.runs, st.marks
    if runs.get(run, 0) < (int(then) if then.isdigit() else 0):
        return
    count = runs.get(run, 0) - 1
    if count > 0:
        runs[run] = count
    elif run in runs:
        del runs[run]
        marks.pop(run, None)
    st.runs, st.marks = runs, marks
    st.fails = max((n for r, n in runs.items() if r.startswith(opkey.FAILED)), default=0)
    if st.persist is not None and run in st.persist.failures:
        st.persist = None
