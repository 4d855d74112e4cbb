"""One wait, however the poll is spelt.

A poll (`tool_effects.is_poll`) is bounded by wall time, not by its count: the track's `Stuck`
record holds the current wait (`Poll`: its first spelling and answer, when that answer was
first seen, how many polls since). A wait may be watched several ways (`sleep 60; kubectl get
pods`, then `kubectl wait ... --timeout=60s`, then `... -o wide`): each other spelling joins it
as a view (`Poll.views`) with an answer that is no progress (one the session saw before, or a
failure), and the wait goes on while every view answers as it last did. Rotating spellings
must not restart the clock each time. But a view whose own answer changed (a rollout's pods
moving from one state to the next, even to one shown before) starts the wait again, as does
a view's progress going further than when it joined (`answers.ahead`; the first spelling
keeps its furthest marks), a timer in the first answer running down (`answers.counts_down`)
or a lone count draining (`answers.drains`). A failure in other words (a wait timing out
anew) goes on with the wait, and so does an answer that shows only lines the wait has shown,
times aside (`shown`: `tail -n 2` of a log that stopped, after `tail -n 3`). Any other new
answer is progress, which the caller handles (every run starts again). A poll failing word for
word as a failure did (`failed_before`) waits on that failure: since its first sighting
(`_since_failure`). A wait that began with a failure or waits on one is a wait on a failure
(`on_failure`). Pure functions of the record.
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core.loop_guard import answers
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import tool_effects
from arcguard.core.loop_records import Poll


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from arcguard.core.loop_records import Stuck
    from arcguard.core.tool_call import ToolCall

    class Answer(Protocol):
        """What a poll's answer brought (`stuck.Finished`)."""

        outcome: str
        checked: str
        result: str
        progress: str
        numbers: str
        lines: list[str] | None


MAX_VIEWS = 4  # other spellings a wait keeps: a rotation is a few
SEP = "|"  # between a view's answer and its marks of progress, which never hold it
MAX_FAILED_ANSWERS = 16  # failures' whole answers kept (`failed_before`): a wait's few
MIN_ANSWER_LINES = 2  # distinct lines of a failure told apart from others
FAILURE_SIGHTINGS = 2  # a failure seen again: twice
FAILURE_MEMORY_SECONDS = 1800  # a failure seen longer ago than this is another wait's
MAX_WAIT_LINES = 80  # lines a wait keeps of what its polls showed (`answers.lines`)


def looked(call: ToolCall, finished: Answer) -> bool:
    """The call waited to look: a poll. One that also acts (`sleep 10 && git add`, `helm
    upgrade --wait`) and fails did not look, it failed: an attempt like any other. One that
    restarted something, waited and looked (`docker compose up -d && sleep 4 && curl ...`)
    checked its restart: the look judges it (`checks`), as a look after a restart would."""
    failed = finished.outcome.startswith(opkey.FAILED)
    acted = failed and tool_effects.acts(call)
    return tool_effects.is_poll(call) and not acted and not finished.checked


def failed_before(st: Stuck, lines: list[str], now: float) -> float | None:
    """When a failure's whole answer (`answers.lines`) was first a failure's, or None: not
    before now (remembers it)."""
    if len(set(lines)) < MIN_ANSWER_LINES:
        return None  # `Exit code 1` alone (a silent failure) names no failure
    answer, kept = hashing.digest(" ".join(lines)), st.failed_answers
    first = kept.pop(answer, None)
    if first is not None and now - first > FAILURE_MEMORY_SECONDS:
        first = None  # long ago: another wait's
    kept[answer] = now if first is None else first  # the latest stays longest
    while len(kept) > MAX_FAILED_ANSWERS:
        del kept[next(iter(kept))]
    st.failed_answers = kept  # a default dict is the record's once set
    return first


def _since_failure(current: Poll, first: float, label: str) -> None:
    """The wait is one on the failure first seen at `first`, which the poll `label` showed
    again: it has waited since then, and the failure came twice (mutates `current`)."""
    current.since, current.label = min(current.since, first), label
    current.count = max(current.count, FAILURE_SIGHTINGS)


def answered(call: ToolCall, finished: Answer, now: float, label: str) -> Poll:
    """The answer a poll `call` gave (`finished`), as the wait keeps it."""
    lines = finished.lines or []
    return Poll(
        call=shape.call_shape(call),
        result=finished.result,
        since=now,
        count=1,
        label=label,
        progress=finished.progress,
        numbers=finished.numbers,
        lines=lines,
        last=lines,
        command=hashing.digest(tool_effects.command_of(call) or ""),
    )


def wait(st: Stuck, seen: Poll, *, failed: bool, shown: bool = False) -> None:
    """A poll answered `seen`, an answer that is no progress (mutates `st`); `shown`: it showed
    nothing the wait had not (`shown`). Failing as a failure did (`failed_before`), it waits
    on something that does not come, since that failure was first seen."""
    first = failed_before(st, seen.lines, seen.since) if failed else None
    seen.failing = first is not None
    current = st.poll
    if current is not None and _goes_on(current, seen, same=failed or shown):
        current.count += 1
        kept = dict.fromkeys(current.lines)
        kept.update(dict.fromkeys(seen.lines))
        current.lines = list(kept)[-MAX_WAIT_LINES:]
        current.last, current.command = seen.lines, seen.command
        current.failing = current.failing or seen.failing
    else:
        current = st.poll = seen
        st.poll_nudged = False
    if first is not None:
        _since_failure(current, first, seen.label)


def shown(current: Poll | None, seen: Poll) -> bool:
    """The poll's answer `seen` shows nothing the wait `current` had not: no news of what it
    waits for, whatever its shape. A spelling the wait has not heard from: only lines the wait
    has shown. One it has: a part of the wait's latest answer, each line as often (`tail -n 2`
    of a log after `tail -n 3`), or, asked word for word as that answer was, the same lines in
    any order (a queue with one job fewer moved, as did a rollout back to a state it showed)."""
    if current is None or not seen.lines:
        return False
    if seen.call != current.call and seen.call not in current.views:
        kept = set(current.lines)
        return all(line in kept for line in seen.lines)
    if seen.command == current.command:
        return sorted(seen.lines) == sorted(current.last)
    left = current.last.copy()
    for line in seen.lines:
        if line not in left:
            return False
        left.remove(line)
    return True


def changed(st: Stuck) -> bool:
    """A change was made: a wait on a failure goes on, and its next poll tells whether the
    change moved it (True); before one, the failures seen are forgotten (mutates `st`)."""
    if on_failure(st.poll):
        return True
    st.failed_answers = {}
    return False


def on_failure(current: Poll | None) -> bool:
    """The wait is one on a failure: it began with one, or showed one again."""
    return current is not None and (current.failing or current.result.startswith(opkey.FAILED))


def _goes_on(current: Poll, seen: Poll, *, same: bool) -> bool:
    """The wait goes on: nothing any view of it shows moved (mutates the views it keeps);
    `same`: whatever its shape, the answer says nothing moved (a failure, or `shown`)."""
    if seen.call == current.call:
        if current.result != seen.result and not same:
            return False
        moved, furthest = answers.ahead(seen.progress, current.progress)
        if furthest:
            current.progress = seen.progress = furthest
        since = seen.since - current.since
        if answers.drains(current.numbers, seen.numbers):
            return False
        return not moved and not answers.counts_down(current.numbers, seen.numbers, since)
    views = current.views
    current.views = views
    view = views.get(seen.call)
    if view is None:
        if len(views) >= MAX_VIEWS:
            return False
        views[seen.call] = f"{seen.result}{SEP}{seen.progress}"
        return True
    result, _, marks = view.partition(SEP)
    moved, _ = answers.ahead(seen.progress, marks)  # moved: it becomes the first spelling
    return (result == seen.result or same) and not moved
