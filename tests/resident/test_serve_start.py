"""The SessionStart hook of a resident install starts the server once, and only then."""

from __future__ import annotations

import os
import signal

from testing.builders import run_hook

from arcguard.hooks import serve_start
from arcguard.resident import files


def _stop(home: str) -> None:
    info = files.server_info(home)
    if info is not None:
        pid = info["pid"]
        assert isinstance(pid, int)
        os.kill(pid, signal.SIGTERM)


def test_it_starts_a_listening_server_when_none_runs_and_none_when_one_does(tmp_path):
    home = str(tmp_path / "state")
    port, _ = files.prepare(home)
    environ = {**os.environ, "ARCGUARD_HOME": home, "ARCGUARD_RESIDENT_IDLE_SECONDS": "30"}
    try:
        assert serve_start.ensure_server(home, environ, 10.0) is True
        assert serve_start._listening(port)  # it waited until the server listened
        assert files.running(home)
        assert serve_start.ensure_server(home, environ, 10.0) is False
    finally:
        _stop(home)


def test_without_a_resident_install_it_starts_nothing(tmp_path):
    home = str(tmp_path / "state")
    assert serve_start.ensure_server(home, dict(os.environ), 1.0) is False
    assert not files.running(home)


def test_the_hook_still_does_what_session_start_does(tmp_path):
    home = tmp_path / "state"
    files.prepare(str(home))
    payload = {"session_id": "s-1", "hook_event_name": "SessionStart", "source": "startup"}
    try:
        done = run_hook("serve-start", payload, home, ARCGUARD_RESIDENT_IDLE_SECONDS="30")
        plain = run_hook("session-start", payload, tmp_path / "other")
        assert (done.returncode, done.stdout) == (plain.returncode, plain.stdout)
        assert files.running(str(home))
    finally:
        _stop(str(home))
