"""Telling the user when arcguard stops a session: which decisions, and what to send.

An unattended session that arcguard pauses, lets stop at a continuation cap, or does not
resume after an API limit (no wait at all, or a wait that ended without a wake) sits idle
until someone looks. These are found as new entries of the state's decision log, so no rule
has to know about notifications, and they become:
- a terminal sequence for Claude Code to emit (hooks have no terminal of their own): a bell
  and a window title such as "arcguard: paused";
- an event document for the user's `notify_command`.
"""

from __future__ import annotations

from arcguard.core.schema import StateFile
from arcguard.core.words import vocabulary


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypedDict

    from arcguard.core.schema import LogEntry
    from arcguard.core.state import State

    class NotifyEvent(TypedDict):
        """What `notify_command` reads on stdin, as JSON: one decision that stopped a session."""

        session_id: str | None
        kind: str  # the event kind: the first of a `KINDS` pair
        reason: str
        rule: str | None
        time: float | None
        hook: str | None


# decision-log kind -> (event kind, window title)
KINDS = {
    vocabulary.PAUSE: ("paused", "arcguard: paused"),
    vocabulary.CAP: ("cap", "arcguard: stopped at the continuation cap"),
    vocabulary.GIVE_UP: ("limit-give-up", "arcguard: not resuming after the API limit"),
    # A wait that ends without a wake, however it ends (cancelled, refused at its end, its
    # waiter stopped or gone): a session the user expects to resume by itself will not.
    vocabulary.LIMIT_CANCEL: ("limit-cancel", "arcguard: limit wait ended without a resume"),
}
BEL = "\a"
# OSC 0 sets the window and icon title, one of the sequences Claude Code passes on; a title
# must not carry control characters of its own.
_OSC_TITLE = "\x1b]0;{}\a"


def _log(state: State | None) -> list[LogEntry]:
    return list(StateFile.view(state).log) if state is not None else []


def new_entries(old: State | None, new: State | None) -> list[LogEntry]:
    """Log entries `new` has that `old` did not (the log is bounded, so not by length)."""
    after, before = _log(new), _log(old)
    if not before:
        return after
    last = before[-1]
    for i in range(len(after) - 1, -1, -1):
        if after[i] == last:
            return after[i + 1 :]
    return after


def events(old: State | None, new: State | None) -> list[NotifyEvent]:
    """The decisions in this change the user should hear about, as event documents."""
    sid = StateFile.view(new).session_id if new is not None else None
    found: list[NotifyEvent] = []
    for entry in new_entries(old, new):
        kind = KINDS.get(entry.kind)
        if kind is None:
            continue
        found.append(
            {
                "session_id": sid,
                "kind": kind[0],
                "reason": entry.reason,
                "rule": entry.rule,
                "time": entry.t,
                "hook": entry.hook,
            }
        )
    return found


def terminal_sequence(found: list[NotifyEvent]) -> str | None:
    """A window title naming the last event, then a bell; None when there is nothing."""
    return sequence_for(found[-1]["kind"]) if found else None


def sequence_for(kind: str) -> str:
    """The terminal sequence of one event kind (`paused`, `cap`, `limit-give-up`,
    `limit-cancel`)."""
    title = next(t for k, t in KINDS.values() if k == kind)
    return _OSC_TITLE.format(_printable(title)) + BEL


def _printable(text: str) -> str:
    return "".join(c for c in text if c.isprintable())[:80]
