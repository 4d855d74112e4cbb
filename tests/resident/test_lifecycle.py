"""The resident server's life around upgrades and removal: a server running other code than the
installed one is named as such and replaced, it exits once its code is gone, and uninstall
stops it and takes away every file resident mode made. Each against a real server process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from testing import served
from testing.builders import run_hook

import arcguard
from arcguard.resident import files


def _copy_of_arcguard(tmp_path: Path) -> Path:
    """Another arcguard, as an upgrade leaves behind: the same code at another place."""
    root = tmp_path / "old"
    shutil.copytree(
        os.path.dirname(arcguard.__file__),
        root / "arcguard",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return root


def _arcguard(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arcguard", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "ARCGUARD_HOME": str(home), "HOME": str(home.parent / "home")},
        cwd=home.parent,
        timeout=120,
    )


def test_a_server_running_old_code_is_named_so_and_replaced_at_the_next_session_start(tmp_path):
    home = tmp_path / "state"
    old = served.start(home, PYTHONPATH=str(_copy_of_arcguard(tmp_path)))
    try:
        info = files.server_info(str(home))
        assert info is not None and files.stale(info)
        status = _arcguard(home, "status").stdout
        assert "server running" not in status
        assert "not the installed arcguard" in status
        payload = {"session_id": "s-1", "hook_event_name": "SessionStart", "source": "startup"}
        assert run_hook("serve-start", payload, home).returncode == 0
        assert old.process.wait(timeout=30) == 0  # stopped, cleanly
        assert served.wait_for(lambda: files.server_info(str(home)) is not None)
        info = files.server_info(str(home))
        assert info is not None and not files.stale(info) and info["pid"] != old.process.pid
        assert "server running (pid" in _arcguard(home, "status").stdout
    finally:
        old.stop()
        files.stop(str(home))


def test_a_server_whose_code_was_removed_exits_by_itself(tmp_path):
    home = tmp_path / "state"
    copy = _copy_of_arcguard(tmp_path)
    server = served.start(home, PYTHONPATH=str(copy))
    try:
        shutil.rmtree(copy)
        assert server.process.wait(timeout=60) == 0
        assert not files.running(str(home))
        assert "installed code changed" in (home / "arcguard.log").read_text()
    finally:
        server.stop()


def test_uninstall_stops_the_server_and_removes_every_file_resident_mode_made(tmp_path):
    home = tmp_path / "state"
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"model": "opus"}')
    for _ in range(2):  # the second install leaves a backup holding the first secret
        done = _arcguard(home, "install", "--resident", "--claude-version", "2.1.328")
        assert done.returncode == 0, done.stderr
    server = served.start(home)
    try:
        done = _arcguard(home, "uninstall")
        assert done.returncode == 0, done.stderr
        assert server.process.wait(timeout=30) == 0
    finally:
        server.stop()
    assert not home.exists()  # nothing else was ever in it, so it went too
    assert settings.read_text() == '{"model": "opus"}'
    backup = settings.with_name("settings.json.arcguard.bak")
    assert not backup.exists() or files.SECRET_ENV not in backup.read_text()


def _processes_of(home: Path) -> list[int]:
    """Pids of every process whose environment has HOME=`home` (this test's user folder)."""
    found = []
    marker = f"HOME={home}".encode()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if marker in environ and int(pid) != os.getpid():
            found.append(int(pid))
    return found


def test_full_removal_as_the_docs_give_it_leaves_nothing_of_arcguard(tmp_path):
    docs = (Path(__file__).parents[2] / "docs" / "installing.md").read_text()
    steps = docs.split("**Full removal**", 1)[1].split("\n\n", 2)[1]
    for step in ("`arcguard uninstall`", "~/.local/state/arcguard", "~/.config/arcguard"):
        assert step in steps
    user = tmp_path / "home"
    claude = user / ".claude"
    claude.mkdir(parents=True)
    (claude / "settings.json").write_text('{"model": "opus"}')
    config = user / ".config" / "arcguard"
    config.mkdir(parents=True)
    (config / "config.toml").write_text("repeat_limit = 3\n")
    env = {
        name: text
        for name, text in os.environ.items()
        if not name.startswith(("ARCGUARD_", "XDG_", "CLAUDE_"))
    }
    env["HOME"] = str(user)

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arcguard", *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=env,
            cwd=user,
            timeout=120,
        )

    assert (
        run("install", "--resident", "--statusline", "--claude-version", "2.1.328").returncode == 0
    )
    state = user / ".local" / "state" / "arcguard"
    start = '{"session_id": "s-1", "hook_event_name": "SessionStart", "source": "startup"}'
    assert run("hook", "serve-start", stdin=start).returncode == 0
    assert files.running(str(state)) and _processes_of(user)
    # 1. uninstall; 2. removing the package is left out (it is the code under test): what it
    # would leave behind is the server, which must be gone after step 1 already.
    done = run("uninstall")
    assert done.returncode == 0, done.stderr
    # 3. the state folder and the config folder; 4. any backup beside a settings file.
    shutil.rmtree(state, ignore_errors=True)
    shutil.rmtree(config)
    for backup in claude.glob("*.arcguard.bak"):
        backup.unlink()
    assert served.wait_for(lambda: not _processes_of(user), timeout=10), _processes_of(user)
    left = sorted(str(p.relative_to(user)) for p in user.rglob("*"))
    assert left == [".claude", ".claude/settings.json", ".config", ".local", ".local/state"]
    assert (claude / "settings.json").read_text() == '{"model": "opus"}'


def test_a_server_whose_state_folder_was_removed_exits_by_itself(tmp_path):
    home = tmp_path / "state"
    server = served.start(home)
    try:
        shutil.rmtree(home)
        assert server.process.wait(timeout=60) == 0
    finally:
        server.stop()
