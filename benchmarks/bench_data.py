"""The benchmark's inputs: realistic transcripts, states built by the real core, payloads.

Transcripts are generated to a target size with big request blobs, the way long Claude Code
sessions grow, so the hooks' bounded tail reads are measured on what they will meet.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from arcguard.core.schema import StateFile


SESSION = "bench-0000-session"
NOW = time.time()


# --- realistic transcripts ------------------------------------------------------------------


def _entry(kind: str, n: int, **fields: Any) -> dict[str, Any]:
    return {
        "parentUuid": f"uuid-{n - 1:08d}",
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/user/project",
        "sessionId": SESSION,
        "version": "2.1.328",
        "gitBranch": "main",
        "type": kind,
        "uuid": f"uuid-{n:08d}",
        "timestamp": "2026-05-01T10:00:00.000Z",
        **fields,
    }


def _assistant(n: int, mid: str, block: dict[str, Any]) -> dict[str, Any]:
    return _entry(
        "assistant",
        n,
        requestId=f"req_{mid}",
        message={
            "id": mid,
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-5",
            "content": [block],
            "stop_reason": None,
            "usage": {"input_tokens": 4, "cache_read_input_tokens": 51234, "output_tokens": 120},
        },
    )


def _turn(n: int, blob_bytes: int) -> list[dict[str, Any]]:
    """One tool-using turn: the request blob, thinking, text, tool_use, then its result."""
    mid = f"msg_{n:010d}"
    tid = f"toolu_{n:010d}"
    sentence = "The quick brown fox reads src/arcguard/storage/store.py and runs the tests. "
    filler = (sentence * (blob_bytes // len(sentence) + 1))[:blob_bytes]
    blob = {
        "messages": [{"role": "user", "content": filler}],
        "system": "You are Claude Code.",
        "tools": ["Bash", "Read", "Edit"],
    }
    return [
        _entry("api-request-blob", n, requestId=f"req_{mid}", blob=blob),
        _assistant(
            n + 1,
            mid,
            {
                "type": "thinking",
                "thinking": "Next I check the tests.",
                "signature": "c2lnbmF0dXJl",
            },
        ),
        _assistant(n + 2, mid, {"type": "text", "text": "Running the test suite now."}),
        _assistant(
            n + 3,
            mid,
            {
                "type": "tool_use",
                "id": tid,
                "name": "Bash",
                "input": {"command": f"pytest -q tests/test_{n}.py", "description": "Run tests"},
            },
        ),
        _entry(
            "user",
            n + 4,
            toolUseResult={"stdout": "3 passed", "stderr": ""},
            message={
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": tid,
                        "content": "3 passed in 0.41s",
                        "is_error": False,
                    }
                ],
            },
        ),
        _entry(
            "attachment",
            n + 5,
            attachment={
                "type": "hook_success",
                "hookName": "PostToolUse",
                "stdout": "",
                "stderr": "",
                "exitCode": 0,
            },
        ),
    ]


def _ending(n: int, final_text: str) -> list[dict[str, Any]]:
    mid = f"msg_final_{n:08d}"
    return [
        _entry("api-request-blob", n, blob={"messages": [{"role": "user", "content": "x" * 2000}]}),
        _assistant(n + 1, mid, {"type": "text", "text": final_text}),
        _entry("system", n + 2, subtype="stop_hook_summary", hookCount=1, hookErrors=[]),
        _entry("last-prompt", n + 3, lastPrompt="keep going"),
    ]


# Request blobs grow with the conversation and vary a lot; this cycle averages about 100 KB a
# turn (a 3-turn session observed with Claude Code 2.1.328 was already 150 KB).
BLOB_SIZES = (2_000, 20_000, 60_000, 150_000, 300_000)


def write_transcript(
    path: Path, size: int, *, final_text: str = "No response requested.", blob_bytes: int = 300_000
) -> int:
    """A JSONL transcript of about `size` bytes with big request blobs, ending in a stop."""

    def dumps(entry: dict[str, Any]) -> str:
        return json.dumps(entry, separators=(",", ":"), ensure_ascii=False)  # as Claude Code

    written = 0
    n = 1
    with path.open("wb") as out:
        out.write(
            (
                dumps(_entry("user", 0, message={"role": "user", "content": "/autonomous fix it"}))
                + "\n"
            ).encode()
        )
        while written < size:
            blob = min(
                BLOB_SIZES[n // 10 % len(BLOB_SIZES)], blob_bytes, max(200, (size - written) // 2)
            )
            lines = "".join(dumps(e) + "\n" for e in _turn(n, blob)).encode()
            out.write(lines)
            written += len(lines)
            n += 10
        for entry in _ending(n, final_text):
            out.write((dumps(entry) + "\n").encode())
    return path.stat().st_size


def batch_transcript(path: Path) -> tuple[str, dict[str, Any]]:
    """A small transcript whose last assistant message made the call PostToolBatch reports."""
    entries = [_entry("user", 0, message={"role": "user", "content": "fix the importer"})]
    entries += _turn(1, 3000) + _turn(11, 3000)
    path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries))
    last = entries[-3]["message"]["content"][0]
    return last["id"], last["input"]


# --- state built by driving the real core -----------------------------------------------------


def _store_state(home: str, state: Any) -> bytes:
    from arcguard.storage import paths
    from arcguard.storage import store

    path = paths.session_path(home, SESSION)
    if state is None:
        if os.path.exists(path):
            os.unlink(path)
        return b""
    store.update(home, SESSION, lambda _old: (state, None), now=NOW, lock_timeout=5.0)
    return Path(path).read_bytes()


def arc_state(home: str) -> bytes:
    from arcguard.core.arc_keeper import arc as arcs
    from arcguard.core.state import fresh_state

    state = fresh_state(SESSION, NOW)
    record = StateFile.view(state)
    record.arc = arcs.new_arc("importer", ["parse", "load", "report"], NOW)
    # As in a session past its first turn on a release with PostToolBatch (the pinned one).
    record.guard.batch_fires = True
    return _store_state(home, state)


def _letters(n: int) -> str:
    """`n` spelt in letters, so that each value has a shape of its own."""
    return "".join("abcdefghij"[int(c)] for c in str(n))


def max_history_state(home: str) -> tuple[bytes, dict[str, int]]:
    """Drive the loop guard until every bounded history is full (ops, fingerprints, log)."""
    from arcguard.core.config import default_config
    from arcguard.core.loop_guard.finished import decide_post_tool
    from arcguard.core.loop_guard.guard import TurnEnd
    from arcguard.core.loop_guard.guard import decide_post_batch
    from arcguard.core.loop_guard.repeat import decide_pre_tool
    from arcguard.core.state import fresh_state
    from arcguard.core.tool_call import ToolCall
    from arcguard.core.tool_call import ToolResult

    cfg = default_config()
    state = fresh_state(SESSION, NOW)
    t = NOW

    def call(i: int, command: str) -> dict[str, Any]:
        nonlocal state, t
        t += 1
        tool_input = {"command": command, "description": f"step {i}"}
        made = ToolCall("Bash", tool_input, f"toolu_h{i}")
        _, state = decide_pre_tool(state, cfg, t, made)
        # Letters, not digits: the guard sets numbers aside when it compares results by shape.
        out = f"out {_letters(i % 7)}"
        response = {"stdout": out, "stderr": "", "interrupted": False}
        _, state = decide_post_tool(state, cfg, t, made, ToolResult(response=response))
        return tool_input

    for i in range(cfg.max_operations + 20):
        tool_input = call(i, f"grep -rn 'symbol_{_letters(i)}' src/ tests/ | head -50")
        if i % 5 == 0:  # a tool-only turn with a distinct fingerprint each time
            turn = TurnEnd(True, calls=[ToolCall("Bash", tool_input)])
            _, state = decide_post_batch(state, cfg, t, turn, arc_active=False)
    for _ in range(1000):  # denials fill the decision log; bounded, so a rule change cannot hang
        if len(StateFile.view(state).log) >= 50:
            break
        call(999_999, "git status --short")
    record = StateFile.view(state)
    track = record.guard.tracks["main"]
    figures = {
        "operations": len(track.ops),
        "fingerprints": len(track.fingerprints),
        "log": len(record.log),
    }
    return _store_state(home, state), figures


# --- payloads -------------------------------------------------------------------------------


def payloads(
    root: Path,
    transcript: Path,
    batch_path: Path,
    batch_call: tuple[str, Any],
) -> dict[str, dict[str, Any]]:
    common = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": str(root),
        "permission_mode": "default",
        "prompt_id": "prompt-1",
        "effort": "high",
    }
    command = {
        "command": "pytest -q tests/test_store.py",
        "description": "Run store tests",
        "timeout": 120000,
    }
    tid, tinput = batch_call
    return {
        "pre-tool": {
            **common,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": command,
            "tool_use_id": "toolu_bench_pre",
        },
        "post-tool": {
            **common,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": command,
            "tool_use_id": "toolu_bench_pre",
            "duration_ms": 812,
            "tool_response": {
                "stdout": "........ 8 passed in 0.61s\n" * 20,
                "stderr": "",
                "interrupted": False,
                "isImage": False,
                "noOutputExpected": False,
            },
        },
        "post-batch": {
            **common,
            "transcript_path": str(batch_path),
            "hook_event_name": "PostToolBatch",
            "tool_calls": [
                {
                    "tool_name": "Bash",
                    "tool_input": tinput,
                    "tool_use_id": tid,
                    "tool_response": "3 passed in 0.41s",
                }
            ],
        },
        "stop (message)": {
            **common,
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": "The parser now handles quoted fields and "
            "escaped newlines; all 42 tests pass. Next I wire the loader into "
            "the report command.",
            "background_tasks": [],
            "session_crons": [],
        },
        "stop (no-op message)": {
            **common,
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": "No response requested.",
            "background_tasks": [],
            "session_crons": [],
        },
        "stop (transcript)": {
            **common,
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "background_tasks": [],
            "session_crons": [],
        },
        "posture": {
            **common,
            "hook_event_name": "UserPromptSubmit",
            "prompt": "continue with the loader milestone",
        },
    }


def status_payload(root: Path) -> dict[str, Any]:
    """A status line payload as Claude Code 2.1 sends it, rate limits included (Pro/Max)."""
    return {
        "session_id": SESSION,
        "transcript_path": str(root / "small.jsonl"),
        "cwd": str(root),
        "model": {"id": "claude-opus-4-5", "display_name": "Opus"},
        "version": "2.1.328",
        "cost": {"total_cost_usd": 1.37, "total_duration_ms": 81234},
        "context_window": {"used_percentage": 41},
        "rate_limits": {
            "five_hour": {"used_percentage": 23.5, "resets_at": 1_900_000_000},
            "seven_day": {"used_percentage": 41.2, "resets_at": 1_900_500_000},
        },
    }


HOOK_OF = {
    "pre-tool": "pre-tool",
    "post-tool": "post-tool",
    "post-batch": "post-batch",
    "stop (message)": "stop",
    "stop (no-op message)": "stop",
    "stop (transcript)": "stop",
    "posture": "posture",
}
