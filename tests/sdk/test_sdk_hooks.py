"""`arcguard.sdk`: the hooks an Agent SDK application gets, run in-process as the SDK runs
them (an awaited callback per event), without the CLI (tests/e2e/test_sdk.py runs the CLI)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest


claude_agent_sdk = pytest.importorskip("claude_agent_sdk")

import arcguard.sdk  # noqa: E402
from arcguard.claude_settings import merge_plan  # noqa: E402
from arcguard.core.state import fresh_state  # noqa: E402
from arcguard.sdk import guard as sdk_guard  # noqa: E402
from arcguard.storage import cost  # noqa: E402
from arcguard.storage import paths  # noqa: E402


SID = "0c5e7a10-0000-4000-8000-00000000cafe"
DAY = 86400


def _call(hooks, event, payload):
    [matcher] = hooks[event]
    [callback] = matcher.hooks
    return asyncio.run(callback({"session_id": SID, **payload}, None, {"signal": None}))


def _bash(n, command):
    return {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": f"toolu_{n}"}


def test_every_event_but_session_start_is_wired_with_the_matchers_install_writes(tmp_path):
    hooks = arcguard.sdk.hooks(cwd=tmp_path)
    assert set(hooks) == set(sdk_guard.SDK_EVENTS)
    assert "SessionStart" not in hooks and {"PostToolBatch", "StopFailure"} <= set(hooks)
    assert hooks["PostToolUse"][0].matcher == merge_plan.EDIT_TOOLS_MATCHER
    assert hooks["PreToolUse"][0].matcher == "*"
    assert hooks["Stop"][0].matcher is None


def test_a_third_identical_call_with_the_same_outcome_is_denied(tmp_path):
    hooks = arcguard.sdk.hooks(cwd=tmp_path)
    answers = _three_identical_calls(hooks)
    assert answers[:2] == [{}, {}]
    assert answers[2]["hookSpecificOutput"]["permissionDecision"] == "deny"
    runs = cost.read(os.environ["ARCGUARD_HOME"])
    assert len(runs[cost.SDK, "pre-tool"]) == 3


def _three_identical_calls(hooks):
    """The PreToolUse answers to `make test` run three times, failing alike each time."""
    answers = []
    for n in range(3):
        call = _bash(n, "make test")
        answers.append(_call(hooks, "PreToolUse", {"hook_event_name": "PreToolUse", **call}))
        batch = [{**call, "tool_response": "3 failing"}]
        _call(hooks, "PostToolBatch", {"hook_event_name": "PostToolBatch", "tool_calls": batch})
    return answers


def _third_call_denied(hooks):
    return "hookSpecificOutput" in _three_identical_calls(hooks)[2]


def test_settings_given_as_arguments_and_in_the_environment_govern_the_decisions(
    tmp_path, monkeypatch
):
    # As in the CLI: the environment over the config file, the arguments over both.
    assert not _third_call_denied(arcguard.sdk.hooks({"repeat_limit": 3}, cwd=tmp_path))
    monkeypatch.setenv("ARCGUARD_REPEAT_LIMIT", "5")
    state = Path(paths.session_path(os.environ["ARCGUARD_HOME"], SID))
    state.unlink()
    assert not _third_call_denied(arcguard.sdk.hooks(cwd=tmp_path))
    state.unlink()
    assert _third_call_denied(arcguard.sdk.hooks({"repeat_limit": 2}, cwd=tmp_path))


def test_the_handler_runs_off_the_event_loop(tmp_path, monkeypatch):
    threads = []
    monkeypatch.setattr(
        sdk_guard.runner,
        "dispatch",
        lambda hook, raw, ctx: threads.append(threading.get_ident()) or None,
    )
    hooks = arcguard.sdk.hooks(cwd=tmp_path)

    async def main():
        [callback] = hooks["PreToolUse"][0].hooks
        await callback({"session_id": SID}, None, {"signal": None})
        return threading.get_ident()

    loop_thread = asyncio.run(main())
    assert threads and threads[0] != loop_thread


def test_a_failure_is_no_decision_and_one_log_line(tmp_path, monkeypatch):
    def broken(self, event, raw):
        raise RuntimeError("boom")

    monkeypatch.setattr(sdk_guard.server.Resident, "answer", broken)
    hooks = arcguard.sdk.hooks(cwd=tmp_path)
    assert _call(hooks, "PreToolUse", {"hook_event_name": "PreToolUse", **_bash(1, "ls")}) == {}
    log = Path(paths.error_log(os.environ["ARCGUARD_HOME"])).read_text()
    assert "sdk PreToolUse" in log and "RuntimeError: boom" in log


def test_a_sessions_first_event_prunes_old_state_as_session_start_does(tmp_path):
    home = os.environ["ARCGUARD_HOME"]
    old = Path(paths.session_path(home, "old-one"))
    old.parent.mkdir(parents=True)
    old.write_text(json.dumps(fresh_state("old-one", time.time() - 40 * DAY)))
    os.utime(old, (time.time() - 40 * DAY,) * 2)
    hooks = arcguard.sdk.hooks(cwd=tmp_path)
    _call(hooks, "UserPromptSubmit", {"hook_event_name": "UserPromptSubmit", "prompt": "go"})
    assert not old.exists()


def test_a_resumed_sessions_first_event_restates_its_arc(tmp_path):
    first = arcguard.sdk.hooks(cwd=tmp_path)
    _call(
        first,
        "UserPromptSubmit",
        {"hook_event_name": "UserPromptSubmit", "prompt": "/autonomous ship it"},
    )
    # A new application process resumes the session: its first event is a resume.
    again = arcguard.sdk.hooks(cwd=tmp_path)
    out = _call(again, "PreToolUse", {"hook_event_name": "PreToolUse", **_bash(1, "ls")})
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "[arcguard] Autonomous arc" in context
    assert out["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    state = json.loads(Path(paths.session_path(os.environ["ARCGUARD_HOME"], SID)).read_text())
    assert state["events"]["session_start:resume"] == 1


def _user_settings(settings):
    path = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))
    return path


def test_hooks_refuse_when_the_user_settings_wire_arcguard(tmp_path):
    path = _user_settings(merge_plan.plan_install({}, "arcguard", ["PreToolUse", "Stop"]))
    with pytest.raises(arcguard.sdk.DoubleWiring) as refused:
        arcguard.sdk.hooks(cwd=tmp_path)
    assert str(path) in str(refused.value)
    assert "PreToolUse" in {event for _, event in refused.value.found}
    # Leaving the user's settings out of what the CLI loads is one guard again.
    assert arcguard.sdk.hooks(cwd=tmp_path, setting_sources=["project"])


def test_resident_http_hooks_in_project_settings_count_too(tmp_path):
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    hooks = {"PreToolUse": [{"hooks": [merge_plan.resident_handler("PreToolUse", 43123)]}]}
    settings.write_text(json.dumps({"hooks": hooks}))
    with pytest.raises(arcguard.sdk.DoubleWiring):
        arcguard.sdk.options(claude_agent_sdk.ClaudeAgentOptions(cwd=tmp_path))
    assert arcguard.sdk.options(
        claude_agent_sdk.ClaudeAgentOptions(cwd=tmp_path, setting_sources=[])
    )


def test_options_keep_the_apps_own_hooks_first_and_point_the_cli_at_the_same_state(tmp_path):
    async def mine(payload, tool_use_id, context):
        return {}

    own = claude_agent_sdk.HookMatcher(matcher="Bash", hooks=[mine])
    base = claude_agent_sdk.ClaudeAgentOptions(
        cwd=tmp_path, hooks={"PreToolUse": [own]}, env={"X": "1"}
    )
    merged = arcguard.sdk.options(base, {"blocked_rounds_pause": 4})
    assert merged.hooks["PreToolUse"][0] is own and len(merged.hooks["PreToolUse"]) == 2
    assert merged.env["X"] == "1"
    assert merged.env["ARCGUARD_HOME"] == os.path.abspath(os.environ["ARCGUARD_HOME"])
    assert merged.env["ARCGUARD_BLOCKED_ROUNDS_PAUSE"] == "4"
    assert base.hooks == {"PreToolUse": [own]}  # the app's options are left as they were


@pytest.mark.parametrize(
    ("settings", "problem"),
    [
        ({"no_such_key": 1}, "unknown setting"),
        ({"blocked_rounds_pause": "many"}, "blocked_rounds_pause"),
    ],
)
def test_a_setting_given_as_an_argument_is_never_ignored(tmp_path, settings, problem):
    with pytest.raises(ValueError, match=problem):
        arcguard.sdk.hooks(settings, cwd=tmp_path)


def test_wait_for_limit_reads_the_reset_with_arcguards_parser(monkeypatch):
    slept = []

    async def sleep(seconds):
        slept.append(seconds)

    monkeypatch.setattr(arcguard.sdk.limits.asyncio, "sleep", sleep)
    soon = int(time.time()) + 60
    waited = asyncio.run(arcguard.sdk.wait_for_limit(f"Claude AI usage limit reached|{soon}"))
    assert waited is not None and 60 <= waited < 60 + 600 and slept == [waited]
    assert arcguard.sdk.limit_reset("no time here") is None
    assert asyncio.run(arcguard.sdk.wait_for_limit("no time here")) is None
    far = int(time.time()) + 3 * DAY
    assert (
        asyncio.run(arcguard.sdk.wait_for_limit(f"usage limit reached|{far}", max_seconds=3600))
        is None
    )
    assert slept == [waited]


def test_no_hook_imports_the_sdk():
    payload = json.dumps({"session_id": SID, **_bash(1, "ls")}).encode()
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "arcguard", "hook", "pre-tool"],
        input=payload,
        capture_output=True,
        check=True,
    )
    loaded = {line.split("|")[-1].strip() for line in done.stderr.decode().splitlines()}
    assert not {m for m in loaded if m.startswith(("claude_agent_sdk", "arcguard.sdk"))}


def _doctor_lines(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "arcguard", "doctor"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    return [line for line in done.stdout.splitlines() if "sdk:" in line]


def test_doctor_knows_sdk_mode_and_warns_of_settings_that_would_refuse_it(tmp_path):
    assert _doctor_lines(tmp_path) == []  # no SDK application ran here
    hooks = arcguard.sdk.hooks(cwd=tmp_path)
    _call(hooks, "PreToolUse", {"hook_event_name": "PreToolUse", **_bash(1, "ls")})
    [line] = _doctor_lines(tmp_path)
    assert "Agent SDK applications ran arcguard's hooks here (runs in cost.log: 1)" in line
    _user_settings(merge_plan.plan_install({}, "arcguard", ["PreToolUse"]))
    lines = _doctor_lines(tmp_path)
    assert any("the user settings wire arcguard too" in line for line in lines), lines
