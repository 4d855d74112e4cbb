"""Build hook payloads and transcripts in the shapes Claude Code 2.1.x writes, and run hooks.

Two levels over one format: entry helpers (`assistant_entries`, `tool_result`, ...) for tests
that place single entries, and `Transcript` for whole sessions with known answers (one entry
per content block sharing `message.id`; tool results as `user` entries with `toolUseResult`;
Stop-hook feedback as an `isMeta` user entry; API errors as synthetic entries).
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any


_ids = itertools.count(1)
REPO = Path(__file__).resolve().parents[1]
# Small real transcripts kept in the repository (provenance and licences in their SOURCES.md).
FIXTURES = REPO / "tests" / "fixtures" / "transcripts"


if TYPE_CHECKING:
    from arcguard.core.schema import Arc
    from arcguard.core.schema import Guard
    from arcguard.jsonio import JSONObject


def new_id(prefix: str) -> str:
    return f"{prefix}_{next(_ids):06d}"


def assistant_entries(
    *blocks: dict[str, Any], message_id: str | None = None, model: str = "claude-test", **extra: Any
) -> list[dict[str, Any]]:
    """One API message as Claude Code writes it: one entry per content block, same message.id."""
    mid = message_id or new_id("msg")
    return [
        {
            "type": "assistant",
            "uuid": new_id("uuid"),
            "isSidechain": False,
            "message": {
                "id": mid,
                "role": "assistant",
                "model": model,
                "type": "message",
                "content": [block],
            },
            **extra,
        }
        for block in blocks
    ]


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def thinking(value: str = "hmm") -> dict[str, Any]:
    return {"type": "thinking", "thinking": value, "signature": "sig"}


def tool_use(name: str, tool_input: dict[str, Any], tool_id: str | None = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id or new_id("toolu"), "name": name, "input": tool_input}


def user_prompt(value: str) -> dict[str, Any]:
    return {"type": "user", "uuid": new_id("uuid"), "message": {"role": "user", "content": value}}


def tool_result(
    tool_id: str, content: str, *, is_error: bool = False, result: Any = None
) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": new_id("uuid"),
        "toolUseResult": result,
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": tool_id,
                    "content": content,
                    "is_error": is_error,
                }
            ],
        },
    }


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


def run_hook(
    name: str,
    payload: Any,
    home: Path | str | None = None,
    *,
    env: dict[str, str] | None = None,
    raw: bytes | None = None,
    timeout: float = 60,
    **overrides: str,
) -> subprocess.CompletedProcess[bytes]:
    """Run `python -m arcguard hook NAME` exactly as Claude Code would (stdin in, stdout out).

    `payload` is a JSON value or the raw bytes to send (`raw` too); `home` is the state dir;
    `env` and keyword `overrides` (`ARCGUARD_DRAIN_MS="100"`) go on top of this environment.
    """
    if raw is not None:
        data = raw
    else:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    environment = {**os.environ, **(env or {}), **overrides}
    if home is not None:
        environment["ARCGUARD_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "arcguard", "hook", name],
        input=data,
        capture_output=True,
        timeout=timeout,
        env=environment,
        check=False,
    )


def hook_output(result: subprocess.CompletedProcess[bytes]) -> dict[str, Any] | None:
    assert result.returncode == 0, result.stderr
    out = result.stdout.strip()
    return json.loads(out) if out else None


class Transcript:
    def __init__(self, session_id: str = "sess-1", start: int = 1_780_000_000) -> None:
        self.session_id = session_id
        self.entries: list[dict[str, Any]] = []
        self.clock = start
        self.count = 0

    def _stamp(self, advance: int = 5) -> str:
        import time

        self.clock += advance
        return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(self.clock))

    def _base(self, kind: str, advance: int = 5) -> dict[str, Any]:
        self.count += 1
        return {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/dev/project",
            "sessionId": self.session_id,
            "version": "2.1.90",
            "gitBranch": "main",
            "type": kind,
            "uuid": f"u-{self.count}",
            "timestamp": self._stamp(advance),
        }

    def prompt(self, text: str, *, meta: bool = False, advance: int = 5) -> Transcript:
        entry = self._base("user", advance)
        entry["message"] = {"role": "user", "content": text}
        if meta:
            entry["isMeta"] = True
        self.entries.append(entry)
        return self

    def feedback(self, reason: str) -> Transcript:
        return self.prompt(f"Stop hook feedback:\n{reason}", meta=True)

    def assistant(
        self, *blocks: dict[str, Any], synthetic: bool = False, extra: dict[str, Any] | None = None
    ) -> Transcript:
        self.count += 1
        mid = f"msg_{self.count:05d}"
        for block in blocks:
            entry = self._base("assistant", 1)
            entry["message"] = {
                "model": "<synthetic>" if synthetic else "claude-opus-4-6",
                "id": mid,
                "type": "message",
                "role": "assistant",
                "content": [block],
                "stop_reason": None,
            }
            entry["requestId"] = f"req_{mid}"
            entry.update(extra or {})
            self.entries.append(entry)
        return self

    def text(self, text: str) -> Transcript:
        return self.assistant({"type": "text", "text": text})

    def tools(
        self, *calls: tuple[str, dict[str, Any], Any], narration: str = "", error: bool = False
    ) -> Transcript:
        """One assistant message with the calls, then one result entry per call."""
        blocks: list[dict[str, Any]] = [{"type": "thinking", "thinking": "", "signature": "s"}]
        if narration:
            blocks.append({"type": "text", "text": narration})
        ids = []
        for name, given, _ in calls:
            self.count += 1
            ids.append(f"toolu_{self.count:05d}")
            blocks.append({"type": "tool_use", "id": ids[-1], "name": name, "input": given})
        self.assistant(*blocks)
        for tool_id, (_, _, result) in zip(ids, calls, strict=True):
            entry = self._base("user", 3)
            content = result if isinstance(result, str) else json.dumps(result)
            block: dict[str, Any] = {
                "tool_use_id": tool_id,
                "type": "tool_result",
                "content": content,
            }
            if error:
                block["is_error"] = True
            entry["message"] = {"role": "user", "content": [block]}
            entry["toolUseResult"] = f"Error: {content}" if error else result
            self.entries.append(entry)
        return self

    def bash(self, command: str, stdout: str, *, narration: str = "") -> Transcript:
        response = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False}
        return self.tools(
            ("Bash", {"command": command, "description": "run"}, response), narration=narration
        )

    def api_error(self, text: str, error: str | None = None) -> Transcript:
        extra: dict[str, Any] = {"isApiErrorMessage": True}
        if error:
            extra["error"] = error
        return self.assistant({"type": "text", "text": text}, synthetic=True, extra=extra)

    def other(self, kind: str, **fields: Any) -> Transcript:
        self.entries.append({"type": kind, **fields})
        return self

    def lines(self) -> list[str]:
        return [json.dumps(e, separators=(",", ":")) for e in self.entries]

    def write(self, path: Path, *, garbage: list[str] | None = None) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        body = self.lines() + (garbage or [])
        path.write_text("\n".join(body) + "\n", encoding="utf-8")
        return path

    # --- shapes of real sessions ---------------------------------------------------------

    def split_tools(self, *calls: tuple[str, dict[str, Any], Any]) -> Transcript:
        """One message whose calls each ran as soon as streamed: entry, result, entry, result."""
        self.count += 1
        mid = f"msg_{self.count:05d}"
        for name, given, result in calls:
            self.count += 1
            tool_id = f"toolu_{self.count:05d}"
            entry = self._base("assistant", 1)
            entry["message"] = {
                "model": "claude-opus-4-6",
                "id": mid,
                "type": "message",
                "role": "assistant",
                "stop_reason": None,
                "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": given}],
            }
            self.entries.append(entry)
            done = self._base("user", 2)
            done["message"] = {
                "role": "user",
                "content": [
                    {"tool_use_id": tool_id, "type": "tool_result", "content": json.dumps(result)}
                ],
            }
            done["toolUseResult"] = result
            self.entries.append(done)
        return self

    def queued(self, prompt: str, *, mode: str = "prompt") -> Transcript:
        """A prompt queued while the model worked, as Claude Code 2.1.2xx records it."""
        return self.attachment({"type": "queued_command", "prompt": prompt, "commandMode": mode})

    def attachment(self, body: dict[str, Any]) -> Transcript:
        """An `attachment` entry in Claude Code's key order: its body's own "type" comes first."""
        base = self._base("attachment", 1)
        self.entries.append(
            {
                "parentUuid": None,
                "isSidechain": False,
                "attachment": body,
                **{k: v for k, v in base.items() if k not in ("parentUuid", "isSidechain")},
            }
        )
        return self

    def stop_context(self, reason: str) -> Transcript:
        """A Stop hook's continuation given as additionalContext, as 2.1.163 and newer record
        it: the hook's success, then the context it added (no `user` entry)."""
        self.attachment({"type": "hook_success", "hookName": "Stop", "hookEvent": "Stop"})
        return self.attachment(
            {"type": "hook_additional_context", "content": [reason], "hookEvent": "Stop"}
        )

    def hook_stopped(self, reason: str, event: str = "PostToolBatch") -> Transcript:
        """A hook's `continue: false`, as current releases record the session's end."""
        return self.attachment(
            {"type": "hook_stopped_continuation", "message": reason, "hookEvent": event}
        )

    def local_command(self, name: str, stdout: str) -> Transcript:
        """A local command (`/exit`, `/ide`) and the placeholder reply the harness writes."""
        self.prompt(
            f"<command-name>/{name}</command-name>\n            <command-message>{name}"
            "</command-message>\n            <command-args></command-args>"
        )
        self.prompt(f"<local-command-stdout>{stdout}</local-command-stdout>")
        return self.assistant({"type": "text", "text": "No response requested."}, synthetic=True)

    def system_error(self, status: int | None) -> Transcript:
        """A failed API attempt as the `system` entry Claude Code writes for it."""
        entry = self._base("system", 1)
        error: dict[str, Any] = (
            {"cause": {"code": "ECONNRESET"}} if status is None else {"status": status}
        )
        entry.update(
            {
                "subtype": "api_error",
                "level": "error",
                "error": error,
                "retryAttempt": 1,
                "maxRetries": 10,
            }
        )
        self.entries.append(entry)
        return self

    def as_subagent(self, agent_id: str) -> Transcript:
        """Mark every entry so far as a subagent's own transcript has them."""
        for entry in self.entries:
            entry["isSidechain"] = True
            entry["agentId"] = agent_id
        return self


def arc_of(state: JSONObject) -> Arc:
    """The state's arc, through its record (a test that reads one expects it there)."""
    from arcguard.core.schema import StateFile

    arc = StateFile.view(state).arc
    assert arc is not None, "the state has no arc"
    return arc


def guard_of(state: JSONObject) -> Guard:
    """The state's loop-guard record."""
    from arcguard.core.schema import StateFile

    return StateFile.view(state).guard
