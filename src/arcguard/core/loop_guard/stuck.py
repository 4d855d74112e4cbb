"""Staged rules on what results add: loops whose calls bring nothing new, however they are
spelt, and polls that wait for nothing.

Fed by every finished call (`observe`) and acted on when a turn's calls are done
(`loop_guard.stages`):

- Nothing new: a result whose shape (`loop_guard.shape`: volatile values set aside, the
  numbers that name the call's target kept, a failure read as its cause) the session has not
  seen is news. A result seen again extends its run, whichever call brought it and whatever
  one-off calls came between, until more than `GAP` new results arrived since its last
  sighting. A command's result that shows one of the last failures again (`failures.shown`)
  is that failure seen again, whatever its exit code (`recognise`). A failure's run is
  counted in attempts (parallel copies of one turn are one), at each target of a sweep apart
  (`failures.aimed`): `error_checkin_repeats` asks for a summary, `error_pause_repeats`
  pauses. Two failures of one check taking turns are counted together too
  (`taking_turns`). The repeat guard refusing the command that failed so is one more attempt
  (`refused`). Completed calls' runs are counted together, in repeats (a first sighting is none):
  `shape_checkin_repeats`, then `shape_pause_repeats`.
  Real progress starts every run again: a confirmed edit that leaves a file content it never
  had (unless the next failure only quotes it: `loop_guard.edited`), or the user's words
  (`heard`). A call that may have changed the world, whose result is
  new or not itself the one repeating, starts every run but a failure's and a run of changes
  that changed nothing: whatever it did or printed (a reinstall, a restart, `alembic heads`,
  which may only look), the attempt after it that fails word for word as before shows it moved
  nothing the failure depends on. A failed call changes nothing a retry could see, so it is
  never progress. A restart checked by a look at the end of the same command is judged by
  that look (`checked`).
- Changes that change nothing: a command that may change the world, then a look answering
  word for word as before, is an attempt that failed, staged as failures are
  (`loop_guard.checks`); so is a look's state asked for again in other words (`asked`).
- Searches that find nothing: told nothing, so they join no run above; they are counted in a
  run of their own, staged the same way (`loop_guard.searches`), sooner when one of them
  cannot match as spelt.
- Polls: a call that waits (`tool_effects.is_poll`; not one that also acts and fails: a
  failed attempt) is never denied for repeating, but bounded by wall time: a request at
  `poll_checkin_seconds` of the same results, a pause at `poll_pause_seconds` (`polls`: one
  wait, however spelt). A new result is progress, unless it is a failure (a wait timing out)
  or shows only lines the wait showed (a failing state in a table's row reads as any other:
  `failing_states`); a wait that prints nothing told nothing. A wait on a failure (a poll
  failing as a failure did: `polls.failed_before`) is timed from that failure's first
  sighting and asked about sooner (`stages.FAILING_WAIT`); a change does not end it: its
  next poll tells.
"""

from __future__ import annotations

from arcguard.core.loop_guard import answers
from arcguard.core.loop_guard import asked
from arcguard.core.loop_guard import checks
from arcguard.core.loop_guard import edited
from arcguard.core.loop_guard import failures
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import polls
from arcguard.core.loop_guard import reread
from arcguard.core.loop_guard import reverts
from arcguard.core.loop_guard import searches
from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import taking_turns
from arcguard.core.loop_guard import tool_effects
from arcguard.core.loop_records import Poll
from arcguard.core.state import remember
from arcguard.core.tool_call import ToolResult
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.loop_records import Stuck
    from arcguard.core.schema import Track
    from arcguard.core.tool_call import ToolCall

NEW = "new"  # a confirmed edit to a content the file never had
REVISIT = "revisit"  # a confirmed edit back to a content it had before
MAX_SHAPES = 128  # results seen: enough for a loop's window, small in the state file
MAX_RUNS = 16  # results being counted at once
# New results that may come between two sightings of one result while it still counts as a
# run: a one-off look elsewhere does not end a loop, a stretch of new findings does.
GAP = 3
LABEL_CHARS = 60
UNCOMPARED = (opkey.UNKNOWN, opkey.NOT_RUN, opkey.TIMED_OUT)  # outcomes with no result to compare


def _stuck(track: Track) -> Stuck:
    st = track.stuck
    track.stuck = st  # kept in the track from now on, when it was not there yet
    return st


def _progress(st: Stuck, *, failures: bool = True, edit: bool = False, wait: bool = True) -> None:
    """Real progress: every run of results seen again starts over. With `failures` false (a
    change's own output), every run but a failure's and a run of changes that changed nothing:
    the next attempt, or the look after the change, tells whether it moved them. Full progress
    but an edit's ends the edits' detour (`reverts`); `wait` false keeps the wait (`polls`)."""
    if failures and not edit and st.detour is not None:
        st.detour = None
    if failures:
        st.runs, st.marks = {}, {}
        st.fails, st.fail_nudged = 0, False
        asked.end(st)
        reread.end(st)
        checks.end(st)
    else:
        st.runs = {r: n for r, n in st.runs.items() if r.startswith(opkey.FAILED)}
        st.marks = {r: n for r, n in st.marks.items() if r in st.runs}
    st.repeats, st.nudged = 0, False
    if wait:
        st.poll, st.poll_nudged = None, False
    searches.end(st)


def heard(track: Track) -> None:
    """The user spoke through a call's result: every count and expectation starts again."""
    st = _stuck(track)
    _progress(st)
    st.failed_answers = {}  # what failed before may be what the user asked for now
    _end_edited(st)
    st.persist, st.expected = None, ""


@value
class Finished:
    """What the repeat guard made of one finished call."""

    outcome: str  # as `opkey.outcome` words it, of how it ended (`exit_status`)
    result: str  # its `shape.result_shape`
    empty: bool = False  # a completed call that printed nothing (`opkey.is_empty_result`)
    edit: str | None = None  # NEW or REVISIT: a confirmed edit, and to which content
    changed: bool = False  # it ran and may have changed the world
    cleared: bool = False  # ... only by clearing a cache (`caches`)
    found: bool | None = None  # a search: whether it found anything (`searches.found`)
    pairs: dict[str, str] | None = None  # a failure's `shape.cause_pairs`, read once
    printed: list[str] | None = None  # a failure's lines as printed (`edited.printed`)
    resumed: bool = False  # it is the failure an edit set aside, which the edit did not move
    progress: str = ""  # a poll's marks of progress (`answers.progress`)
    numbers: str = ""  # a poll's bare numbers (`answers.bare_numbers`)
    pieces: list[str] | None = None  # the causes its lines give (`failures.cause_pieces`)
    moved: bool = False  # it put other code in the working tree (`git checkout`)
    wrote: bool = False  # it wrote files from the shell (`shell_writes.edits_files`)
    answer: str = ""  # a look's whole answer, or a checked change's last line (`answers`)
    checked: str = ""  # a restart checked by a closing look (`tool_effects.checked_restart`)
    said: str = ""  # the states or values a look answered with (`asked.said`)
    quiet: bool = False  # a filter hid its status, and what it let through said neither way
    lines: list[str] | None = None  # a poll's lines (`answers.lines`)
    failing: bool = False  # a poll's answer shows a failing state (`failing_states`)


def checked(finished: Finished, call: ToolCall, result: ToolResult, restart: str) -> None:
    """A `restart` checked by a look at the end of the same command (`docker compose up -d &&
    curl -s .../version`: `tool_effects.checked_restart`) is judged by its look, as a restart
    and the look after it are: what the look printed last (`answers.closing_line`) is its
    answer (`checks`) and its result, whatever the restart printed beside it (mutates
    `finished`)."""
    finished.checked = restart
    line = answers.closing_line(result)
    if line:
        finished.answer = answers.digest(opkey.COMPLETED, line)
        finished.result = shape.result_shape(finished.outcome, ToolResult(response=line), call)


def recognise(track: Track, call: ToolCall, result: ToolResult, finished: Finished) -> None:
    """A command's result that shows a recent failure again (`failures.shown`), whatever else
    it prints and however it exits (`go build ./... 2>&1 | tail` exits with the filter's code),
    is that failure seen again: `finished` takes its shape (mutates `finished`). So is one
    that prints what the failure an edit set aside printed, but for quoting the edit."""
    st = track.stuck if track.has("stuck") else None
    if st is None or not st.causes or finished.empty:
        return
    resumed = _set_aside_again(st, track.turns, finished)
    if resumed is not None:
        finished.result, finished.resumed = resumed, True
        return
    if finished.result in st.causes:
        return
    joined = st.cause_joined.get(finished.result)
    if joined in st.causes:
        finished.result = joined
        return
    if call.name != opkey.BASH or finished.found is not None or polls.looked(call, finished):
        return  # a search's or a poll's result is judged by their own rules
    if not finished.outcome.startswith((opkey.FAILED, opkey.COMPLETED)):
        return
    pairs = finished.pairs if finished.pairs is not None else shape.cause_pairs(result, call)
    if finished.pieces is None:
        finished.pieces = failures.cause_pieces(shape.learned_text(result, call), call)
    failed = finished.outcome.startswith(opkey.FAILED)
    shown = failures.shown(st, track.turns, call, pairs, finished.pieces, failed=failed)
    if shown:
        # Two failures it shows were one seen two ways (`-vv` and not): it counts where the
        # longer run of attempts is, not where the latest began.
        own = finished.result
        finished.result = max(shown, key=lambda f: _run_of(st, failures.aimed(st, f, call)))
        if failed:
            failures.join(st, own, finished.result)


def _set_aside_again(st: Stuck, turn: int, finished: Finished) -> str | None:
    """The failure an edit set aside (its shape), when the failing result is that failure again
    (`edited.unmoved`) while it is recent: at most `GAP` new results since, and seen within
    `failures.FAIL_MEMORY_TURNS`."""
    if not st.edited or finished.printed is None or st.news - st.edited_news > GAP:
        return None
    failure = st.edited.partition(failures.AT)[0]
    seen = st.cause_turns.get(failure)
    recent = seen is not None and turn - seen <= failures.FAIL_MEMORY_TURNS
    return failure if recent and edited.unmoved(st, finished.printed) else None


def observe(track: Track, now: float, call: ToolCall, finished: Finished) -> None:
    """Count one finished call (mutates `track`)."""
    st = _stuck(track)
    outcome, result = finished.outcome, finished.result
    back = bool(finished.edit) and reverts.going_back(st, call, new=finished.edit == NEW)
    if back:
        _forget_quiet_runs(st)  # the runs the detour's edits cleared go on
    if finished.edit or finished.wrote:
        st.wrote_turn = st.changed_turn = track.turns
    elif _acted(st, finished):
        st.changed_turn = track.turns
    if _other_code(st, call, finished, back=back):
        return
    poll = polls.looked(call, finished)
    if finished.found is not None and not poll:  # a wait for a line to show is timed instead
        searches.observe(st, track.seq, call, finished.found)
    if back or finished.edit == REVISIT or outcome in UNCOMPARED:
        return  # back to a known content or going back, or no result to compare: neither way
    label, command = opkey.label(call, LABEL_CHARS), tool_effects.command_of(call) or ""
    if outcome.startswith(opkey.COMPLETED):
        if finished.changed:
            # A restart checked in the same command names its targets before its look.
            checks.changed(st, label, finished.checked or command)
            if finished.answer:  # its own look, in the same command
                checks.looked(st, finished.answer, label, command)
        elif not finished.empty and not poll:  # a look with something to show
            checks.looked(st, finished.answer or outcome, label, command)
    if finished.empty and not poll:
        return  # it told nothing (a wait that prints nothing still waited, though)
    results = st.results
    st.results = results
    fresh = result not in results
    remember(results, result, MAX_SHAPES)
    if poll:
        _observe_poll(st, polls.answered(call, finished, now, label), finished, fresh=fresh)
        return
    if fresh:
        st.news += 1
        _forget_quiet_runs(st)
        reverts.news(st, call, failed=result.startswith(opkey.FAILED))
    if result.startswith(opkey.FAILED):
        polls.failed_before(st, finished.lines or [], now)
        _observe_failure(st, track.turns, call, finished, label)
        return
    if st.edited and call.name == opkey.BASH:
        _end_edited(st)  # a command answered (a test that passes): the failure is behind
    if finished.changed and (fresh or not _active(st, result)):
        # It may have changed the world, and it is not itself the run that repeats; a failure
        # that comes back word for word after it says whether it moved that failure.
        _progress(st, failures=False, wait=not polls.changed(st))
        return
    _count(st, failures.swept(st, result, call), label)


def _observe_poll(st: Stuck, seen: Poll, finished: Finished, *, fresh: bool) -> None:
    """A poll answered (`fresh`: a result this session had not seen). One that printed
    nothing told nothing: only an answer that changed is progress, and not a failure's
    (`rollout status` timing out): that is news, as any new result."""
    news = fresh and not finished.empty
    shown = polls.shown(st.poll, seen)
    failed = finished.outcome.startswith(opkey.FAILED)
    if news and not failed:
        _progress(st, wait=not shown)  # what it waited for moved, unless it showed old lines
        if not (shown or finished.failing):
            st.failed_answers = {}  # ... and the failures before it are behind it
        _end_edited(st)
    polls.wait(st, seen, failed=failed, shown=shown)
    if news and failed:
        st.news += 1
        _forget_quiet_runs(st)


def _other_code(st: Stuck, call: ToolCall, finished: Finished, *, back: bool) -> bool:
    """An edit to a new content or a checkout: other code, so a failure seen again after it is
    news (a bisect's next bad commit), unless an edit only changed what the failure quotes
    (`_set_aside`) or went back (`back`). True when it was progress."""
    if finished.edit:
        _set_aside(st, call)
    if (finished.edit != NEW or back) and not finished.moved:
        return False
    # An edit's set-aside failure run stays (`_set_aside`), and so does its detour.
    _progress(st, edit=bool(finished.edit) and not finished.moved)
    st.failed_answers = {}  # other code may fail alike for other reasons
    if finished.moved:
        _end_edited(st)
    return True


def _observe_failure(st: Stuck, turn: int, call: ToolCall, finished: Finished, label: str) -> None:
    # Parallel calls of one turn failing alike are one attempt, not several, whatever failed
    # between them.
    result = finished.result
    last_seen = st.cause_turns.get(result)
    again = last_seen == turn
    back = "" if again else taking_turns.back_after(st, result, turn)
    lines = list(finished.pairs or ())[-shape.MAX_CAUSE_LINES :]
    failures.remember(st, result, call, lines, finished.pieces or [], turn)
    st.fail, st.fail_turn = result, turn
    if again:
        return
    key = failures.aimed(st, result, call)
    printed = edited.digests(finished.printed or [])
    if reverts.moved(st, key, call, printed):
        st.runs = {k: n for k, n in st.runs.items() if k != key}  # the edits moved it after all
    _count_turns(st, key, back, last_seen, turn, label)
    failures.counted_in(st, opkey.operation_id(call), key)
    if finished.resumed and key == st.edited:
        # The edits moved nothing the failure shows: its run goes on where it was.
        st.runs = {**st.runs, key: st.edited_run}
        st.marks = {**st.marks, key: st.news}
        reverts.carried(st, key)
        st.fail_nudged = st.fail_nudged or st.edited_nudged
    elif key != st.edited:
        _end_edited(st)  # another failure: the edits in its run start now
    _count(st, key, label)
    st.fail_print = printed
    if st.knob_file and not finished.resumed:
        st.knob_file = ""  # a run counted afresh: its knobs may be in another file
    if st.edited:  # counted: set aside again by the next edit (its swaps stay for the run)
        edited.clear_set_aside(st)


def _count_turns(
    st: Stuck, failure: str, back: str, last_seen: int | None, turn: int, label: str
) -> None:
    """Count the attempt in the runs of failures taking turns it belongs to when it took its
    turn: the other failed since it was `last_seen`, in an earlier turn (not beside it in this
    one). Start a run when it comes back after another (`back`) still in a run, from
    twice the shorter of their runs: a failure standing through others seen once each pairs
    with each, and none of those pairs goes on unless both keep coming back (mutates `st`)."""
    for run in [r for r in st.runs if failure in taking_turns.members(r) and _active(st, r)]:
        other = next(m for m in taking_turns.members(run) if m != failure)
        theirs = st.cause_turns.get(other)
        if last_seen is not None and theirs is not None and last_seen < theirs < turn:
            _count(st, run, label)
    pair = taking_turns.key(failure, back) if back and _active(st, back) else ""
    if pair and not _active(st, pair):
        shorter = min(max(_run_of(st, failure), 1), max(_run_of(st, back), 1))
        st.runs = {**st.runs, pair: 2 * shorter}
        st.marks = {**st.marks, pair: st.news}
        _count(st, pair, label)


def _set_aside(st: Stuck, call: ToolCall) -> None:
    """An edit: the last failure's run is set aside with what the edits since it changed,
    for the next failure to go on with if they did not move it (`edited.unmoved`)."""
    if not st.edited:
        failure, run = _last_failure(st)
        if not failure:
            return
        st.edited, st.edited_run, st.edited_nudged = failure, run, st.fail_nudged
        st.edited_news = st.news
    edited.note_edit(st, call, restored=reverts.restored(st))


def _end_edited(st: Stuck) -> None:
    # Written only when set: a state without an edit set aside stays as it was.
    if st.edited or st.edited_run or st.edited_nudged:
        edited.clear_set_aside(st)
    if st.edit_swaps or st.knob_file:
        st.edit_swaps, st.knob_file = [], ""


def _last_failure(st: Stuck) -> tuple[str, int]:
    """The run of the last failure counted, if it is going on."""
    failing = [r for r in st.runs if r.startswith(opkey.FAILED)]
    last = failing[-1] if failing else ""
    return (last, st.runs[last]) if last and _active(st, last) else ("", 0)


def _acted(st: Stuck, finished: Finished) -> bool:
    """A change that ran and answered something new (`pip install requests`): what fails
    after it may differ because of it. One that answers as before (`prettier --write`:
    "unchanged") did nothing a failure could show, and one that prints nothing cannot tell."""
    if not finished.changed or not finished.outcome.startswith(opkey.COMPLETED):
        return False
    return not finished.empty and finished.result not in st.results


def _run_of(st: Stuck, result: str) -> int:
    return st.runs.get(result, 0) if _active(st, result) else 0


def _active(st: Stuck, result: str) -> bool:
    """The result is in a run: seen again with at most `GAP` new results in between."""
    mark = st.marks.get(result)
    return mark is not None and st.news - mark <= GAP


def _count(st: Stuck, result: str, label: str) -> None:
    runs, marks = st.runs, st.marks
    st.runs, st.marks = runs, marks
    count = runs.get(result, 0) + 1 if _active(st, result) else 1
    runs.pop(result, None)
    runs[result] = count
    marks.pop(result, None)
    marks[result] = st.news
    for old in list(runs)[:-MAX_RUNS]:
        del runs[old]
        marks.pop(old, None)
    kind = opkey.FAILED if result.startswith(opkey.FAILED) else ""
    top = max((n for r, n in runs.items() if r.startswith(opkey.FAILED) == bool(kind)), default=0)
    if count >= top:
        st.label = label
    if kind:
        st.fails = top
    else:
        st.repeats = _repeats(st)


def _repeats(st: Stuck) -> int:
    """Completed calls whose results were all seen before, over every run going on: answers
    that alternate (the same links in two orders, two states of one probe) bring nothing new
    either. The first sighting of each is not a repeat."""
    return sum(n - 1 for r, n in st.runs.items() if not r.startswith(opkey.FAILED))


def _forget_quiet_runs(st: Stuck) -> None:
    """New results arrived: a run they have left behind is over. When the longest run of
    failures is, the request made about it was too: a failure still counting gets its own."""
    runs, marks = st.runs, st.marks
    for result in [r for r in runs if not _active(st, r)]:
        del runs[result]
        marks.pop(result, None)
    longest = st.fails
    st.fails = max((n for r, n in runs.items() if r.startswith(opkey.FAILED)), default=0)
    st.repeats = _repeats(st)
    if not st.fails or st.fails < longest:
        st.fail_nudged = False
    if not st.repeats:
        st.nudged = False


def refused(track: Track, call: ToolCall) -> None:
    """The repeat guard refused `call`, whose last run failed: the model tried that attempt
    once more, so the failure run it was counted in counts it too, once a turn (mutates
    `track`). Attempts the guard refuses still move the run toward its pause."""
    st = track.stuck if track.has("stuck") else None
    key = st.cause_ops.get(opkey.operation_id(call)) if st is not None else None
    if st is None or not key or st.fail_turn == track.turns or not _active(st, key):
        return
    st.fail_turn = track.turns
    _count(st, key, opkey.label(call, LABEL_CHARS))
