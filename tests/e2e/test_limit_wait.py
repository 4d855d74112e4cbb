"""Resuming after a rate limit, end to end: the real CLI in interactive mode, in tmux.

StopFailure fires only in interactive mode, so these tests type their prompts into a terminal.
The hooks are wired exactly as `arcguard install` writes them (the limit waiter as a second,
`async` + `asyncRewake` StopFailure handler). The scripted API answers 429 with the older
usage-limit text, whose reset time is an epoch a few seconds ahead; the CLI retries once
(`CLAUDE_CODE_MAX_RETRIES=1`), so one failed turn takes two 429 answers.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from interactive import interactive_claude
from interactive import tmux_available
from interactive import wait_for
from scripted_api import ScriptedAPI
from scripted_api import rate_limit
from scripted_api import text

from arcguard.claude_settings import launch_forms
from arcguard.claude_settings import merge_plan
from arcguard.claude_settings import slash_command


WAKE = "[arcguard] The API limit that ended the last turn has reset"
TASK_NOTIFICATION = "<task-notification>"
RESET_AHEAD_S = 4
# Short caps so that a wait never outlives the test.
ENV = {"ARCGUARD_LIMIT_WAIT_MAX_SECONDS": "30"}


@pytest.fixture(autouse=True)
def _needs_tmux() -> None:
    if not tmux_available():
        message = "tmux is not installed (the interactive CLI runs inside it)"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


def limited(count: int = 2, ahead: int = RESET_AHEAD_S) -> list[Any]:
    """A failed turn: 429 answers whose text names a reset `ahead` seconds from now."""
    reset = int(time.time()) + ahead
    return rate_limit(count, f"Claude AI usage limit reached|{reset}")


def installed_project(claude_project: Any) -> Any:
    prefix = launch_forms.own_prefix(sys.executable)
    project = claude_project({"hooks": merge_plan.desired_hooks(prefix)})
    commands = project.path / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / slash_command.COMMAND_NAME).write_text(slash_command.command_template())
    return project


def state(project: Any) -> dict[str, Any]:
    """The one session's arcguard state ({} before the first hook wrote it)."""
    sessions = Path(project.arcguard_home) / "sessions"
    files = sorted(sessions.glob("*.json")) if sessions.is_dir() else []
    return json.loads(files[0].read_text()) if files else {}


def kinds(project: Any) -> list[str]:
    return [str(entry.get("kind")) for entry in state(project).get("log", [])]


def prompts(api: ScriptedAPI) -> list[str]:
    """The newest user text of each main request (what woke or prompted the model)."""
    found = []
    for body in api.requests:
        user = [m for m in body.get("messages", []) if m.get("role") == "user"]
        content = user[-1].get("content") if user else ""
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        found.append("\n".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict)))
    return found


def test_an_arc_stopped_by_a_rate_limit_resumes_after_the_reset_and_finishes(
    claude_bin: Path, claude_project: Any
) -> None:
    project = installed_project(claude_project)
    with ScriptedAPI() as api, interactive_claude(claude_bin, project, api, ENV) as cli:
        api.add(limited(), text("The arc is complete."))
        cli.type("/autonomous ship the importer")
        wait_for(lambda: "release" in kinds(project), 60, "the arc to finish", cli)

    assert len(api.requests) == 3
    assert TASK_NOTIFICATION in prompts(api)[2] and WAKE in prompts(api)[2]
    final = state(project)
    assert final["arc"]["active"] is False
    assert final["arc"]["limit_resumes"] == 1
    assert "limit_wait" not in final
    # The two StopFailure handlers run side by side: their entries come in either order.
    assert sorted(kinds(project)) == ["api-error", "arc", "limit-resume", "limit-wait", "release"]
    assert kinds(project)[-2:] == ["limit-resume", "release"]


def test_past_the_resume_cap_a_rate_limit_is_not_resumed(
    claude_bin: Path, claude_project: Any
) -> None:
    project = installed_project(claude_project)
    env = {**ENV, "ARCGUARD_LIMIT_RESUMES_PER_ARC": "1"}
    with ScriptedAPI() as api, interactive_claude(claude_bin, project, api, env) as cli:
        api.add(limited(), limited())  # the woken turn is limited again
        cli.type("/autonomous ship the importer")
        wait_for(lambda: "give-up" in kinds(project), 60, "the waiter to give up", cli)
        time.sleep(RESET_AHEAD_S + 3)  # past the second reset: nothing may wake the session

    assert len(api.requests) == 4
    assert state(project)["arc"]["limit_resumes"] == 1
    assert kinds(project).count("limit-resume") == 1


def test_outside_an_arc_nothing_waits(claude_bin: Path, claude_project: Any) -> None:
    project = installed_project(claude_project)
    with ScriptedAPI() as api, interactive_claude(claude_bin, project, api, ENV) as cli:
        api.add(limited())
        cli.type("ship the importer")
        wait_for(lambda: "api-error" in kinds(project), 60, "the rate limit", cli)
        time.sleep(RESET_AHEAD_S + 3)

    assert len(api.requests) == 2
    assert "limit_wait" not in state(project)
    assert kinds(project) == ["api-error"]


def test_an_operator_prompt_cancels_a_pending_wait(claude_bin: Path, claude_project: Any) -> None:
    project = installed_project(claude_project)
    with ScriptedAPI() as api, interactive_claude(claude_bin, project, api, ENV) as cli:
        # Far enough ahead that the operator's prompt lands first, even on a busy machine.
        api.add(limited(ahead=12), text("Here is where the importer stands."))
        past_reset = time.time() + 12 + 3
        cli.type("/autonomous ship the importer")
        wait_for(lambda: "limit_wait" in state(project), 60, "the wait to start", cli)
        cli.type("where do we stand?")
        wait_for(lambda: len(api.requests) == 3, 60, "the operator's turn", cli)
        wait_for(lambda: "limit-cancel" in kinds(project), 60, "the cancellation", cli)
        time.sleep(max(0.0, past_reset - time.time()))  # a waiter left running would wake now

    assert len(api.requests) == 3
    assert not any(TASK_NOTIFICATION in p for p in prompts(api))
    assert "limit-cancel" in kinds(project) and "limit-resume" not in kinds(project)
