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
    assert again.returncode == 0, again.stderr
    rotated = _settings(tmp_path)
    assert rotated["env"][files.SECRET_ENV] == files.installed(str(tmp_path / "state"))[1]
    assert rotated["env"][files.SECRET_ENV] != token
    assert {**rotated, "env": settings["env"]} == settings  # nothing else changed


def test_plain_install_after_resident_puts_the_command_hooks_back_and_drops_the_secret(tmp_path):
    _arcguard(tmp_path, "install", "--resident", "--claude-version", "2.1.328")
    done = _arcguard(tmp_path, "install", "--claude-version", "2.1.328")
    assert done.returncode == 0, done.stderr
    settings = _settings(tmp_path)
    assert "env" not in settings
    assert all(h["type"] == "command" for e in EVENTS for h in _handlers(settings, e))
    assert plan.hook_name(_handlers(settings, "SessionStart")[0]) == "session-start"
    # Nothing wires resident mode any more: its secret goes, from the backup too.
    assert files.secret(str(tmp_path / "state")) is None
    backup = tmp_path / "home" / ".claude" / "settings.json.arcguard.bak"
    assert not backup.exists() or files.SECRET_ENV not in backup.read_text()


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


def _install_in_process(tmp_path: Path, monkeypatch: Any) -> list[tuple[int, bytes]]:
    """`install --resident` in this process; every write it makes, with the mode its file had
    at that moment."""
    from click.testing import CliRunner

    from arcguard.commands.install import install

    writes: list[tuple[int, bytes]] = []
    real_write = os.write

    def spy(fd: int, data: Any) -> int:
        writes.append((stat.S_IMODE(os.fstat(fd).st_mode), bytes(data)))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", spy)
    env = {"HOME": str(tmp_path / "home"), "ARCGUARD_HOME": str(tmp_path / "state")}
    done = CliRunner().invoke(install, ["--resident", "--claude-version", "2.1.328"], env=env)
    monkeypatch.undo()
    assert done.exit_code == 0, done.output
    return writes


def test_every_file_is_private_before_the_secret_is_written_and_each_install_makes_a_new_one(
    tmp_path, monkeypatch
):
    path = tmp_path / "home" / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"model": "opus"}')
    path.chmod(0o644)
    home = str(tmp_path / "state")
    secrets = []
    for _ in range(2):
        writes = _install_in_process(tmp_path, monkeypatch)
        secrets.append(files.installed(home)[1])
        for old in secrets:
            holding = [mode for mode, data in writes if old.encode() in data]
            # The first install: resident.secret and the settings file; the second also the
            # backup, which holds the first secret.
            assert holding and all(mode == 0o600 for mode in holding), holding
    assert secrets[0] != secrets[1]
    for name in (path, path.with_name(path.name + ".arcguard.bak")):
        assert stat.S_IMODE(name.stat().st_mode) == 0o600


_POLL = """
import glob, os, sys, time
folder, done = sys.argv[1], sys.argv[2]
seen = set()
while not os.path.exists(done):
    for name in glob.glob(os.path.join(folder, "*")):
        try:
            with open(name, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        if b"ARCGUARD_RESIDENT_TOKEN" in data:
            seen.add(name)
print("\\n".join(sorted(seen)))
"""


def test_another_user_polling_the_settings_file_never_reads_the_secret(tmp_path):
    if os.geteuid() != 0:
        import pytest

        pytest.skip("needs root, to run the reader as a second user (nobody)")
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="arcguard-xuser-"))
    try:
        base.chmod(0o755)
        claude = base / "home" / ".claude"
        claude.mkdir(parents=True)
        for folder in (base / "home", claude):
            folder.chmod(0o755)
        (claude / "settings.json").write_text('{"model": "opus"}')
        (claude / "settings.json").chmod(0o644)
        poller = subprocess.Popen(
            ["/usr/bin/python3", "-I", "-c", _POLL, str(claude), str(base / "done")],
            stdout=subprocess.PIPE,
            text=True,
            user=65534,
            group=65534,
        )
        for _ in range(3):
            done = _arcguard(base, "install", "--resident", "--claude-version", "2.1.328")
            assert done.returncode == 0, done.stderr
            assert _arcguard(base, "uninstall").returncode == 0
        (base / "done").touch()
        out, _ = poller.communicate(timeout=60)
        assert out.strip() == ""
    finally:
        import shutil

        shutil.rmtree(base, ignore_errors=True)


def test_resident_install_refuses_a_settings_file_linked_into_a_git_checkout(tmp_path):
    dotfiles = tmp_path / "dotfiles"
    (dotfiles / ".git").mkdir(parents=True)
    (dotfiles / "claude-settings.json").write_text('{"model": "opus"}')
    path = tmp_path / "home" / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.symlink_to(dotfiles / "claude-settings.json")
    done = _arcguard(tmp_path, "install", "--resident", "--claude-version", "2.1.328")
    assert done.returncode == 2
    assert "git checkout" in done.stderr and "committed" in done.stderr
    assert (dotfiles / "claude-settings.json").read_text() == '{"model": "opus"}'
    assert files.secret(str(tmp_path / "state")) is None
    # The command hooks hold no secret: they go in as before.
    assert _arcguard(tmp_path, "install", "--claude-version", "2.1.328").returncode == 0
