"""The names hooks, Claude Code's events, logged decisions and pauses go by, as types.

For mypy only: the state file holds them as plain text (`schema`), and no hook imports this
module when it runs.
"""

from __future__ import annotations

from typing import Literal


# arcguard's hook subcommands (`arcguard hook NAME`), as the log's `hook` field names them.
HookName = Literal[
    "posture",
    "stop",
    "pre-tool",
    "post-tool",
    "post-batch",
    "session-start",
    "stop-failure",
    "limit-wait",
]
# The Claude Code events those hooks answer.
EventName = Literal[
    "UserPromptSubmit",
    "Stop",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "SessionStart",
    "StopFailure",
]
# What a logged decision did: the names and meanings are `core.words.vocabulary`'s (a log
# written by an earlier version may say block, read as continue).
DecisionKind = Literal[
    "continue",
    "allow",
    "release",
    "decision",
    "cap",
    "deny",
    "untracked",
    "pause",
    "resume",
    "nudge",
    "arc",
    "arc-new",
    "arc-stop",
    "api-error",
    "limit-wait",
    "limit-resume",
    "limit-cancel",
    "limit-watch",
    "give-up",
    "overridden",
]
# Which loop-guard rule paused the session.
PauseKind = Literal["blocked", "cycle", "backstop", "stuck", "poll"]
