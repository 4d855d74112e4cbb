"""The names arcguard logs and prints: what it decided (decision kinds) and what kind of stop
the model made (stop classes). The decision log, `status`, `replay`, `report`, `forensics`,
the user's notices and the docs all use these, so one thing has one name everywhere.

Names are part of what other tools read (the state file's log, `--json` outputs): a name
that changes stays readable under its old spelling (`RENAMED`, `kind_name`).

Pure: constants only.
"""

from __future__ import annotations


# --- decision kinds (a log entry's `kind`) -------------------------------------------------
# The arc keeper at a stop.
CONTINUE = "continue"  # the stop was sent back to work
ALLOW = "allow"  # a stall left alone (paused, an API error, background work, a /goal)
RELEASE = "release"  # the model said the arc is complete
DECISION = "decision"  # the model stopped for a decision (DECISION NEEDED:)
CAP = "cap"  # a continuation cap let the stop through
OVERRIDDEN = "overridden"  # Claude Code's own Stop-hook cap ended a turn
# The loop guard.
DENY = "deny"
UNTRACKED = "untracked"  # no room to track a new call
PAUSE = "pause"
RESUME = "resume"  # an operator message lifted a pause
NUDGE = "nudge"  # a check-in or backstop request for a summary
# The arc and the session.
ARC = "arc"
ARC_NEW = "arc-new"
ARC_STOP = "arc-stop"
API_ERROR = "api-error"
LIMIT_WAIT = "limit-wait"
LIMIT_WATCH = "limit-watch"
LIMIT_RESUME = "limit-resume"
LIMIT_CANCEL = "limit-cancel"
GIVE_UP = "give-up"
# Replay only: the posture context a prompt got (never logged).
POSTURE = "posture"

# Names earlier releases logged -> the name now: old state files read under the new one.
RENAMED = {"block": CONTINUE}


def kind_name(kind: str) -> str:
    """A logged decision kind under its current name."""
    return RENAMED.get(kind, kind)
