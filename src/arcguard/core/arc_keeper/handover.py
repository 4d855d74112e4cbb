"""One resume at a usage limit, whoever does it: arcguard's waiter or Claude Code's own.

For a claude.ai login Claude Code arms a resume of its own when a usage limit ends a turn
("Usage limit reached · continuing automatically at ...") and continues the session 30-90 s
after the reset. `StopFailure` still fires, so arcguard's waiter would wake the session too:
twice. When the built-in resume is armed for this limit, the waiter becomes a watchdog: it
waits until that resume is due (the reset, its jitter and a margin), and wakes the session
only if it did not happen. An operator prompt (someone is back) cancels the watch as it
cancels any wait; so does the built-in resume being cancelled (Esc), which leaves the
session to the person who pressed it. With an API key nothing is armed, and the waiter wakes
the session at the reset as before.

Pure: what the transcript says is read by the shell (`transcript.marks.resume_mark`).
"""

from __future__ import annotations

from arcguard.core.schema import LogEntry
from arcguard.core.schema import StateFile
from arcguard.core.state import add_log
from arcguard.core.state import clone


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.state import State

# Claude Code resumes 30-90 s after the reset (the jitter in its bundled code); measured on
# 2.1.328, 55-97 s after the reset to the second. The watch ends this much later still.
BUILTIN_JITTER_S = 90.0
WATCH_MARGIN_S = 30.0
SOURCE = "built-in"

# What the transcript says of Claude Code's own resume, newest marker first wins.
ARMED = "armed"
RESUMED = "resumed"
CANCELLED = "cancelled"


def watch_until(wake_at: float) -> float:
    """When a watch on the built-in resume ends: by then it is overdue."""
    return wake_at + BUILTIN_JITTER_S + WATCH_MARGIN_S


def watch(state: State | None, token: str, now: float) -> tuple[float | None, State | None]:
    """The wait `token` becomes a watch on Claude Code's armed resume: (its new end, state).

    (None, None) when the wait is no longer this waiter's."""
    wait = StateFile.view(state).limit_wait if state is not None else None
    if state is None or wait is None or wait.token != token or wait.until is None:
        return None, None
    state = clone(state)
    held = StateFile.view(state).limit_wait
    assert held is not None and held.until is not None  # as in the state it was cloned from
    until = watch_until(float(held.until))
    held.until = until
    held.source = SOURCE
    add_log(
        state,
        LogEntry(
            t=now,
            hook="limit-wait",
            kind="limit-watch",
            reason="Claude Code's own resume is armed for this limit: arcguard wakes the"
            f" session at {until:.0f} only if that resume has not come by then",
        ),
    )
    return until, state


def why_not_wake(mark: str | None) -> str | None:
    """At the end of a watch (or as soon as the transcript tells): why arcguard must not wake
    the session, or None when it should (the built-in resume did not come)."""
    if mark == RESUMED:
        return "Claude Code resumed the session itself"
    if mark == CANCELLED:
        return "the operator cancelled Claude Code's own resume"
    return None
