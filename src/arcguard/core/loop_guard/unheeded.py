"""A request to summarise that went unheeded: the turns after it still bring nothing new.

A request (`stages`) asks the model to stop, say what it is trying and change course. Each rule
then pauses when its own count goes on, but a loop asked about often goes on in other calls: a
failing build asked about, then its manifest read again, the build once more, the tree looked at
again; or attempts that alternate with looks telling nothing, which a count of attempts reaches
only after twice as many turns (with the defaults, a failure's count reaches its pause two
attempts after the request, on the same turn as the watch; set further apart, the watch comes
first). None of those turns tells the session anything it had not seen. So from a request on,
each turn is watched. A turn is quiet when a call of it ran and none brought a result the
session had not seen; one turn with news is let pass (`NEWS_ALLOWED`: one look that finds a new
detail is not yet a change of course), a second ends the watch, and so do an edit, a write from
the shell and the user's words: the change the request asked for. Quiet turns are due a pause
when there are as many as the asking rule's own count runs from its request to its pause
(`quiet_turns`), so a loop of one call a turn is still paused by its own rule, in its own words;
after a request about a failure, once it came back twice among them (`FAILURE_RETURNS`: reading
code and rerunning the failure once is the model finding its bearings before a fix).

Only requests about a failure or results seen again are followed by a watch (`WATCHED_RULES`).
A change that ran to its end is judged by the look after it, as `stuck` judges it, a wait by
its time (`stages`), and the model's own notes (`BOOKKEEPING`) say nothing either way. Pure
functions of the track's `Stuck` record and its `Unheeded` one.
"""

from __future__ import annotations

from arcguard.core.loop_records import Unheeded
from arcguard.core.words import vocabulary


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.loop_records import Stuck

NEWS_ALLOWED = 1
# What the turn under way brought so far (`Unheeded.now`).
NOTHING, QUIET, NEWS = 0, 1, 2
# Requests whose rule counts repeats, paused `shape_pause_repeats` on; the other rules
# watched count attempts, paused at `error_pause_repeats`.
SHAPE_RULES = frozenset({vocabulary.NOTHING_NEW})
# The requests followed by a watch: a failure attempted again and again, results seen again. The
# others ask about looks (one answer asked many ways, one failure read many ways, changes whose
# look answers as before), which the model is asked to turn from to the code, or about a wait
# (bounded by time) or searches (an empty one is often the answer): their own counts apply.
WATCHED_RULES = frozenset({vocabulary.SAME_FAILURE, vocabulary.NOTHING_NEW})
# Returns of a failure asked about wanted among the quiet turns: a rerun while reading code to
# plan a fix is no loop yet; a second one with nothing changed is.
FAILURE_RETURNS = 2
# The model's own notes and plans, and loading its tools: they answer alike every time and say
# nothing of the work, whichever way it goes.
BOOKKEEPING = frozenset(
    {"TodoWrite", "TodoRead", "TaskCreate", "TaskUpdate", "EnterPlanMode", "Skill", "ToolSearch"}
)


def quiet_turns(cfg: Config, rule: str) -> int:
    """Turns with nothing new after a request by `rule` that are due a pause: the repeats its
    own count runs from its request to its pause."""
    if rule in SHAPE_RULES:
        return max(1, cfg.shape_pause_repeats - cfg.shape_checkin_repeats)
    return max(1, cfg.error_pause_repeats - cfg.error_checkin_repeats)


def begin(st: Stuck, cfg: Config, rule: str, *, late: bool = False) -> None:
    """A request by `rule` was made as a turn ended (mutates `st`): the turns after it are
    watched; `late`: the request reaches the model with the next call's result, so one turn
    more is due (that call was chosen without it)."""
    if rule not in WATCHED_RULES:
        end(st)
        return
    returns = FAILURE_RETURNS if rule == vocabulary.SAME_FAILURE else 0
    st.unheeded = Unheeded(due=quiet_turns(cfg, rule) + late, returns=returns)


def end(st: Stuck) -> None:
    """The model changed course, or the user spoke: nothing is watched (mutates `st`)."""
    del st.unheeded


def observe(st: Stuck, label: str, *, news: bool, failed: bool) -> None:
    """A finished call of the turn under way brought `news` or nothing new; `failed`: it
    failed (mutates `st`)."""
    watch = st.unheeded
    if watch is None:
        return
    if news:
        watch.now = NEWS
        return
    if failed and watch.returns:
        watch.returns -= 1  # a failure seen before, with no edit since the request
    if watch.now != NEWS:
        watch.now, watch.label = QUIET, label


def close_turn(st: Stuck) -> None:
    """A turn ended (mutates `st`): quiet when a call of it ran and none brought news."""
    watch = st.unheeded
    if watch is None:
        return
    now, watch.now = watch.now, NOTHING
    if now == NEWS:
        watch.news += 1
        if watch.news > NEWS_ALLOWED:
            end(st)
    elif now == QUIET:
        watch.quiet += 1


def pause_due(watch: Unheeded) -> bool:
    return watch.quiet >= watch.due > 0 and not watch.returns
