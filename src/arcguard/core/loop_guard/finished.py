"""What a finished call proves: its result settles the execution the repeat guard reserved
(`repeat`), tells whether the call made progress, and feeds the staged rules (`stuck`).

A confirmed edit leaving a file a content it never had, a change whose answer is new, a result
of a shape the track never saw, or the user's words are progress; a duplicate result, or one for
a call that was denied (it never ran), changes nothing.
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core.loop_guard import answers
from arcguard.core.loop_guard import asked
from arcguard.core.loop_guard import background
from arcguard.core.loop_guard import caches
from arcguard.core.loop_guard import edited
from arcguard.core.loop_guard import exit_status
from arcguard.core.loop_guard import failing_states
from arcguard.core.loop_guard import failure_lines
from arcguard.core.loop_guard import failures
from arcguard.core.loop_guard import hangs
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import persisting
from arcguard.core.loop_guard import polls
from arcguard.core.loop_guard import repeat
from arcguard.core.loop_guard import reread
from arcguard.core.loop_guard import searches
from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import shell_writes
from arcguard.core.loop_guard import stuck
from arcguard.core.loop_guard import tool_effects
from arcguard.core.loop_guard import unheeded
from arcguard.core.loop_guard.tracks import get_track
from arcguard.core.loop_guard.tracks import is_allowed
from arcguard.core.loop_guard.tracks import paused_output
from arcguard.core.loop_guard.tracks import track_key
from arcguard.core.schema import StateFile
from arcguard.core.state import clone
from arcguard.core.state import remember
from arcguard.core.state import short_id
from arcguard.core.tool_call import ToolResult


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.loop_records import Stuck
    from arcguard.core.render import Decisions
    from arcguard.core.schema import Guard
    from arcguard.core.schema import Operation
    from arcguard.core.schema import Run
    from arcguard.core.schema import Track
    from arcguard.core.state import State
    from arcguard.core.tool_call import ToolCall

NOTEBOOK_EDIT = "NotebookEdit"  # its response shows no patch: a completed one counts as an edit
MAX_RESULTS = 400
MAX_FILES = 32  # files whose recent contents are kept
MAX_FILE_CONTENTS = 8  # contents kept per file


def decide_post_tool(
    state: State, cfg: Config, now: float, call: ToolCall, result: ToolResult
) -> tuple[Decisions | None, State]:
    call = repeat.kept(call)
    state = clone(state)
    guard = StateFile.view(state).guard
    track = _track_to_count(state, now, call)
    if track is None:
        return paused_output(state, deny=False), state
    ran = searches.as_answered(call, result)  # as told; the staged rules read how it ended
    result = exit_status.as_reported(call, ran)
    finished = _finish(guard, call, result)
    stuck.recognise(track, call, result, finished)
    # The user's words (a reason for a refusal, an answer) are news whatever the call was.
    heard = opkey.carries_user_words(call.name, result)
    # A change that answers as it did before (`prettier --write`: "unchanged", a failure seen
    # before) shows nothing moved; one that prints nothing cannot tell, so it counts.
    seen = finished.result in track.results
    answered_before = seen and not finished.empty
    if finished.moved and not seen:
        # Code the session has not had in the working tree (a bisect's next commit): the same
        # calls over it again are no lap of a cycle.
        track.fingerprints, track.fresh = [], []
    progress = heard or finished.edit == stuck.NEW or (finished.changed and not answered_before)
    ended = background.observe_result(state, now, call, ran)  # a task it says completed
    op = track.ops.get(opkey.operation_id(call))
    run = _owned_run(op, call.id)
    if op is not None and run is not None:
        # As the harness reported it; most results are read as reported, outcome and all.
        run.outcome = finished.outcome if result is ran else opkey.outcome(call, ran)
        if finished.wrote and shell_writes.flips(call):
            op.edit_seq = guard.edit_seq  # its own swap of the tree is none since it ran
        completed = finished.outcome.startswith(opkey.COMPLETED)
        progress = progress or (completed and run.spent is not None)
    # Fresh evidence is a result of a shape this track never saw: a new timestamp or counter
    # in the same output is not news.
    if finished.outcome not in (opkey.UNKNOWN, opkey.NOT_RUN) and not seen and not finished.empty:
        progress = True
        track.turn.new_result = True
        remember(track.results, finished.result, MAX_RESULTS)
    if progress:
        track.turn.progress = True
    if ended is not None:
        hangs.completed(state, [ended])
    if heard:
        stuck.heard(track)
        unheeded.end(track.stuck)
    elif not (
        ended is not None
        or is_allowed(cfg, call)
        or call.name in opkey.USER_TOOLS
        or background.patient(state, cfg, now, call)
    ):
        _watch(track, call, finished, news=not seen)
        stuck.observe(track, now, call, finished)
        persisting.observe(track.stuck, track.seq, track.turns, call, finished)
        _asked(track, call, result, finished, news=not seen, now=now)
        _reread(track, call, result, finished)
        _hung(track.stuck, call, ran, finished)
    return paused_output(state, deny=False), state


def _watch(track: Track, call: ToolCall, finished: stuck.Finished, *, news: bool) -> None:
    """The turns after a request (`unheeded`): a write is the change it asked for; a result
    the track had not seen (`news`) is news. A change that ran to its end is judged by the look
    after it, as `stuck` judges it (unless it looked itself); a wait (a poll, a look at a
    background task), by its time; the model's own notes, never."""
    st = track.stuck
    if st.unheeded is None or finished.outcome in stuck.UNCOMPARED:
        return
    if finished.edit or finished.wrote:
        unheeded.end(st)
        return
    completed = finished.outcome.startswith(opkey.COMPLETED)
    if finished.changed and completed and not finished.checked:
        return
    if call.name in tool_effects.STATUS_TOOLS or call.name in unheeded.BOOKKEEPING:
        return
    if polls.looked(call, finished):
        return
    label = opkey.label(call, stuck.LABEL_CHARS)
    failed = finished.outcome.startswith(opkey.FAILED)
    unheeded.observe(st, label, news=news and not finished.empty, failed=failed)


def _track_to_count(state: State, now: float, call: ToolCall) -> Track | None:
    """The track whose counters `call`'s result feeds; None for a result that changes nothing:
    a duplicate, or one for a call arcguard denied (it did not come from the live session,
    where the call never ran)."""
    guard = StateFile.view(state).guard
    resolved = guard.resolved
    guard.resolved = resolved
    if call.id and call.id in resolved:
        return None
    if call.id:
        remember(resolved, call.id, repeat.MAX_RESOLVED_IDS)
    track = get_track(state, track_key(call.agent), now)
    return None if call.id and call.id in track.denied_ids else track


def _hung(st: Stuck, call: ToolCall, ran: ToolResult, finished: stuck.Finished) -> None:
    """A command the harness moved to the background at its timeout: which failure run its
    hang counted in, kept under the task it became, in case that task completes (`hangs`)."""
    if not exit_status.moved_to_background(call, ran):
        return
    task = background.launched_by(ran.response, call.id, call.name)
    run = failures.aimed(st, finished.result, call)
    if task is not None and run in st.runs:
        hangs.note(st, short_id(task), run)


def _asked(
    track: Track,
    call: ToolCall,
    result: ToolResult,
    finished: stuck.Finished,
    *,
    news: bool,
    now: float,
) -> None:
    """A look's states or values counted under its spelling (`asked`); a change ends their
    run, and any other new result comes between. What a change or an edit set is expected."""
    st = track.stuck
    changed = _moved(finished)
    if finished.edit:
        replaced = edited.replacements(call)
        asked.expect(st, "\n".join(new for _, new in replaced), "\n".join(o for o, _ in replaced))
    elif changed:  # and what it reported (a reindex's `"total": 184320`)
        asked.expect(st, f"{tool_effects.command_of(call) or ''}\n{shape.result_text(result)}")
    if changed:
        asked.end(st)
    # A longer print seen before tells nothing: it neither counts nor comes between.
    elif finished.said and (news or not finished.said.startswith(asked.SHOWN)):
        way, label = hashing.digest(shape.call_shape(call)), opkey.label(call, stuck.LABEL_CHARS)
        asking = asked.targets(tool_effects.command_of(call) or "", shape.identity_numbers(call))
        asked.waited(st, now)
        asked.observe(st, finished.said, way, asking, track.turns, label)
        if st.asked is not None and st.asked.turn == track.turns:
            st.asked.at = now  # counted now (or started now)
    elif news and not finished.empty:
        asked.other(st)


def _reread(track: Track, call: ToolCall, result: ToolResult, finished: stuck.Finished) -> None:
    """A look's failing lines, counted as one more reading of a failure (`reread`); a change or
    an edit ends their run."""
    st = track.stuck
    if finished.edit or _moved(finished):
        reread.end(st)
    elif finished.outcome.startswith(opkey.COMPLETED) and not tool_effects.is_poll(call):
        seen = reread.shown(result)
        if not seen.failing:
            reread.aside(st)
            return
        at = reread.look(call, track.turns, opkey.label(call, stuck.LABEL_CHARS))
        reread.observe(st, seen, at)


def _moved(finished: stuck.Finished) -> bool:
    """The call may have changed what a look answers: a change, but for a cache cleared, after
    which a look asks its question again (`caches`)."""
    return finished.changed and not finished.cleared


def _finish(guard: Guard, call: ToolCall, result: ToolResult) -> stuck.Finished:
    """What the finished call proves (mutates the guard's edit and change counters)."""
    outcome = opkey.outcome(call, result)
    found = searches.found(call, result)
    finished = stuck.Finished(
        outcome,
        shape.result_shape(outcome, result, call),
        # A search that found nothing told nothing new either: its run is counted apart.
        empty=found is False or opkey.is_empty_result(result),
        found=found,
    )
    if outcome.startswith(opkey.FAILED):
        text = shape.learned_text(result, call)
        finished.pairs = shape.cause_pairs(result, call)
        # A hang prints no failure of its own: no edit of settings can leave it as it was.
        printed = exit_status.without_hang(text)
        finished.printed, finished.pieces = (
            edited.printed(printed),
            failures.cause_pieces(text, call),
        )
    if not result.failed and (
        opkey.is_confirmed_edit(call, result.response) or call.name == NOTEBOOK_EDIT
    ):
        finished.edit = _file_visit(guard, call, result.response)
        if finished.edit == stuck.NEW:
            # Back to a content the file had before is no change: what depends on it was
            # already seen that way.
            guard.edit_seq += 1
            guard.tool_edit_seq = guard.edit_seq
    elif outcome != opkey.NOT_RUN and tool_effects.may_change_world(call):
        _changed(guard, finished, call, result)
    elif outcome.startswith(opkey.COMPLETED) and not finished.empty:
        # Only a look's whole answer is compared (`checks.looked`): an edit's or a change's
        # output (an edit's response holds the whole file) is not read twice.
        text = shape.result_text(result)
        finished.answer = answers.digest(opkey.COMPLETED, text)
        looked = found is None or (found and searches.filters(call))
        if call.name == opkey.BASH and looked and not tool_effects.is_poll(call):
            finished.said = asked.said(text, tool_effects.command_of(call) or "")  # a wait is timed
    if outcome.startswith(opkey.COMPLETED) and exit_status.filtered(
        tool_effects.command_of(call) or ""
    ):
        finished.quiet = not failure_lines.says_passed(shape.result_text(result))
    if outcome.startswith((opkey.COMPLETED, opkey.FAILED)) and tool_effects.is_poll(call):
        _poll_answer(finished, call, result)
    elif outcome.startswith(opkey.FAILED) and call.name == opkey.BASH:
        finished.lines = answers.lines(_folded(shape.result_text(result)), ids=True)  # a poll's too
    return finished


def _folded(text: str) -> str:
    return failing_states.fold(text) or text


def _poll_answer(finished: stuck.Finished, call: ToolCall, result: ToolResult) -> None:
    """What a poll's answer shows of what it waits for (mutates `finished`): a failing state
    reads as any other (`failing_states`)."""
    text = shape.result_text(result)
    finished.progress, finished.numbers = answers.progress(text), answers.bare_numbers(text)
    folded = _folded(text)
    finished.failing = folded != text
    if finished.failing and finished.outcome.startswith(opkey.COMPLETED) and not finished.checked:
        finished.result = shape.result_shape(finished.outcome, ToolResult(response=folded), call)
    # A failure's ids made up per request are set aside: its next attempt prints others.
    finished.lines = answers.lines(folded, ids=finished.outcome.startswith(opkey.FAILED))


def _changed(guard: Guard, finished: stuck.Finished, call: ToolCall, result: ToolResult) -> None:
    """A call that ran and may have changed the world (even a failed command may have changed
    things): assume it changed them (mutates `finished` and the guard's counters)."""
    guard.change_seq += 1
    finished.changed = True
    completed = finished.outcome.startswith(opkey.COMPLETED)
    answer = shape.result_text(result)
    # Even when the command fails (`sed -i ... && npm run build`), the write ran first.
    finished.wrote = shell_writes.edits_files(call, answer)
    if not result.failed and finished.wrote:
        # A file written from the shell (`sed -i`): a test after it may check it, as after
        # an edit, though its content is not seen.
        guard.edit_seq += 1
        finished.moved = shell_writes.moves_checkout(call, answer)
    restart = tool_effects.checked_restart(call) if completed else ""
    if restart:
        stuck.checked(finished, call, result, restart)
    finished.cleared = completed and caches.clears_only(call)
    if finished.cleared and not finished.empty:  # its own look's answer
        command = tool_effects.command_of(call) or ""
        finished.said = asked.said(answer, command)


def _file_visit(guard: Guard, call: ToolCall, response: object) -> str:
    """NEW or REVISIT: whether a confirmed edit left the file with a content it had before
    (a short history of content digests per file; unknown contents count as new)."""
    found = opkey.edited_contents(call, response)
    if found is None:
        return stuck.NEW
    path, before, after = found
    files = guard.files
    guard.files = files
    key = hashing.digest(path)
    history = files.pop(key, None) or []
    if before is not None and not history:
        history.append(hashing.digest(before))
    digest = hashing.digest(after)
    visit = stuck.REVISIT if digest in history else stuck.NEW
    if digest in history:
        history.remove(digest)
    history.append(digest)
    files[key] = history[-MAX_FILE_CONTENTS:]
    for old in list(files)[:-MAX_FILES]:
        del files[old]
    return visit


def _owned_run(op: Operation | None, tool_use_id: str) -> Run | None:
    """The pending execution this result belongs to; a late or foreign result gets None."""
    for run in op.runs if op is not None else ():
        if run.owner == tool_use_id and run.outcome is None:
            return run
    return None
