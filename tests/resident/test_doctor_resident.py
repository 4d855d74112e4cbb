"""doctor on a resident install: the server runs, is down, or someone else holds its port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from arcguard.resident import files
from arcguard.resident import server as resident_server


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "ARCGUARD_HOME": str(tmp_path / "state"),
        "ARCGUARD_CONFIG": str(tmp_path / "none.toml"),
    }


def _arcguard(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arcguard", *args],
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        cwd=tmp_path,
        timeout=120,
    )


def _resident_lines(tmp_path: Path) -> list[str]:
    out = _arcguard(tmp_path, "doctor").stdout
    return [line for line in out.splitlines() if "resident:" in line]


def test_install_resident_leaves_doctor_without_a_gap_saying_the_next_session_starts_it(tmp_path):
    assert (
        _arcguard(tmp_path, "install", "--resident", "--claude-version", "2.1.328").returncode == 0
    )
    [line] = _resident_lines(tmp_path)
    assert line.startswith("warn  resident: resident mode: server not running now; the next")
    doctor = _arcguard(tmp_path, "doctor")
    assert "arcguard serve &" in doctor.stdout
    assert "gap   resident" not in doctor.stdout


def test_doctor_names_another_listener_on_the_servers_port(tmp_path):
    _arcguard(tmp_path, "install", "--resident", "--claude-version", "2.1.328")
    port = files.port(str(tmp_path / "state"))
    assert port is not None
    with socket.socket() as squatter:
        squatter.bind((files.HOST, port))
        squatter.listen()
        [line] = _resident_lines(tmp_path)
    assert f"another process listens on 127.0.0.1:{port}" in line


def test_doctor_reports_a_running_server_and_a_secret_that_does_not_match(tmp_path):
    _arcguard(tmp_path, "install", "--resident", "--claude-version", "2.1.328")
    home = str(tmp_path / "state")
    box: list[Any] = []
    up = threading.Event()

    def ready(server: Any) -> None:
        box.append(server)
        up.set()

    thread = threading.Thread(
        target=resident_server.serve, args=(home, _env(tmp_path)), kwargs={"ready": ready}
    )
    thread.start()
    assert up.wait(10)
    try:
        [line] = _resident_lines(tmp_path)
        assert line.startswith(f"ok    resident: resident mode: server running (pid {os.getpid()}")
        (Path(home) / files.SECRET_NAME).write_text("0" * 64)
        lines = _resident_lines(tmp_path)
        assert any("is not the server's secret" in line for line in lines), lines
    finally:
        box[0].shutdown()
        thread.join(10)


def test_doctor_says_a_projects_arcguard_settings_are_ignored_in_resident_mode(tmp_path):
    _arcguard(tmp_path, "install", "--resident", "--claude-version", "2.1.328")
    project = tmp_path / ".claude" / "settings.json"
    project.parent.mkdir()
    project.write_text('{"env": {"ARCGUARD_REPEAT_LIMIT": "100"}}')
    lines = _resident_lines(tmp_path)
    assert any(
        "ARCGUARD_REPEAT_LIMIT set by" in line and "ignored in resident mode" in line
        for line in lines
    ), lines
