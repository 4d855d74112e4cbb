"""The names arcguard logs and prints: what it decided (decision kinds) and what kind of stop
the model made (stop classes). The decision log, `status`, `replay`, `report`, `forensics`,
the user's notices and the docs all use these, so one thing has one name everywhere.

Names are part of what other tools read (the state file's log, `--json` outputs): a name
that changes stays readable under its old spelling (`RENAMED`, `kind_name`).

Pure: constants only. Each is `Final`, so mypy reads it as its literal: a constant passed where
a `names.DecisionKind` is expected is checked like the text itself.
"""

from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final


# --- decision kinds (a log entry's `kind`) -------------------------------------------------
# The arc keeper at a stop.
CONTINUE: Final = "continue"  # the stop was sent back to work
ALLOW: Final = "allow"  # a stall left alone (paused, an API error, background work, a /goal)
RELEASE: Final = "release"  # the model said the arc is complete
DECISION: Final = "decision"  # the model stopped for a decision (DECISION NEEDED:)
CAP: Final = "cap"  # a continuation cap let the stop through
OVERRIDDEN: Final = "overridden"  # Claude Code's own Stop-hook cap ended a turn
# The loop guard.
DENY: Final = "deny"
UNTRACKED: Final = "untracked"  # no room to track a new call
PAUSE: Final = "pause"
RESUME: Final = "resume"  # an operator message lifted a pause
NUDGE: Final = "nudge"  # a check-in or backstop request for a summary
# The rule of a deny or a nudge (the entry's `rule`): what the model was told about.
CANNOT_MATCH: Final = "cannot-match"  # a search spelt so that it cannot match was denied
EMPTY_SEARCHES: Final = "searches"  # a run of searches that found nothing was asked about
SAME_FAILURE: Final = "same-failure"  # attempts failing the same way
NOTHING_NEW: Final = "nothing-new"  # calls whose results brought nothing new
NO_EFFECT: Final = "no-effect"  # changes whose look showed what it showed before
SAME_ANSWER: Final = "same-answer"  # one answer, asked for in other words again and again
REREAD: Final = "reread"  # one failure, read through other readers again and again
POLL: Final = "poll"  # a waiting call showing the same result for long
CHECK_IN: Final = "check-in"  # tool-only turns in a row without progress
BACKSTOP: Final = "backstop"  # turns since the user's last message
# The arc and the session.
ARC: Final = "arc"
ARC_NEW: Final = "arc-new"
ARC_STOP: Final = "arc-stop"
API_ERROR: Final = "api-error"
LIMIT_WAIT: Final = "limit-wait"
LIMIT_WATCH: Final = "limit-watch"
LIMIT_RESUME: Final = "limit-resume"
LIMIT_CANCEL: Final = "limit-cancel"
GIVE_UP: Final = "give-up"
# Replay only: the posture context a prompt got (never logged).
POSTURE: Final = "posture"
DECISION_KINDS = (
    CONTINUE,
    ALLOW,
    RELEASE,
    DECISION,
    CAP,
    OVERRIDDEN,
    DENY,
    UNTRACKED,
    PAUSE,
    RESUME,
    NUDGE,
    ARC,
    ARC_NEW,
    ARC_STOP,
    API_ERROR,
    LIMIT_WAIT,
    LIMIT_WATCH,
    LIMIT_RESUME,
    LIMIT_CANCEL,
    GIVE_UP,
)

# Names earlier releases logged -> the name now: old state files read under the new one.
RENAMED = {"block": CONTINUE}


# --- stop classes: how a final message handed the turn back ------------------------------
# The arc keeper logs the class of a stall it acts on (a log entry's `rule`); forensics
# counts every final message by class.
NO_OP: Final = "no-op"  # an empty reply or "No response requested."
QUESTION: Final = "question"  # asks the operator for permission or a choice
ANNOUNCED_STEP: Final = "announced-step"  # says what it will do next, and stops without doing it
COURTESY: Final = "courtesy"  # offers further help and names no step
PAUSED: Final = "paused"  # says it stops partway, or lists the work still to do
UNEXPLAINED: Final = "unexplained"  # any other text: neither a completion nor a decision request
DECISION_NEEDED: Final = "decision-needed"  # starts with DECISION NEEDED:, the protocol's pause
COMPLETION: Final = "completion"  # says the work is done
UNVERIFIED: Final = "unverified"  # says the work is done right after a call failed
UNCHECKED: Final = "unchecked"  # stops before the checks its task names have passed
DEAD_RESUME: Final = "dead-resume"  # Claude Code's resume prompt answered with nothing


def kind_name(kind: str) -> str:
    """A logged decision kind under its current name."""
    return RENAMED.get(kind, kind)
