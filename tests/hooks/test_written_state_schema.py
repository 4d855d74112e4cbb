"""What real hook processes write is a state the loader accepts, and every field of it is one
the loader checks: a field it did not know would go unchecked, and a wrong value in it would
break the code that reads it instead of setting the file aside."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

from testing.builders import append_transcript
from testing.builders import assistant_entries
from testing.builders import hook_output
from testing.builders import run_hook
from testing.builders import tool_result
from testing.builders import tool_use
from testing.builders import write_transcript
from testing.cli import invoke

from arcguard.core import schema
from arcguard.storage import paths
from arcguard.storage import store


SID = "5b1f0c2e-0000-4000-8000-00000000dddd"


def raw_state() -> dict[str, Any]:
    with open(paths.session_path(paths.state_dir(os.environ), SID)) as handle:
        loaded: dict[str, Any] = json.load(handle)
    return loaded


def leaves(value: object, path: str = "") -> list[tuple[str, tuple[object, ...]]]:
    """(printed path, keys) of every value in a document, containers included."""
    found: list[tuple[str, tuple[object, ...]]] = []
    items: list[tuple[object, object, str]] = []
    if isinstance(value, dict):
        items = [(k, v, f".{k}") for k, v in value.items()]
    elif isinstance(value, list):
        items = [(n, v, f"[{n}]") for n, v in enumerate(value)]
    for key, item, printed in items:
        found.append((path + printed, (key,)))
        found.extend((p, (key, *keys)) for p, keys in leaves(item, path + printed))
    return found


def assert_valid_and_every_field_checked(document: dict[str, Any]) -> None:
    assert schema.problem(document) is None
    for printed, keys in leaves(document):
        if keys == ("schema",):
            continue  # the version number: checked before anything else
        broken = json.loads(json.dumps(document))
        target = broken
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = object()  # no checker accepts this
        wrong = schema.problem(broken)
        assert wrong is not None and wrong.startswith(f"state{printed}:"), (printed, wrong)


def posture(prompt: str) -> None:
    assert (
        run_hook(
            "posture", {"session_id": SID, "prompt": prompt, "hook_event_name": "UserPromptSubmit"}
        ).returncode
        == 0
    )


def tool_call(name: str, tool_input: dict[str, Any], tid: str, response: object) -> None:
    call = {"session_id": SID, "tool_name": name, "tool_input": tool_input, "tool_use_id": tid}
    hook_output(run_hook("pre-tool", {**call, "hook_event_name": "PreToolUse"}))
    hook_output(
        run_hook("post-tool", {**call, "hook_event_name": "PostToolUse", "tool_response": response})
    )


def batch(path, command: str, tid: str) -> None:
    entries = assistant_entries(tool_use("Bash", {"command": command}, tid))
    entries.append(tool_result(tid, ""))
    append_transcript(path, entries)
    hook_output(
        run_hook(
            "post-batch",
            {
                "session_id": SID,
                "hook_event_name": "PostToolBatch",
                "transcript_path": str(path),
                "tool_calls": [
                    {
                        "tool_name": "Bash",
                        "tool_input": {"command": command},
                        "tool_use_id": tid,
                        "tool_response": "",
                    }
                ],
            },
        )
    )


def queued(uuid: str, prompt: str, mode: str, **extra: object) -> dict[str, Any]:
    return {
        "type": "attachment",
        "uuid": uuid,
        "isSidechain": False,
        "attachment": {"type": "queued_command", "prompt": prompt, "commandMode": mode, **extra},
    }


def limit_failure(reset_in: float) -> dict[str, object]:
    return {
        "session_id": SID,
        "hook_event_name": "StopFailure",
        "error": "rate_limit",
        "last_assistant_message": "API Error: Request rejected (429) · Claude AI usage limit"
        f" reached|{int(time.time() + reset_in)}",
    }


def test_background_waits_and_queued_prompts_write_only_checked_fields(tmp_path):
    posture("/autonomous go")
    source = tmp_path / "notes.txt"
    source.write_text("notes\n")
    tool_call("Read", {"file_path": str(source)}, "toolu_read_1", {"file": {"content": "x"}})
    tool_call("Bash", {"command": "make build"}, "toolu_make_1", "built")
    tool_call(
        "Bash",
        {"command": "make serve", "run_in_background": True},
        "toolu_bg_1",
        {"backgroundTaskId": "bg_1", "stdout": "", "stderr": ""},
    )
    path = write_transcript(tmp_path / "t.jsonl", [])
    batch(path, "sleep 30", "toolu_wait_1")
    written = raw_state()
    assert written["guard"]["background"] and "wait_since" in written["guard"]
    assert written["guard"]["change_seq"] >= 1
    append_transcript(
        path,
        [
            queued("q-1", "also check the docs", "prompt", origin={"kind": "human"}),
            queued(
                "q-2",
                "<task-notification>\n<task-id>bg_1</task-id>\n<status>completed"
                "</status>\n</task-notification>",
                "task-notification",
            ),
        ],
    )
    batch(path, "true # after", "toolu_after_1")
    written = raw_state()
    assert sorted(written["seen"]["queued"]) == ["q-1", "q-2"]
    assert_valid_and_every_field_checked(written)


def test_limit_waits_status_line_resets_and_a_notification_write_only_checked_fields():
    posture("/autonomous go")
    line = subprocess.run(
        [sys.executable, "-m", "arcguard", "statusline"],
        capture_output=True,
        input=json.dumps(
            {"session_id": SID, "rate_limits": {"five_hour": {"resets_at": 1_900_000_000}}}
        ).encode(),
        timeout=60,
        check=False,
    )
    assert line.returncode == 0
    waiter = subprocess.Popen(
        [sys.executable, "-m", "arcguard", "hook", "limit-wait"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert waiter.stdin is not None
        waiter.stdin.write(json.dumps(limit_failure(60)).encode())
        waiter.stdin.close()
        for _ in range(400):
            if "limit_wait" in raw_state():
                break
            time.sleep(0.05)
        pending = raw_state()
        assert "limit_wait" in pending and "rate_limits" in pending
        assert_valid_and_every_field_checked(pending)
    finally:
        invoke("arc", "cancel-wait", SID)
        waiter.wait(timeout=20)
    assert run_hook("limit-wait", limit_failure(1)).returncode == 2  # waits, then wakes
    spent = {"ARCGUARD_LIMIT_RESUMES_PER_ARC": "1"}
    rang = hook_output(run_hook("stop-failure", limit_failure(1), env=spent))
    assert rang is not None and "terminalSequence" in rang
    assert run_hook("limit-wait", limit_failure(1), env=spent).returncode == 0
    written = raw_state()
    kinds = [entry["kind"] for entry in written["log"]]
    assert {"limit-wait", "limit-cancel", "limit-resume", "give-up"} <= set(kinds)
    assert written["arc"]["limit_resumes"] == 1
    assert store.read_session(paths.state_dir(os.environ), SID) is not None
    assert_valid_and_every_field_checked(written)
