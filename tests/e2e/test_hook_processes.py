"""How many hook processes Claude Code starts per tool call with arcguard's wiring.

Every arcguard command of the wiring `arcguard install` writes is swapped for a logging hook, so
the count is Claude Code's own: which events fire, for which tools. Where PostToolBatch reports
every result, a call that succeeds costs two processes (PreToolUse, and its share of the batch;
one call per turn here, the worst case) instead of three; an edit or a failure adds the one
event that carries what the batch lacks.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use

from conftest import ClaudeRelease
from conftest import all_arcguard_settings
from conftest import payload_log


TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch")
CALLS = 10


def _logged(settings: dict[str, Any], command: str) -> dict[str, Any]:
    for groups in settings["hooks"].values():
        for group in groups:
            for handler in group["hooks"]:
                handler["command"] = command
    return settings


def _script() -> list[Any]:
    calls = [tool_use("Bash", {"command": f"echo step {n}"}) for n in range(CALLS)]
    return [
        *calls,
        tool_use("Write", {"file_path": "notes.txt", "content": "x"}),
        tool_use("Bash", {"command": "exit 3"}),
        text("Done."),
    ]


def _count(claude_project: Any, run: Any, settings: dict[str, Any]) -> Counter[str]:
    project = claude_project({})
    log = payload_log(project)
    project.write_settings(_logged(settings, log.command()))
    with ScriptedAPI(_script()) as api:
        result = run(project, api)
    assert result.returncode == 0, result.describe()
    return Counter(e for e in log.events() if e in TOOL_EVENTS)


def test_with_the_batch_a_successful_call_starts_two_hook_processes(claude_project, run_claude):
    counts = _count(
        claude_project, lambda p, api: run_claude(p, api, "go"), all_arcguard_settings()
    )
    # Twelve calls: ten Bash, one Write (an edit: PostToolUse), one failing Bash.
    assert counts == {
        "PreToolUse": CALLS + 2,
        "PostToolBatch": CALLS + 2,
        "PostToolUse": 1,
        "PostToolUseFailure": 1,
    }
    assert (counts["PreToolUse"] + counts["PostToolBatch"]) / (CALLS + 2) == 2


def test_every_tool_on_post_tool_use_costs_a_third_process(claude_project, run_claude):
    # The wiring before PostToolUse was narrowed to the editing tools, for comparison.
    settings = all_arcguard_settings()
    settings["hooks"]["PostToolUse"][0]["matcher"] = "*"
    counts = _count(claude_project, lambda p, api: run_claude(p, api, "go"), settings)
    assert counts == {
        "PreToolUse": CALLS + 2,
        "PostToolBatch": CALLS + 2,
        "PostToolUse": CALLS + 1,
        "PostToolUseFailure": 1,
    }


def test_without_the_batch_post_tool_use_reports_every_call(
    claude_project, run_release, claude_release: ClaudeRelease
):
    counts = _count(
        claude_project,
        lambda p, api: run_release(p, api, "go"),
        all_arcguard_settings(claude_release.version),
    )
    if claude_release.knows_post_tool_batch:
        assert counts["PostToolUse"] == 1
        return
    assert counts == {"PreToolUse": CALLS + 2, "PostToolUse": CALLS + 1, "PostToolUseFailure": 1}
