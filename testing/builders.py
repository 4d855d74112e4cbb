"""Build hook payloads and transcript entries in the shapes Claude Code 2.1.x writes."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


_ids = itertools.count(1)
REPO = Path(__file__).resolve().parents[1]
# Small real transcripts kept in the repository (provenance and licences in their SOURCES.md).
FIXTURES = REPO / "tests" / "fixtures" / "transcripts"


def new_id(prefix: str) -> str:
    return f"{prefix}_{next(_ids):06d}"


def assistant_entries(*blocks: dict[str, Any], message_id: str | None = None,
                      model: str = "claude-test", **extra: Any) -> list[dict[str, Any]]:
    """One API message as Claude Code writes it: one entry per content block, same message.id."""
    mid = message_id or new_id("msg")
    return [
        {"type": "assistant", "uuid": new_id("uuid"), "isSidechain": False,
         "message": {"id": mid, "role": "assistant", "model": model, "type": "message",
                     "content": [block]}, **extra}
        for block in blocks
    ]


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def thinking(value: str = "hmm") -> dict[str, Any]:
    return {"type": "thinking", "thinking": value, "signature": "sig"}


def tool_use(name: str, tool_input: dict[str, Any], tool_id: str | None = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id or new_id("toolu"), "name": name, "input": tool_input}


def user_prompt(value: str) -> dict[str, Any]:
    return {"type": "user", "uuid": new_id("uuid"),
            "message": {"role": "user", "content": value}}


def tool_result(tool_id: str, content: str, *, is_error: bool = False,
                result: Any = None) -> dict[str, Any]:
    return {"type": "user", "uuid": new_id("uuid"), "toolUseResult": result,
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool_id, "content": content,
                 "is_error": is_error}]}}


def noise(kind: str = "last-prompt") -> dict[str, Any]:
    return {"type": kind, "sessionId": "s"}


def write_transcript(path: Path, entries: list[dict[str, Any]], *, tail: bytes = b"") -> Path:
    with path.open("wb") as handle:
        for entry in entries:
            handle.write(json.dumps(entry).encode() + b"\n")
        handle.write(tail)
    return path


def append_transcript(path: Path, entries: list[dict[str, Any]]) -> None:
    with path.open("ab") as handle:
        for entry in entries:
            handle.write(json.dumps(entry).encode() + b"\n")


def run_hook(name: str, payload: Any, *, env: dict[str, str] | None = None,
             raw: bytes | None = None, timeout: float = 30) -> subprocess.CompletedProcess[bytes]:
    """Run `python -m arcguard hook NAME` exactly as Claude Code would (stdin in, stdout out)."""
    data = raw if raw is not None else json.dumps(payload).encode()
    return subprocess.run([sys.executable, "-m", "arcguard", "hook", name], input=data,
                          capture_output=True, timeout=timeout, env={**os.environ, **(env or {})},
                          check=False)


def hook_output(result: subprocess.CompletedProcess[bytes]) -> dict[str, Any] | None:
    assert result.returncode == 0, result.stderr
    out = result.stdout.strip()
    return json.loads(out) if out else None
