"""Shared helpers of the reliability suites: run hooks for real, build states and payloads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from testing import builders
from testing.builders import run_hook as run_hook  # the suites call support.run_hook

from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.schema import StateFile
from arcguard.core.state import fresh_state
from arcguard.storage import paths
from arcguard.storage import store


PYTHON = sys.executable
SCRIPT = str(Path(PYTHON).parent / "arcguard")


def env(home: Path, **extra: str) -> dict[str, str]:
    """The current (isolated) environment with this test's state dir and overrides."""
    result = dict(os.environ)
    result["ARCGUARD_HOME"] = str(home)
    result.update(extra)
    return result


def run_arc(*args: str, home: Path, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [PYTHON, "-m", "arcguard", "arc", *args],
        capture_output=True,
        env=env(home),
        timeout=timeout,
    )


def state_path(home: Path, session_id: str) -> Path:
    return Path(paths.session_path(str(home), session_id))


def read_state(home: Path, session_id: str) -> Any:
    state = store.read_state(str(state_path(home, session_id)))
    assert state is not None
    return state


def put_state(
    home: Path, session_id: str, *, arc: bool = True, seen: list[str] | None = None
) -> Any:
    """Write a fresh state (with an active arc) through the real store."""
    now = time.time()
    state = fresh_state(session_id, now)
    if arc:
        state["arc"] = arcs.new_arc("work", ["one", "two"], now).data
    if seen:
        StateFile.view(state).seen.messages = list(seen)
    store.update(str(home), session_id, lambda _old: (state, None), now=now, lock_timeout=5.0)
    return state


def log_text(home: Path) -> str:
    path = Path(paths.error_log(str(home)))
    return path.read_text(errors="replace") if path.exists() else ""


def pre_tool(session_id: str, command: str, tool_use_id: str = "toolu_1") -> dict[str, Any]:
    return {
        "session_id": session_id,
        "transcript_path": "",
        "cwd": "/",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": tool_use_id,
    }


def post_tool(
    session_id: str, command: str, tool_use_id: str = "toolu_1", stdout: str = "ok"
) -> dict[str, Any]:
    return {
        "session_id": session_id,
        "transcript_path": "",
        "cwd": "/",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": tool_use_id,
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
    }


def stop(
    session_id: str, transcript: str = "", message: str | None = None, *, active: bool = False
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "session_id": session_id,
        "transcript_path": transcript,
        "cwd": "/",
        "hook_event_name": "Stop",
        "stop_hook_active": active,
    }
    if message is not None:
        payload["last_assistant_message"] = message
    return payload


def assistant_line(message_id: str, text: str) -> bytes:
    [entry] = builders.assistant_entries(builders.text(text), message_id=message_id)
    return json.dumps(entry).encode() + b"\n"


def is_decision(out: bytes) -> bool:
    """True when stdout blocks, denies or stops anything."""
    if not out.strip():
        return False
    doc = json.loads(out)
    specific = doc.get("hookSpecificOutput") or {}
    return (
        doc.get("decision") == "block"
        or doc.get("continue") is False
        or specific.get("permissionDecision") == "deny"
    )


def assert_quiet_output(out: bytes) -> None:
    """stdout is empty or exactly one JSON object."""
    if out.strip():
        doc = json.loads(out)
        assert isinstance(doc, dict)


def json_bytes(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload).encode()
