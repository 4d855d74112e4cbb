"""Edits that go back: a setting tried in turn.

An edit to a content a file never had is progress (`stuck`): what fails after it is other code
failing, and the runs of failures start again. But an edit that puts a line back in that an
earlier edit put in and a later one took out shows that the edits between moved nothing: the
session is trying values in turn (a toolchain at 17, then 21, then 17 again), and each failure
after them is one more attempt at the same thing. Suspects ruled out one at a time (a line
disabled, then put back as it was, then the next one) put no line in twice: each try answered
another question.

From the first edit after the last progress of another kind, a detour (`Detour`) notes which
lines small edits put in and took out (at most `MAX_TAKEN` lines each, as a setting changes: a
rewrite of a block takes out lines, such as `return total`, that any other rewrite may put
back), and keeps what the edits since the last untried value cleared: the runs of failures and
of changes that changed nothing (`checks`), added up. An edit that tries what no edit of the
detour tried (a line never put in or taken out, a rewrite, a Write) starts that count over: the
attempts before it were at other combinations. A small edit that steps back is no progress: it
brings back what the edits cleared, beside what came since. A second step back in the same file
marks it as going round: from then on edits to it clear nothing either, until one tries a value
not tried yet. A failure the same command prints otherwise than when the detour last saw it (a
count lower), or a new failure after a step back, shows the edits moved it: the detour ends. So
does progress of any other kind (a command's new answer, a poll's news, the user's words, other
code checked out). Pure functions of the track's `Stuck` record and the call.
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core.loop_guard import edited
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import taking_turns
from arcguard.core.loop_records import Detour
from arcguard.core.state import remember


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.loop_records import Stuck
    from arcguard.core.tool_call import ToolCall

MAX_LINES = 32  # lines the detour's edits put in, and lines they took out, as digests
MAX_FILES = 4  # files stepped back in, and files going round
MAX_RUNS = 16  # runs kept, as `stuck.MAX_RUNS`
MAX_TAKEN = edited.SETTING_LINES  # lines an edit may put in or take out, a setting's change
# A line shorter than this, or with no letter, is too common to say an edit went back (`}`,
# `end`, `]);`): it comes and goes with any rewrite.
LINE_CHARS = 8


def going_back(st: Stuck, call: ToolCall, *, new: bool) -> bool:
    """Whether the confirmed edit `call` goes back or edits a file going round: no progress,
    and a step back brings back what the detour's edits cleared. Otherwise an edit to a new
    content (`new`) is progress, and what it clears is kept first, unless it tries something
    untried (mutates `st`; the caller counts the runs again: `stuck._forget_quiet_runs`)."""
    detour = st.detour or Detour()
    path = hashing.digest(opkey.file_path(call))
    lines = _lines(call, path)
    taken, put = lines or (set(), set())
    small = lines is not None and len(taken) <= MAX_TAKEN and len(put) <= MAX_TAKEN
    back = small and any(line in detour.put and line in detour.undone for line in put)
    untried = not small or any(line not in detour.put and line not in detour.undone for line in put)
    if any(line in detour.undone for line in put):
        detour.restored = True
    if small:
        detour.put, detour.undone = _noted(detour.put, put), _noted(detour.undone, taken)
    if untried and not back and path in detour.files:
        _off_round(detour, path)  # a value not tried yet: work on the file, not round it
    if back:
        _stepped_back(detour, path)
        _bring_back(st, detour)
    elif new and path not in detour.files:
        _keep(st, detour, untried=untried)
    st.detour = detour
    return back or path in detour.files


def restored(st: Stuck) -> bool:
    """Whether an edit of the detour put back a line an earlier one took out: a suspect ruled
    out and put back, or a value tried before."""
    return st.detour is not None and st.detour.restored


def moved(st: Stuck, run: str, call: ToolCall, printed: list[str]) -> bool:
    """A failure counted in `run` while the detour goes on, `printed` its lines' digests. When
    the same command printed it otherwise than when last seen in it (times and ids aside:
    `edited.printed`, `edited.digests`), the edits moved it: what the detour kept of its run
    is dropped, and a detour that stepped back ends (True: the run it carried starts again)."""
    detour = st.detour
    if detour is None:
        return False
    seen = _print(opkey.operation_id(call), printed)
    before = detour.prints.get(run, "")
    _printed(detour, run, seen)
    same_command = before.partition(":")[0] == seen.partition(":")[0]
    if not same_command or before == seen:
        return False
    carried(st, run)
    if not detour.backs:
        return False
    st.detour = None
    return True


def news(st: Stuck, call: ToolCall, *, failed: bool) -> None:
    """A result the session had not seen: a command's answer, or a failure after a step back,
    shows the edits moved something, and ends the detour. A failure before any step back may
    be the other of two taking turns."""
    detour = st.detour
    if detour is not None and (detour.backs if failed else call.name == opkey.BASH):
        st.detour = None


def carried(st: Stuck, run: str) -> None:
    """A failure run went on, or moved: the detour no longer keeps it."""
    detour = st.detour
    if detour is not None and run in detour.runs:
        detour.runs = {k: n for k, n in detour.runs.items() if k != run}
        detour.marks = {k: n for k, n in detour.marks.items() if k != run}


def _print(command: str, lines: list[str]) -> str:
    """A failure as printed, with the command that printed it: `operation:digest`."""
    return f"{command}:{hashing.digest(' '.join(lines))}"


def _printed(detour: Detour, run: str, seen: str) -> None:
    prints = {k: v for k, v in detour.prints.items() if k != run}
    prints[run] = seen
    detour.prints = dict(list(prints.items())[-MAX_RUNS:])


def _off_round(detour: Detour, path: str) -> None:
    detour.files = [f for f in detour.files if f != path]
    detour.backs = [f for f in detour.backs if f != path]


def _stepped_back(detour: Detour, path: str) -> None:
    if path in detour.files:
        return
    if path in detour.backs:
        detour.files = [*detour.files, path][-MAX_FILES:]
    else:
        detour.backs = [*detour.backs, path][-MAX_FILES:]


def _noted(kept: list[str], lines: set[str]) -> list[str]:
    kept = list(kept)
    for line in sorted(lines):
        remember(kept, line, MAX_LINES)
    return kept


def _lines(call: ToolCall, path: str) -> tuple[set[str], set[str]] | None:
    """The lines an Edit or MultiEdit took out and those it put in, spaces aside (lines kept
    around the change are neither), as digests with the file's. None for a Write: only its
    whole content is known."""
    replaced = edited.replacements(call)
    if not replaced:
        return None
    taken: set[str] = set()
    put: set[str] = set()
    for old, new in replaced:
        before, after = _telling(old), _telling(new)
        taken |= before - after
        put |= after - before
    return {_key(path, line) for line in taken}, {_key(path, line) for line in put}


def _key(path: str, line: str) -> str:
    return hashing.digest(f"{path}\n{line}")


def _telling(text: str) -> set[str]:
    lines = (line.strip() for line in text.splitlines())
    return {line for line in lines if len(line) >= LINE_CHARS and any(c.isalpha() for c in line)}


def _keep(st: Stuck, detour: Detour, *, untried: bool) -> None:
    """A new edit is about to clear the runs: the failures' runs and the changes that changed
    nothing are added to what the detour keeps, with how the last failure printed. An edit
    that tries something no edit of the detour tried (`untried`) starts it over: the attempts
    before it were at other combinations."""
    if untried:
        detour.runs, detour.marks, detour.futile = {}, {}, 0
        return
    runs, marks = dict(detour.runs), dict(detour.marks)
    for key, count in st.runs.items():
        if key.startswith(opkey.FAILED):
            runs[key] = runs.pop(key, 0) + count
            marks[key] = st.marks.get(key, 0)
    _bounded(runs, marks)
    detour.runs, detour.marks = runs, marks
    for command, run in list(st.cause_ops.items())[-1:]:  # the last failure counted
        if run in runs and run not in detour.prints:
            _printed(detour, run, _print(command, st.fail_print))
    detour.futile += st.futile


def _bounded(runs: dict[str, int], marks: dict[str, int]) -> None:
    """The latest `MAX_RUNS` runs and their marks are kept (mutates both)."""
    for key in list(runs)[:-MAX_RUNS]:
        del runs[key]
        marks.pop(key, None)


def _taking_turns(st: Stuck, runs: dict[str, int], marks: dict[str, int]) -> None:
    """The two longest runs of failures of one check, brought back, took turns across the
    detour's edits (none of which counts as writing for them: `taking_turns`): their run
    together goes on from as many attempts as they could have taken in turns (mutates)."""
    failing = [(n, k) for k, n in runs.items() if k.startswith(opkey.FAILED)]
    alone = sorted((n, k) for n, k in failing if not taking_turns.members(k))[-2:]
    if len(alone) < 2 or not taking_turns.same_check(st, alone[0][1], alone[1][1]):
        return
    (fewer, first), (more, second) = alone
    pair = taking_turns.key(first, second)
    if pair not in runs:
        runs[pair] = min(fewer + more, 2 * fewer + 1)
        marks[pair] = max(marks.get(first, 0), marks.get(second, 0))


def _bring_back(st: Stuck, detour: Detour) -> None:
    """What the detour's edits cleared goes on with what came since: counts added, older runs
    first."""
    runs = {k: n for k, n in detour.runs.items() if k not in st.runs}
    marks = {k: detour.marks.get(k, 0) for k in runs}
    for key, count in st.runs.items():
        runs[key] = count + detour.runs.get(key, 0)
        marks[key] = max(st.marks.get(key, 0), detour.marks.get(key, 0))
    _taking_turns(st, runs, marks)
    _bounded(runs, marks)
    st.runs, st.marks = runs, marks
    st.futile += detour.futile
    detour.runs, detour.marks, detour.futile = {}, {}, 0
