"""The core of arcguard against each release of the support window, not only the pinned one.

Each test runs once per release in ``WINDOW_RELEASES`` (``claude_release`` fixture), with
arcguard's hooks written as a settings file that release accepts and the /autonomous command
installed (older releases reject a slash command they do not know). A release that is not
installed is skipped locally and fails under CI, where `.ci/run` installs it.
"""

from __future__ import annotations

import re
from typing import Any

import claude_versions
from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use
from testing.docs import user_docs

from arcguard.claude_settings import releases
from conftest import POST_TOOL_BATCH_FIRST
from conftest import REPO_ROOT
from conftest import WINDOW_RELEASES
from conftest import ClaudeProject
from conftest import ClaudeRelease
from conftest import ClaudeRun
from conftest import arcguard_settings_for
from conftest import arcguard_state
from conftest import install_autonomous_command
from conftest import log_kinds
from conftest import version_key


NOOP = "No response requested."
STALL_REASON = "[arcguard] Autonomous arc 'ship the importer' is still active"
DENIED = "[arcguard] Denied as a repeat"
PAUSED = "arcguard paused this session"
# The first release whose Stop hooks continue a session with additionalContext.
STOP_CONTEXT_FIRST = "2.1.163"


def project_for(claude_project: Any, release: ClaudeRelease) -> ClaudeProject:
    project: ClaudeProject = claude_project(arcguard_settings_for(release.version))
    install_autonomous_command(project)
    return project


def bash(command: str) -> dict[str, Any]:
    return tool_use("Bash", {"command": command})


def completed(run: ClaudeRun, reason: str = "completed") -> None:
    assert run.returncode == 0, run.describe()
    assert run.result is not None, run.describe()
    # Older releases print no terminal_reason; where they do, it must match.
    assert run.result.get("terminal_reason", reason) == reason, run.describe()


def tool_result_text(api: ScriptedAPI, index: int) -> tuple[bool, str]:
    [result] = api.tool_results(index)
    content = result["content"]
    if not isinstance(content, str):
        content = " ".join(str(block.get("text", "")) for block in content)
    return bool(result.get("is_error")), content


def test_window_noop_stop_mid_arc_is_continued(claude_project, run_release, claude_release):
    project = project_for(claude_project, claude_release)
    script = [text(NOOP), text("Back on the importer: parsing the CSV header now.")]
    with ScriptedAPI(script) as api:
        run = run_release(project, api, "/autonomous ship the importer")

    completed(run)
    assert len(api.requests) == 2, run.describe()
    continued = api.request_text(1)
    assert STALL_REASON in continued
    if version_key(claude_release.version) >= version_key(STOP_CONTEXT_FIRST):
        # One more turn, as a reminder: no error label, no hook command line quoted.
        assert "Stop hook additional context: [arcguard]" in continued
        assert "Stop hook blocking error" not in continued and "hook stop" not in continued
    else:
        assert "Stop hook feedback:\n[arcguard]" in continued
    state = arcguard_state(project, run.session_id)
    assert state["arc"]["active"] is True
    assert log_kinds(state) == ["arc", "continue"]


def test_window_completion_releases_the_arc(claude_project, run_release, claude_release):
    project = project_for(claude_project, claude_release)
    with ScriptedAPI([text(NOOP), text("The arc is complete.")]) as api:
        run = run_release(project, api, "/autonomous ship the importer")

    completed(run)
    assert len(api.requests) == 2, run.describe()
    assert api.fallback_count == 0
    state = arcguard_state(project, run.session_id)
    assert state["arc"]["active"] is False
    assert state["arc"]["completed_at"]
    assert log_kinds(state) == ["arc", "continue", "release"]


def test_window_done_right_after_a_failed_call_is_sent_back(
    claude_project, run_release, claude_release
):
    # Each release writes the failed call's result (is_error) before the final message.
    project = project_for(claude_project, claude_release)
    script = [
        bash("echo 'packages/shared: 3 errors' && exit 1"),
        text("Web and api lint clean. Migration's done."),
        bash("echo 'lint clean in 3 packages'"),
        text("Lint is clean in every package. The arc is complete."),
    ]
    with ScriptedAPI(script) as api:
        run = run_release(project, api, "/autonomous ship the importer")

    completed(run)
    assert len(api.requests) == 4, run.describe()
    assert "done right after a call failed" in api.request_text(2)
    state = arcguard_state(project, run.session_id)
    assert log_kinds(state) == ["arc", "continue", "release"]
    assert state["log"][1]["rule"] == "unverified"


def test_window_a_stop_before_the_named_check_passed_is_sent_back(
    claude_project, run_release, claude_release
):
    # Each release reports a failed run as a failure (PostToolUseFailure, or no PostToolUse),
    # so the failed `make test` is no pass: the claim is sent back; the passing run after the
    # fix lets the next one complete the arc.
    project = project_for(claude_project, claude_release)
    makefile = str(project.path / "Makefile")
    script = [
        tool_use("Write", {"file_path": makefile, "content": "test:\n\tfalse\n"}),
        bash("make test"),
        bash("echo importer ready"),
        text("The importer is fixed. The arc is complete."),
        tool_use("Write", {"file_path": makefile, "content": "test:\n\ttrue\n"}),
        bash("make test"),
        text("The tests pass. The arc is complete."),
    ]
    with ScriptedAPI(script) as api:
        run = run_release(project, api, "/autonomous ship the importer until `make test` passes")

    completed(run)
    assert len(api.requests) == 7, run.describe()
    assert "before the checks the task names passed" in api.request_text(4)
    state = arcguard_state(project, run.session_id)
    assert log_kinds(state) == ["arc", "continue", "release"]
    assert state["log"][1]["rule"] == "unchecked"


def test_window_third_identical_call_is_denied(claude_project, run_release, claude_release):
    project = project_for(claude_project, claude_release)
    with ScriptedAPI([*(bash("ls build-output") for _ in range(3)), text("Stopping here.")]) as api:
        run = run_release(project, api, "get the build green")

    completed(run)
    assert len(api.requests) == 4, run.describe()
    for index in (1, 2):
        is_error, content = tool_result_text(api, index)
        assert is_error and "build-output" in content and "arcguard" not in content
    is_error, content = tool_result_text(api, 3)
    assert is_error and DENIED in content, content
    state = arcguard_state(project, run.session_id)
    assert log_kinds(state) == ["deny"]


def test_window_alternating_calls_are_paused(claude_project, run_release, claude_release):
    project = project_for(claude_project, claude_release)
    runs = project.path / "runs.txt"
    call_a, call_b = "echo A >> runs.txt", "echo B >> runs.txt"
    with ScriptedAPI([bash(call) for _ in range(15) for call in (call_a, call_b)]) as api:
        run = run_release(project, api, "get the build green")

    # As on the pinned release: A and B run twice each, are denied once each, then the pause.
    assert runs.read_text().split() == ["A", "B", "A", "B"]
    # Every turn is seen, however late Claude Code flushes a call's entry to the transcript
    # (without the wait for it, a turn was sometimes missed and the pause came late or never).
    state = arcguard_state(project, run.session_id)
    assert state["guard"]["paused"]["kind"] == "cycle"
    assert log_kinds(state) == ["deny", "deny", "pause"]
    if claude_release.knows_post_tool_batch:
        completed(run, "hook_stopped")
        assert len(api.requests) == 6, run.describe()
        return
    # Without PostToolBatch the sixth turn closes when the seventh call arrives, and the pause
    # denies it. That release ends no session for a denied call (measured), so the pause holds
    # by denying every later call until the model gives up.
    completed(run)
    results = [tool_result_text(api, index) for index in range(5, len(api.requests))]
    assert all(is_error for is_error, _ in results), results
    first = next(i for i, (_, content) in enumerate(results) if PAUSED in content)
    assert all(PAUSED in content for _, content in results[first:]), results


def test_ci_installs_the_window_releases():
    # CI must install exactly the releases these tests are parameterised over, or they fail.
    ci = (REPO_ROOT / ".ci" / "run").read_text()
    pins = dict(re.findall(r'^CLAUDE_CODE_(OLDEST|NEWEST)="([^"]+)"$', ci, re.MULTILINE))
    assert {k.lower(): v for k, v in pins.items()} == WINDOW_RELEASES


def test_post_tool_batch_first_release_is_the_measured_one():
    first, without = claude_versions.first_measured("PostToolBatch", claude_versions.load_results())
    assert (first, without) == (POST_TOOL_BATCH_FIRST, "2.1.117")


def test_readme_version_table_is_the_measured_one():
    rows = claude_versions.table_rows(claude_versions.load_results())
    assert "\n".join(rows) in user_docs(), "\n".join(rows)


def test_stop_context_first_release_is_the_measured_one():
    first, without = claude_versions.first_measured(
        "Stop additionalContext", claude_versions.load_results()
    )
    assert (first, without) == (STOP_CONTEXT_FIRST, "2.1.162")
    assert releases.dotted(releases.STOP_CONTEXT_SINCE) == STOP_CONTEXT_FIRST
