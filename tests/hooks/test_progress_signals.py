"""Signals the hooks gather for the loop guard: a read file's stat, prompts queued mid-turn."""

from __future__ import annotations

import os

from testing.builders import append_transcript
from testing.builders import assistant_entries
from testing.builders import hook_output
from testing.builders import run_hook
from testing.builders import tool_result
from testing.builders import tool_use
from testing.builders import write_transcript

from arcguard.storage import paths
from arcguard.storage import store


SID = "5b1f0c2e-0000-4000-8000-0000000000a7"


def _state():
    return store.read_session(paths.state_dir(os.environ), SID)


def _read(path, n):
    call = {
        "session_id": SID,
        "tool_name": "Read",
        "tool_input": {"file_path": str(path)},
        "tool_use_id": f"toolu_read_{n}",
    }
    out = hook_output(run_hook("pre-tool", {**call, "hook_event_name": "PreToolUse"}))
    if out is None:
        hook_output(
            run_hook(
                "post-tool",
                {
                    **call,
                    "hook_event_name": "PostToolUse",
                    "tool_response": {"file": {"content": "same"}},
                },
            )
        )
    return out


def test_a_file_changed_on_disk_since_its_last_read_may_be_read_again(tmp_path):
    source = tmp_path / "hooks.go"
    source.write_text("package hooks\n")
    assert _read(source, 1) is None
    assert _read(source, 2) is None
    assert _read(source, 3) is not None  # same file, same result: a repeat
    source.write_text("package hooks\n\nfunc Run() {}\n")  # e.g. `git checkout` rewrote it
    assert _read(source, 4) is None


def _tool_turn(path, n):
    tid = f"toolu_turn_{n}"
    entries = assistant_entries(tool_use("Bash", {"command": f"true # {n}"}, tid))
    entries.append(tool_result(tid, ""))
    append_transcript(path, entries)
    batch = {
        "session_id": SID,
        "hook_event_name": "PostToolBatch",
        "transcript_path": str(path),
        "tool_calls": [
            {
                "tool_name": "Bash",
                "tool_input": {"command": f"true # {n}"},
                "tool_use_id": tid,
                "tool_response": "",
            }
        ],
    }
    hook_output(run_hook("post-batch", batch))


def _queued(uuid, prompt, mode, **extra):
    return {
        "type": "attachment",
        "uuid": uuid,
        "isSidechain": False,
        "attachment": {"type": "queued_command", "prompt": prompt, "commandMode": mode, **extra},
    }


def test_a_prompt_the_operator_queued_mid_turn_resets_the_counters(tmp_path):
    path = write_transcript(tmp_path / "t.jsonl", [])
    for n in range(5):
        _tool_turn(path, n)
    assert _state()["guard"]["tracks"]["main"]["turns"] == 5
    append_transcript(
        path, [_queued("q-1", "also check the docs", "prompt", origin={"kind": "human"})]
    )
    _tool_turn(path, 5)
    assert _state()["guard"]["tracks"]["main"]["turns"] == 1
    _tool_turn(path, 6)  # the queued prompt is still in the window: acted on once only
    assert _state()["guard"]["tracks"]["main"]["turns"] == 2


def test_a_queued_task_notification_is_not_the_operator(tmp_path):
    path = write_transcript(tmp_path / "t.jsonl", [])
    for n in range(5):
        _tool_turn(path, n)
    append_transcript(
        path,
        [
            _queued(
                "q-2",
                "<task-notification>\n<task-id>a64</task-id>\n<status>completed</status>\n"
                "</task-notification>",
                "task-notification",
            )
        ],
    )
    _tool_turn(path, 5)
    assert _state()["guard"]["tracks"]["main"]["turns"] == 6
