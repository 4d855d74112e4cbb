"""The resident server: who may talk to it, what it answers, and that it outlives its errors.

The server runs in a thread of the test process (the same code `arcguard serve` runs), except
where the process itself is the point (one per user, idle exit).
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from testing import served as served_process
from testing.builders import append_transcript
from testing.builders import assistant_entries
from testing.builders import hook_output
from testing.builders import run_hook
from testing.builders import tool_result
from testing.builders import tool_use
from testing.builders import write_transcript

from arcguard.hooks import runner
from arcguard.resident import files
from arcguard.resident import server as resident_server
from arcguard.storage import cost


RESIDENT_PRE = (cost.RESIDENT, "pre-tool")


SID = "7c2d0b1e-0000-4000-8000-00000000beef"


class Served:
    def __init__(self, home: Path, port: int, token: str, environ: dict[str, str]) -> None:
        self.environ = environ
        self.home = home
        self.port = port
        self.token = token

    def post(
        self, path: str, body: Any, *, token: str | None = "", method: str = "POST"
    ) -> tuple[int, bytes]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        given = self.token if token == "" else token
        if given is not None:
            headers[files.SECRET_HEADER] = given
        conn = http.client.HTTPConnection(files.HOST, self.port, timeout=10)
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def hook(self, event: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        status, body = self.post(f"/hook/{event}", payload)
        assert status == 200
        return json.loads(body) if body.strip() else None


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    home = tmp_path / "state"
    environ = {"ARCGUARD_HOME": str(home), "ARCGUARD_CONFIG": str(tmp_path / "none.toml")}
    port, token = files.prepare(str(home), environ["ARCGUARD_CONFIG"])
    box: list[Any] = []
    up = threading.Event()

    def ready(server: Any) -> None:
        box.append(server)
        up.set()

    thread = threading.Thread(
        target=resident_server.serve, args=(str(home), environ), kwargs={"ready": ready}
    )
    thread.start()
    assert up.wait(10)
    try:
        yield Served(home, port, token, environ)
    finally:
        box[0].shutdown()
        thread.join(10)


def _sessions(home: Path) -> list[str]:
    directory = home / "sessions"
    return sorted(os.listdir(directory)) if directory.is_dir() else []


def _pre_tool(transcript: Path, n: int, command: str) -> dict[str, Any]:
    return {
        "session_id": SID,
        "transcript_path": str(transcript),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": f"toolu_{n}",
    }


def test_a_client_without_the_secret_gets_403_and_changes_nothing(served, tmp_path):
    transcript = write_transcript(tmp_path / "t.jsonl", [])
    payload = _pre_tool(transcript, 0, "ls")
    for token in (None, "", "0" * 64, served.token[:-1], served.token + "0"):
        status, body = served.post("/hook/PreToolUse", payload, token=token or None)
        assert (status, body) == (403, b"")
    assert _sessions(served.home) == []
    assert served.post("/hook/PreToolUse", payload)[0] == 200
    assert _sessions(served.home) != []


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/hook/PreToolUse"),
        ("POST", "/"),
        ("POST", "/hook/"),
        ("POST", "/hook/NoSuchEvent"),
        ("POST", "/hook/PreToolUse/x"),
        ("POST", "/hook/PreToolUse?x=1"),
        ("DELETE", "/hook/Stop"),
    ],
)
def test_only_the_hook_endpoints_exist(served, method, path):
    assert served.post(path, {}, method=method)[0] == 404


def test_a_payload_over_the_bound_is_not_read_and_gets_no_decision(served):
    conn = http.client.HTTPConnection(files.HOST, served.port, timeout=10)
    try:
        conn.putrequest("POST", "/hook/PreToolUse")
        conn.putheader(files.SECRET_HEADER, served.token)
        conn.putheader("Content-Length", str(runner.MAX_PAYLOAD + 1))
        conn.endheaders()
        response = conn.getresponse()
        assert (response.status, response.read()) == (413, b"")
    finally:
        conn.close()
    assert served.post("/hook/PreToolUse", b"not json")[0] == 200


def test_a_raising_handler_gets_no_decision_and_the_server_stays_up(served, monkeypatch):
    def boom(hook: str, raw: bytes, ctx: Any) -> str:
        raise RuntimeError("handler failed")

    monkeypatch.setattr(runner, "dispatch", boom)
    assert served.post("/hook/Stop", {"session_id": SID}) == (200, b"")
    log = (served.home / "arcguard.log").read_text()
    assert "RuntimeError: handler failed" in log
    monkeypatch.undo()
    assert served.post("/hook/Stop", {"session_id": SID}) == (200, b"")


def test_a_handler_past_the_wall_budget_gets_no_decision_and_writes_nothing(served, monkeypatch):
    release = threading.Event()

    def slow(hook: str, raw: bytes, ctx: Any) -> str:
        release.wait(10)
        return "late" if ctx.commit() else "not committed"

    monkeypatch.setattr(runner, "dispatch", slow)
    Path(served.environ["ARCGUARD_CONFIG"]).write_text("hook_budget_ms = 200\n")
    started = time.monotonic()
    assert served.post("/hook/PreToolUse", {"session_id": SID}) == (200, b"")
    assert time.monotonic() - started < 5
    release.set()
    assert "wall budget exceeded" in (served.home / "arcguard.log").read_text()
    # The run still counts in `status --cost`, at about its budget.
    assert served_process.wait_for(lambda: cost.read(str(served.home)).get(RESIDENT_PRE))
    [spent] = cost.read(str(served.home))[RESIDENT_PRE]
    assert spent >= 200_000


def _call(transport: str, served: Served, transcript: Path, n: int, command: str) -> Any:
    """One tool-only message with one Bash call, its hooks sent over `transport`."""
    append_transcript(
        transcript,
        assistant_entries(tool_use("Bash", {"command": command}, tool_id=f"toolu_{n}")),
    )
    pre = _pre_tool(transcript, n, command)
    post = {
        **pre,
        "hook_event_name": "PostToolUse",
        "tool_response": {"stdout": "same", "stderr": ""},
    }
    if transport == "http":
        decision = served.hook("PreToolUse", pre)
    else:
        decision = hook_output(run_hook("pre-tool", pre, served.home))
    if decision and decision.get("hookSpecificOutput", {}).get("permissionDecision") == "deny":
        return decision
    if transport == "http":
        served.hook("PostToolUse", post)
    else:
        run_hook("post-tool", post, served.home)
    append_transcript(transcript, [tool_result(f"toolu_{n}", "same")])
    return decision


@pytest.mark.parametrize("order", [("http", "command", "http"), ("command", "http", "command")])
def test_command_and_http_hooks_driving_one_session_share_its_state(served, tmp_path, order):
    transcript = write_transcript(tmp_path / "t.jsonl", [])
    decisions = [_call(t, served, transcript, n, "make test") for n, t in enumerate(order)]
    assert decisions[:2] == [None, None]
    assert decisions[2]["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert (
        "[arcguard] Denied as a repeat"
        in decisions[2]["hookSpecificOutput"]["permissionDecisionReason"]
    )
    # The command verbs read what both kinds of hook wrote.
    shown = subprocess.run(
        [sys.executable, "-m", "arcguard", "status", "--json", "--session", SID],
        capture_output=True,
        text=True,
        env={**os.environ, "ARCGUARD_HOME": str(served.home)},
        timeout=60,
        check=True,
    )
    log = json.loads(shown.stdout)["session"]["log"]
    assert [entry["kind"] for entry in log] == ["deny"]


def _serve_process(home: Path, **env: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "arcguard", "serve"],
        env={**os.environ, "ARCGUARD_HOME": str(home), **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_one_server_per_user_it_says_what_it_serves_and_it_exits_when_idle(tmp_path):
    home = tmp_path / "state"
    config = tmp_path / "config.toml"
    config.write_text("resident_idle_seconds = 2\n")
    files.prepare(str(home), str(config))
    first = _serve_process(home)
    try:
        assert served_process.wait_for(lambda: files.server_info(str(home)) is not None)
        info = files.server_info(str(home))
        assert info is not None and info["pid"] == first.pid
        said = first.stdout.readline().decode() if first.stdout else ""
        assert f"127.0.0.1:{info['port']}/hook/<event> (pid {first.pid})" in said
        assert str(home / "arcguard.log") in said
        assert oct((home / files.SERVER_NAME).stat().st_mode & 0o777) == "0o600"
        assert oct((home / files.SECRET_NAME).stat().st_mode & 0o777) == "0o600"
        second = _serve_process(home)
        out, _ = second.communicate(timeout=60)
        assert second.returncode == 0 and b"already runs" in out
        assert first.wait(timeout=30) == 0  # idle: it exits by itself
    finally:
        if first.poll() is None:
            first.kill()
    assert not files.running(str(home))
    assert not (home / files.SERVER_NAME).exists()


def test_serve_without_a_resident_install_says_what_to_run(tmp_path):
    done = _serve_process(tmp_path / "state")
    _, err = done.communicate(timeout=60)
    assert done.returncode == 1
    assert b"arcguard install --resident" in err


def test_a_resident_request_records_its_cost(served, tmp_path):
    from arcguard.storage import cost

    transcript = write_transcript(tmp_path / "t.jsonl", [])
    served.hook("PreToolUse", _pre_tool(transcript, 0, "ls"))
    served.post("/hook/PreToolUse", {}, token=None)  # refused: not a hook run
    runs = cost.read(str(served.home))
    assert list(runs) == [("resident", "pre-tool")]
    assert len(runs["resident", "pre-tool"]) == 1


def test_the_shared_state_never_shows_its_secret(tmp_path: Path) -> None:
    shared = resident_server.resident(str(tmp_path), "s3cret-token", {})
    assert shared.token == b"s3cret-token"
    assert "s3cret" not in repr(shared)
    assert "s3cret" not in str(shared)
