"""Hook subcommands: `arcguard hook NAME` reads a payload on stdin, prints nothing or one JSON.

Registry of hook name -> module (each module has `handle(payload, ctx)`), imported lazily so a
hook loads only its own code.
"""

from __future__ import annotations


HOOKS = {
    "posture": "arcguard.hooks.posture",
    "stop": "arcguard.hooks.stop",
    "pre-tool": "arcguard.hooks.pre_tool",
    "post-tool": "arcguard.hooks.post_tool",
    "post-batch": "arcguard.hooks.post_batch",
    "session-start": "arcguard.hooks.session_start",
    "stop-failure": "arcguard.hooks.stop_failure",
    "limit-wait": "arcguard.hooks.limit_wait",
    "serve-start": "arcguard.hooks.serve_start",
}

# The Claude Code event each hook is wired to (PostToolUse and PostToolUseFailure share one).
EVENTS = {
    "UserPromptSubmit": "posture",
    "Stop": "stop",
    "PreToolUse": "pre-tool",
    "PostToolUse": "post-tool",
    "PostToolUseFailure": "post-tool",
    "PostToolBatch": "post-batch",
    "SessionStart": "session-start",
    "StopFailure": "stop-failure",
}

# Hooks wired as an extra, background handler of an event (`async` + `asyncRewake`): Claude
# Code does not wait for them, and their exit 2 wakes the session.
BACKGROUND = {"limit-wait": "StopFailure"}

# Resident mode (`install --resident`): every event is an http hook to the resident server,
# except SessionStart, which Claude Code does not send over http: its command hook starts the
# server as well.
RESIDENT_COMMANDS = {"SessionStart": "serve-start"}
