"""A request to summarise that went unheeded: the turns after it still bring nothing new.

A request (`stages`) asks the model to stop, say what it is trying and change course. Each rule
then pauses when its own count goes on, but a loop asked about often goes on in other calls: a
failing build asked about, then its manifest read again, the build once more, the tree looked
at again; or attempts that alternate with looks telling nothing, which a count of attempts
reaches only after twice as many turns. None of those turns tells the session anything it had
not seen. So from a request on, each turn is watched: a call whose result the session had not
seen is news (at most `NEWS_ALLOWED` of them are let pass: one look that finds a new detail is
not yet a change of course), and a confirmed edit to new content, a write from the shell or the
user's words end the watch, as they are the change the request asked for. Turns with nothing
new in them are due a pause when there are as many as the asking rule's own count runs from its
request to its pause (`quiet_turns`), so a loop of one call a turn is paused by its own rule, in
its own words, as before. A change that ran to its end is judged by the look after it, as
`stuck` judges it, and a wait by its time (`stages`): what it waits for may yet come. Pure
functions of the track's `Stuck` record.
"""

from __future__ import annotations

from arcguard.core.words import vocabulary


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.loop_records import Stuck

NEWS_ALLOWED = 1
NOT_WATCHING = -1
# Rules counted in repeats, whose pause comes `shape_pause_repeats` after; the others count
# attempts, paused at `error_pause_repeats`.
SHAPE_RULES = frozenset({vocabulary.NOTHING_NEW, vocabulary.EMPTY_SEARCHES})


def quiet_turns(cfg: Config, rule: str) -> int:
    """Turns with nothing new after a request by `rule` that are due a pause: the repeats its
    own count runs from its request to its pause."""
    if rule in SHAPE_RULES:
        return max(1, cfg.shape_pause_repeats - cfg.shape_checkin_repeats)
    return max(1, cfg.error_pause_repeats - cfg.error_checkin_repeats)


def begin(st: Stuck, cfg: Config, rule: str) -> None:
    """A request by `rule` was made as a turn ended (mutates `st`): the turns after it are
    watched."""
    st.unheeded, st.unheeded_news, st.unheeded_turn = 0, 0, NOT_WATCHING
    st.unheeded_due = quiet_turns(cfg, rule)


def end(st: Stuck) -> None:
    """The model changed course, or the user spoke: nothing is watched (mutates `st`)."""
    st.unheeded = NOT_WATCHING


def observe(st: Stuck, turn: int, label: str, *, news: bool) -> None:
    """A finished call of `turn` brought `news` or nothing new (mutates `st`)."""
    if st.unheeded == NOT_WATCHING:
        return
    if news:
        st.unheeded_news += 1
        if st.unheeded_news > NEWS_ALLOWED:
            end(st)
        return
    st.unheeded_label = label
    if turn != st.unheeded_turn:
        st.unheeded, st.unheeded_turn = st.unheeded + 1, turn


def pause_due(st: Stuck) -> bool:
    return st.unheeded >= st.unheeded_due > 0
