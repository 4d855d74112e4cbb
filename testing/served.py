"""A real `arcguard serve` process for tests, and a client that talks to it as Claude Code does.

`start` runs the server as its own process (its own interpreter, sockets and locks), optionally
with a patch applied first: the patch is Python source run in the server process before it
serves, for a test that needs a handler to misbehave there.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arcguard.resident import files
from testing.builders import append_transcript
from testing.builders import assistant_entries
from testing.builders import tool_result
from testing.builders import tool_use


SERVE = """
import sys
from arcguard.main import main
sys.argv = ["arcguard", "serve"]
raise SystemExit(main())
"""


class Server:
    def __init__(self, home: Path, process: subprocess.Popen[bytes]) -> None:
        self.home = home
        self.process = process
        port, token = files.installed(str(home))
        self.port = port
        self.token = token

    def post(
        self, event: str, payload: Any, *, timeout: float = 10, token: str | None = None
    ) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection(files.HOST, self.port, timeout=timeout)
        try:
            conn.request(
                "POST",
                f"/hook/{event}",
                body=json.dumps(payload).encode(),
                headers={files.SECRET_HEADER: token or self.token},
            )
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def start(home: Path, *, patch: str = "", **env: str) -> Server:
    """A server for `home` (prepared for resident mode first if it is not), once it listens."""
    if files.port(str(home)) is None:
        files.prepare(str(home), env.get("ARCGUARD_CONFIG"))
    process = subprocess.Popen(
        [sys.executable, "-c", patch + "\n" + SERVE],
        env={**os.environ, "ARCGUARD_HOME": str(home), **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while files.server_info(str(home)) is None:
        if process.poll() is not None or time.monotonic() > deadline:
            _, err = process.communicate(timeout=10)
            raise AssertionError(f"the server did not start: {err.decode(errors='replace')}")
        time.sleep(0.02)
    return Server(home, process)


def wait_for(predicate: Callable[[], object], timeout: float = 30) -> bool:
    """Whether `predicate` came true within `timeout` seconds (polled)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def bash_call(
    server: Server, transcript: Path, session_id: str, n: int, command: str, timeout: float = 10
) -> str | None:
    """One Bash call through the server as Claude Code sends it (PreToolUse, then PostToolUse
    unless denied); the PreToolUse decision ("deny", ...) or None."""
    append_transcript(
        transcript, assistant_entries(tool_use("Bash", {"command": command}, tool_id=f"tu_{n}"))
    )
    pre = {
        "session_id": session_id,
        "transcript_path": str(transcript),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": f"tu_{n}",
    }
    status, body = server.post("PreToolUse", pre, timeout=timeout)
    assert status == 200
    decided = json.loads(body) if body.strip() else {}
    decision = decided.get("hookSpecificOutput", {}).get("permissionDecision")
    if decision == "deny":
        return str(decision)
    post = {**pre, "hook_event_name": "PostToolUse", "tool_response": {"stdout": "same"}}
    assert server.post("PostToolUse", post, timeout=timeout)[0] == 200
    append_transcript(transcript, [tool_result(f"tu_{n}", "same")])
    return None
