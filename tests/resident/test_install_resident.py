"""`install --resident` and `uninstall`: the http wiring, the secret, and the way back."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from arcguard.claude_settings import merge_plan as plan
from arcguard.hooks import EVENTS
from arcguard.resident import files


def _arcguard(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "ARCGUARD_HOME": str(tmp_path / "state"),
        "PATH": os.environ.get("PATH", ""),
    }
    return subprocess.run(
        [sys.executable, "-m", "arcguard", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )


def _settings(tmp_path: Path) -> dict[str, Any]:
    return json.loads((tmp_path / "home" / ".claude" / "settings.json").read_text())


def _handlers(settings: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [h for g in settings["hooks"][event] for h in g["hooks"]]


def test_resident_install_wires_http_hooks_with_the_secret_from_the_environment(tmp_path):
    done = _arcguard(tmp_path, "install", "--resident", "--claude-version", "2.1.328")
    assert done.returncode == 0, done.stderr
    settings = _settings(tmp_path)
    port, token = files.installed(str(tmp_path / "state"))
    assert settings["env"] == {files.SECRET_ENV: token}
    for event in EVENTS:
        first = _handlers(settings, event)[0]
        if event == "SessionStart":
            assert first["type"] == "command" and plan.hook_name(first) == "serve-start"
            continue
        assert first == {
            "type": "http",
            "url": f"http://127.0.0.1:{port}/hook/{event}",
            "headers": {files.SECRET_HEADER: f"${files.SECRET_ENV}"},
            "allowedEnvVars": [files.SECRET_ENV],
            "timeout": plan.HOOK_TIMEOUT,
        }
        assert token not in json.dumps(first)
    # The limit waiter stays a background command hook.
    assert [h.get("async") for h in _handlers(settings, "StopFailure")] == [None, True]
    path = tmp_path / "home" / ".claude" / "settings.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for name in (files.SECRET_NAME, files.SETTINGS_NAME):
        assert stat.S_IMODE((tmp_path / "state" / name).stat().st_mode) == 0o600
    again = _arcguard(tmp_path, "install", "--resident", "--claude-version", "2.1.328")
    assert "already installed" in again.stdout
    assert _settings(tmp_path) == settings


def test_plain_install_after_resident_puts_the_command_hooks_back_and_drops_the_secret(tmp_path):
    _arcguard(tmp_path, "install", "--resident", "--claude-version", "2.1.328")
    done = _arcguard(tmp_path, "install", "--claude-version", "2.1.328")
    assert done.returncode == 0, done.stderr
    settings = _settings(tmp_path)
    assert "env" not in settings
    assert all(h["type"] == "command" for e in EVENTS for h in _handlers(settings, e))
    assert plan.hook_name(_handlers(settings, "SessionStart")[0]) == "session-start"


def test_uninstall_removes_the_resident_wiring_and_the_secret_only(tmp_path):
    path = tmp_path / "home" / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    own = {"type": "http", "url": "http://127.0.0.1:9999/hook/PreToolUse"}
    original = {"env": {"KEEP": "1"}, "hooks": {"PreToolUse": [{"hooks": [own]}]}}
    path.write_text(json.dumps(original))
    _arcguard(tmp_path, "install", "--resident", "--claude-version", "2.1.328")
    done = _arcguard(tmp_path, "uninstall")
    assert done.returncode == 0, done.stderr
    assert _settings(tmp_path) == original


def test_resident_install_refuses_the_project_scope(tmp_path):
    done = _arcguard(tmp_path, "install", "--resident", "--scope", "project")
    assert done.returncode == 2
    assert "committed" in done.stderr
    assert not (tmp_path / ".claude" / "settings.json").exists()


def test_a_hand_made_http_hook_is_not_taken_for_arcguards():
    port = 45678
    ours = plan.resident_handler("Stop", port)
    assert plan.resident_port(ours) == port
    assert plan.resident_port({**ours, "timeout": 30}) == port
    for other in (
        {**ours, "url": f"http://127.0.0.1:{port}/hook/Stop?x"},
        {**ours, "url": f"http://localhost:{port}/hook/Stop"},
        {**ours, "headers": {files.SECRET_HEADER: "literal"}},
        {**ours, "allowedEnvVars": ["OTHER"]},
        {**ours, "url": f"http://127.0.0.1:{port}/hook/Nope"},
        {**ours, "extra": 1},
    ):
        assert plan.resident_port(other) is None
