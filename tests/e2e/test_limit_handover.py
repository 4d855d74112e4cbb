"""One resume at a usage limit, with the real CLI in interactive mode (tmux).

A claude.ai login (a fake OAuth credentials file; no API key) makes Claude Code arm its own
resume when a 429 carries the unified rate-limit headers (`...-unified-status: rejected`,
`...-unified-reset: <epoch>`): it writes "Usage limit reached · continuing automatically at
...", and resumes the session 30-90 s after the reset with "Your claude.ai usage limit has
reset. ...". arcguard's waiter then only watches. With an API key nothing is armed and the
waiter wakes the session itself (`test_limit_wait.py`).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from interactive import claude_ai_login
from interactive import interactive_claude
from interactive import wait_for
from scripted_api import ScriptedAPI
from scripted_api import api_error
from scripted_api import text
from test_limit_wait import TASK_NOTIFICATION
from test_limit_wait import WAKE
from test_limit_wait import _needs_tmux  # noqa: F401  (an autouse fixture)
from test_limit_wait import installed_project
from test_limit_wait import kinds
from test_limit_wait import limited
from test_limit_wait import prompts
from test_limit_wait import state


BUILTIN_PROMPT = "Your claude.ai usage limit has reset."
ARMED = "Usage limit reached · continuing automatically"
API_KEY = ("ANTHROPIC_API_KEY",)
# Claude Code's resume comes at most 90 s after the reset; a watch ends 30 s after that.
BUILTIN_DUE_S = 90 + 30
# A reset shown to the minute is waited for to the end of that minute: up to 65 s here.
ENV = {"ARCGUARD_LIMIT_WAIT_MAX_SECONDS": "300"}


def usage_limit(ahead: int) -> Any:
    """One 429 as the API answers a subscriber over their usage limit (not retried)."""
    reset = int(time.time()) + ahead
    headers = {
        "retry-after": "0",
        "anthropic-ratelimit-unified-status": "rejected",
        "anthropic-ratelimit-unified-reset": str(reset),
        "anthropic-ratelimit-unified-representative-claim": "five_hour",
    }
    return api_error(429, "rate_limit_error", "usage limit reached", headers=headers)


def log_reasons(project: Any, kind: str) -> list[str]:
    return [str(e.get("reason")) for e in state(project).get("log", []) if e.get("kind") == kind]


def test_a_claude_ai_session_is_resumed_once_by_claude_code_and_not_again(
    claude_bin: Path, claude_project: Any
) -> None:
    project = installed_project(claude_project)
    claude_ai_login(project)
    with (
        ScriptedAPI() as api,
        interactive_claude(claude_bin, project, api, ENV, unset=API_KEY) as cli,
    ):
        api.add(usage_limit(ahead=5), text("Back on the importer: the header parses."))
        cli.type("/autonomous ship the importer")
        wait_for(lambda: "limit-watch" in kinds(project), 60, "the waiter to watch", cli)
        wait_for(lambda: len(api.requests) == 2, 5 + BUILTIN_DUE_S, "Claude Code's resume", cli)
        wait_for(lambda: "limit-cancel" in kinds(project), 30, "the watch to end", cli)
        time.sleep(5)  # a wake on its way would land now

    assert len(api.requests) == 2
    assert BUILTIN_PROMPT in prompts(api)[1] and WAKE not in prompts(api)[1]
    assert not any(TASK_NOTIFICATION in p for p in prompts(api))
    assert "limit-resume" not in kinds(project)
    cancelled = log_reasons(project, "limit-cancel")
    assert any("Claude Code resumed the session itself" in r for r in cancelled), cancelled
    assert "limit_wait" not in state(project)


def test_a_built_in_resume_that_never_comes_is_caught_by_the_watchdog(
    claude_bin: Path, claude_project: Any
) -> None:
    # An API-key session, told by its transcript that the built-in resume is armed: a resume
    # that was armed and never comes (as when Claude Code skips it), without waiting hours.
    project = installed_project(claude_project)
    with ScriptedAPI() as api, interactive_claude(claude_bin, project, api, ENV) as cli:
        api.add(limited(ahead=2), text("Back on the importer after the limit."))
        cli.type("/autonomous ship the importer")
        wait_for(lambda: "limit_wait" in state(project), 60, "the wait to start", cli)
        [transcript] = project.transcripts()
        armed = {
            "type": "system",
            "subtype": "informational",
            "level": "info",
            "content": f"{ARMED} at 8:32am · esc to cancel",
            "isMeta": False,
        }
        with open(transcript, "a") as handle:
            handle.write(json.dumps(armed) + "\n")
        wait_for(lambda: "limit-watch" in kinds(project), 30, "the waiter to watch", cli)
        started = time.time()
        wait_for(lambda: len(api.requests) == 3, 2 + BUILTIN_DUE_S + 60, "the watchdog's wake", cli)
        waited = time.time() - started

    assert waited >= 90  # not at the reset: only once the built-in resume was overdue
    assert TASK_NOTIFICATION in prompts(api)[2] and WAKE in prompts(api)[2]
    assert kinds(project).count("limit-resume") == 1
    assert state(project)["arc"]["limit_resumes"] == 1


def test_with_the_built_in_resume_switched_off_arcguard_resumes_once(
    claude_bin: Path, claude_project: Any
) -> None:
    project = installed_project(claude_project)
    claude_ai_login(project)
    settings = project.home / ".claude" / "settings.json"
    settings.write_text(json.dumps({"autoContinueAtUsageLimit": False}))
    with (
        ScriptedAPI() as api,
        interactive_claude(claude_bin, project, api, ENV, unset=API_KEY) as cli,
    ):
        api.add(usage_limit(ahead=5), text("Back on the importer after the limit."))
        cli.type("/autonomous ship the importer")
        # Switched off, Claude Code asks what to do; a wake sent while it asks waits in its
        # queue until the question is answered ("1. Stop and wait for limit to reset").
        wait_for(lambda: "What do you want to do?" in cli.screen(), 60, "the dialog", cli)
        cli._tmux("send-keys", "-t", "cli", "Enter")
        wait_for(lambda: len(api.requests) == 2, 5 + 60 + 30, "arcguard's wake", cli)
        time.sleep(5)

    assert len(api.requests) == 2
    assert TASK_NOTIFICATION in prompts(api)[1] and WAKE in prompts(api)[1]
    assert not any(BUILTIN_PROMPT in p for p in prompts(api))
    assert "limit-watch" not in kinds(project)
    assert kinds(project).count("limit-resume") == 1
