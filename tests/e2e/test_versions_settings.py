"""A settings file naming a hook event the release does not know is ignored whole.

On a release older than PostToolBatch, one PostToolBatch entry in the user's settings file
switches off everything else in that file, the user's own permission rules included, without
a word in ``-p`` mode. arcguard's settings for such a release must leave the event out; then
the user's deny rule keeps working and arcguard's other hooks fire.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use

from conftest import WINDOW_RELEASES
from conftest import ClaudeProject
from conftest import ClaudeRelease
from conftest import ClaudeRun
from conftest import _run
from conftest import arcguard_settings_for
from conftest import arcguard_state
from conftest import hook_settings
from conftest import install_autonomous_command
from conftest import knows_post_tool_batch
from conftest import log_kinds
from conftest import release_bin


# The oldest supported release predates PostToolBatch, which is what these tests need.
OLD = WINDOW_RELEASES["oldest"]
USER_DENY = {"permissions": {"deny": ["Bash(echo one)"]}}
STALL_REASON = "[arcguard] Autonomous arc 'ship the importer' is still active"


@pytest.fixture(scope="module")
def old_release() -> ClaudeRelease:
    binary = release_bin(OLD)
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        message = f"Claude Code {OLD} not installed at {binary}; run .ci/run"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    assert not knows_post_tool_batch(OLD), f"{OLD} knows PostToolBatch; pick an older release"
    return ClaudeRelease(role="oldest", version=OLD, binary=binary)


def write_user_settings(project: ClaudeProject, settings: dict[str, Any]) -> None:
    path = project.home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2) + "\n")


def install_arcguard_for(project: ClaudeProject, version: str) -> None:
    """What `arcguard install` writes for ``version`` into the user's settings file.

    Built here from the hook table, leaving out the events ``version`` does not know, and
    merged with the user's own keys as install merges them.
    """
    path = project.home / ".claude" / "settings.json"
    settings = json.loads(path.read_text()) if path.exists() else {}
    settings.update(arcguard_settings_for(version))
    write_user_settings(project, settings)
    install_autonomous_command(project)


def echo_one(release: ClaudeRelease, project: ClaudeProject, final: str) -> ClaudeRun:
    with ScriptedAPI([tool_use("Bash", {"command": "echo one"}), text(final)]) as api:
        run = _run(release.binary, project, api, "/autonomous ship the importer")
        assert run.returncode == 0, run.describe()
        assert len(api.requests) >= 2, run.describe()
        [result] = api.tool_results(1)
    run.result = {**(run.result or {}), "tool_result": result}
    return run


def ran(run: ClaudeRun) -> bool:
    """The Bash call ran and printed ``one`` (rather than being refused)."""
    result = (run.result or {})["tool_result"]
    content = result["content"]
    return not result.get("is_error") and "one" in json.dumps(content)


def test_user_deny_rule_applies_on_the_old_release(claude_project, old_release):
    project = claude_project()
    install_autonomous_command(project)
    write_user_settings(project, USER_DENY)

    assert not ran(echo_one(old_release, project, "done"))


def test_one_post_tool_batch_entry_switches_the_user_settings_off(claude_project, old_release):
    project = claude_project()
    install_autonomous_command(project)
    logged = project.root / "batch.log"
    settings = {**USER_DENY, **hook_settings({"PostToolBatch": f"cat >> {logged}"})}
    write_user_settings(project, settings)

    # The deny rule stopped applying: the whole file was dropped, the unknown event with it.
    assert ran(echo_one(old_release, project, "done"))
    assert not logged.exists()


def test_arcguard_settings_for_the_release_keep_the_user_deny(claude_project, old_release):
    project = claude_project()
    write_user_settings(project, USER_DENY)
    install_arcguard_for(project, old_release.version)
    assert "PostToolBatch" not in Path(project.home, ".claude", "settings.json").read_text()

    run = echo_one(old_release, project, "No response requested.")

    assert not ran(run)
    # arcguard's hooks fired from the same file: the arc started and the no-op stop was sent
    # back to work.
    state = arcguard_state(project, run.session_id)
    assert log_kinds(state)[:2] == ["arc", "continue"]
