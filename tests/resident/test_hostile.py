"""The resident server against clients that do not play by the rules: slow, silent, or a
request that outruns its own budget. Each runs against a real `arcguard serve` process.

A client's timeout is set to the hook budget, as Claude Code's is: "answered" here means
answered before the client gave up, which is what a hook needs.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest
from testing import served
from testing.builders import write_transcript

from arcguard.resident import files


BUDGET_S = 2.0  # the default hook budget
SESSION_A = "7c2d0b1e-0000-4000-8000-0000000000aa"
SESSION_B = "7c2d0b1e-0000-4000-8000-0000000000bb"


@pytest.fixture
def server(tmp_path: Path):
    running = served.start(tmp_path / "state", ARCGUARD_CONFIG=str(tmp_path / "none.toml"))
    yield running
    running.stop()


def _trickle(port: int, stop: threading.Event, opened: list[socket.socket]) -> None:
    """A client that sends its request a byte at a time, slowly, for as long as it can."""
    sock = socket.create_connection((files.HOST, port), timeout=5)
    opened.append(sock)
    request = b"POST /hook/PreToolUse HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
    try:
        for byte in request:
            if stop.wait(0.3):
                return
            sock.sendall(bytes([byte]))
    except OSError:
        pass  # the server hung up on it: the point


def test_slow_clients_cannot_starve_authenticated_requests(server, tmp_path):
    stop = threading.Event()
    opened: list[socket.socket] = []
    trickles = [
        threading.Thread(target=_trickle, args=(server.port, stop, opened)) for _ in range(20)
    ]
    for thread in trickles:
        thread.start()
    # And more silent connections than the server keeps for clients still sending.
    silent = [socket.create_connection((files.HOST, server.port)) for _ in range(300)]
    try:
        time.sleep(0.5)  # every slow client is connected and sending
        transcript = write_transcript(tmp_path / "a.jsonl", [])
        decisions = [
            served.bash_call(server, transcript, SESSION_A, n, "make test", timeout=BUDGET_S)
            for n in range(3)
        ]
        assert decisions == [None, None, "deny"]
    finally:
        stop.set()
        for thread in trickles:
            thread.join(10)
        for sock in silent + opened:
            sock.close()


# Run in the server process: the first update of SESSION_A that finds a state file (so it holds
# the session's lock) spins in Python for far longer than any budget, as a pathological payload
# would.
SPIN_ONCE = f"""
import time
from arcguard.hooks import runner
_update = runner.Context.update
_spun = []
def update(self, session_id, change):
    def slow(state):
        if session_id == {SESSION_A!r} and state is not None and not _spun:
            _spun.append(1)
            end = time.monotonic() + 60
            while time.monotonic() < end:
                pass
        return change(state)
    return _update(self, session_id, slow)
runner.Context.update = update
"""


def test_a_request_past_its_budget_releases_the_session_lock(tmp_path):
    server = served.start(
        tmp_path / "state", patch=SPIN_ONCE, ARCGUARD_CONFIG=str(tmp_path / "none.toml")
    )
    try:
        a = write_transcript(tmp_path / "a.jsonl", [])
        b = write_transcript(tmp_path / "b.jsonl", [])
        # The spinning request gets no decision, in budget.
        assert served.bash_call(server, a, SESSION_A, 0, "ls", timeout=BUDGET_S + 1) is None
        # Its session goes on as if it had not happened: the repeat is denied on its 3rd run,
        # which needs every one of these updates to have had the lock.
        decisions = [
            served.bash_call(server, a, SESSION_A, n, "make test", timeout=BUDGET_S)
            for n in range(1, 4)
        ]
        assert decisions == [None, None, "deny"]
        # And another session is answered as usual.
        decisions = [
            served.bash_call(server, b, SESSION_B, n, "make test", timeout=BUDGET_S)
            for n in range(3)
        ]
        assert decisions == [None, None, "deny"]
        assert "wall budget exceeded" in (tmp_path / "state" / "arcguard.log").read_text()
    finally:
        server.stop()


def test_one_projects_arcguard_environment_does_not_govern_another_projects_sessions(tmp_path):
    home = tmp_path / "state"
    files.prepare(str(home), str(tmp_path / "none.toml"))  # the config install recorded
    # The first session to start the server came from a project whose settings `env` block
    # raises the repeat limit, directly and through a config file of its own.
    (tmp_path / "project-a.toml").write_text("repeat_limit = 100\n")
    server = served.start(
        home, ARCGUARD_CONFIG=str(tmp_path / "project-a.toml"), ARCGUARD_REPEAT_LIMIT="100"
    )
    try:
        b = write_transcript(tmp_path / "b.jsonl", [])
        decisions = [
            served.bash_call(server, b, SESSION_B, n, "make test", timeout=BUDGET_S)
            for n in range(3)
        ]
        assert decisions == [None, None, "deny"]
    finally:
        server.stop()
