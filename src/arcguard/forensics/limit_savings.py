"""How much of the dead time after a rate-limit ending `arcguard hook limit-wait` would have saved.

The session sat idle from the ending until the next prompt. A limit-wait resume would have woken
it when the limit reset: at the time the error text names, else after the backoff limit-wait
uses, within its caps (resumes per arc, longest wait). Whatever idle time lies beyond that wake
is what the resume saves; a prompt that came sooner saves nothing. Both rules are limit-wait's
own (`core.arc_keeper.limits`), so the estimate moves with them.

limit-wait acts only inside an arc, so the figure is kept twice: for every session, as if each
had been one arc from its start, and for arcs a session really started with `/autonomous`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcguard.core.arc_keeper import limits
from arcguard.core.arc_keeper import reset_text
from arcguard.values import value


if TYPE_CHECKING:
    from typing import TypedDict

    from arcguard.core.config import Config

    class SavingsDoc(TypedDict):
        endings: int
        would_resume: int
        reset_from_error_text: int
        reset_from_backoff: int
        dead_seconds: float
        saved_seconds: float


ALL = "all_sessions"
AUTONOMOUS = "after_autonomous_prompt"
ARC_PROMPT = "/autonomous"
TEXT = "error text"
BACKOFF = "backoff"
LIMIT_ERROR = "rate_limit"  # the StopFailure error limit-wait sees for these endings


@value
class Savings:
    """Totals over the rate-limit endings of one view (all sessions, or arcs only): the
    endings followed by a prompt (the gap is known), how many would resume at the reset time
    the error text names and how many after the backoff, and the seconds dead and saved."""

    endings: int = 0
    from_error_text: int = 0
    from_backoff: int = 0
    dead_seconds: float = 0.0
    saved_seconds: float = 0.0

    def add(self, gap: float, wait: tuple[float, str] | None) -> None:
        self.endings += 1
        self.dead_seconds += gap
        if wait is None:
            return  # past a cap: limit-wait would have given up
        if wait[1] == TEXT:
            self.from_error_text += 1
        else:
            self.from_backoff += 1
        self.saved_seconds += max(0.0, gap - wait[0])

    def as_dict(self) -> SavingsDoc:
        return {
            "endings": self.endings,
            "would_resume": self.from_error_text + self.from_backoff,
            "reset_from_error_text": self.from_error_text,
            "reset_from_backoff": self.from_backoff,
            "dead_seconds": round(self.dead_seconds, 1),
            "saved_seconds": round(self.saved_seconds, 1),
        }


def resume_wait(text: str, ending: float, used: int, cfg: Config) -> tuple[float, str] | None:
    """(seconds from the ending until limit-wait would wake the session, where that time came
    from), or None when it would not wake it: the arc's resumes are spent, or the named reset is
    further away than the longest wait."""
    if used >= cfg.limit_resumes_per_arc:
        return None
    reset = _named_reset(text, ending)
    if reset is None:
        return limits.backoff_seconds(LIMIT_ERROR, used, cfg), BACKOFF
    wait = max(reset, ending + limits.MARGIN_EXACT) - ending
    return (wait, TEXT) if wait <= cfg.limit_wait_max_seconds else None


def _named_reset(text: str, ending: float) -> float | None:
    """The reset time in the error text, resolved as limit-wait resolves it (a clock time
    without a zone is in this machine's zone, the user's own)."""
    from arcguard.hooks.limit_wait import resolve

    return resolve(reset_text.parse_reset(text), ending) if text else None


@value
class SessionLimits:
    """One transcript's rate-limit endings, counted into both views of the report; `used`:
    the resumes each view's arc has spent."""

    views: dict[str, Savings]
    cfg: Config
    used: dict[str, int]
    in_arc: bool = False

    @classmethod
    def start(cls, views: dict[str, Savings], cfg: Config) -> SessionLimits:
        return cls(views, cfg, {ALL: 0, AUTONOMOUS: 0})

    def prompt(self, text: str) -> None:
        if text.lstrip().startswith(ARC_PROMPT):
            self.in_arc = True
            self.used[AUTONOMOUS] = 0  # a new arc: its own resumes

    def ending(self, text: str, ending: float, gap: float) -> None:
        """A rate-limit ending at `ending`, idle for `gap` seconds until the next prompt."""
        for view in (ALL, AUTONOMOUS) if self.in_arc else (ALL,):
            wait = resume_wait(text, ending, self.used[view], self.cfg)
            self.views[view].add(gap, wait)
            if wait is not None and gap > wait[0]:
                self.used[view] += 1  # the wake would have happened: one resume spent
