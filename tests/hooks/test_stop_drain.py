"""The Stop drain on its own: no help from other hooks, payloads of older Claude Code releases.

Older releases send Stop without `last_assistant_message`, never fire PostToolBatch (so nothing
marks the tool turn as seen), and some write no entry at all for an empty final reply.
"""

from __future__ import annotations

import threading

from testing.builders import append_transcript
from testing.builders import assistant_entries
from testing.builders import hook_output
from testing.builders import run_hook
from testing.builders import text
from testing.builders import tool_result
from testing.builders import tool_use
from testing.builders import write_transcript


SID = "5b1f0c2e-0000-4000-8000-0000000000d1"


def _start_arc():
    assert hook_output(
        run_hook(
            "posture",
            {"session_id": SID, "prompt": "/autonomous go", "hook_event_name": "UserPromptSubmit"},
        )
    )


def _old_stop_payload(path):
    # No `last_assistant_message`, `background_tasks` or `session_crons`: an older release.
    return {
        "session_id": SID,
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "transcript_path": str(path),
    }


def _tool_turn(tool_id):
    return assistant_entries(
        text("Running the tests."), tool_use("Bash", {"command": "pytest"}, tool_id=tool_id)
    ) + [tool_result(tool_id, "3 passed")]


def _write_later(path, entries, delay):
    thread = threading.Timer(delay, append_transcript, (path, entries))
    thread.start()
    return thread


def test_a_final_entry_flushed_after_stop_is_seen_without_post_batch(tmp_path):
    _start_arc()
    path = write_transcript(tmp_path / "t.jsonl", _tool_turn("toolu_unrecorded"))
    later = _write_later(path, assistant_entries(text("No response requested.")), 0.3)
    out = hook_output(run_hook("stop", _old_stop_payload(path), env={"ARCGUARD_DRAIN_MS": "1500"}))
    later.join()
    assert out is not None and out["decision"] == "block"


def test_a_message_ending_in_tool_use_is_never_taken_as_the_final_one(tmp_path):
    _start_arc()
    path = write_transcript(
        tmp_path / "t.jsonl",
        assistant_entries(tool_use("Bash", {"command": "make"}, tool_id="toolu_open")),
    )
    later = _write_later(
        path,
        [tool_result("toolu_open", "ok")] + assistant_entries(text("No response requested.")),
        0.3,
    )
    out = hook_output(run_hook("stop", _old_stop_payload(path), env={"ARCGUARD_DRAIN_MS": "1500"}))
    later.join()
    assert out is not None and out["decision"] == "block"


def test_an_unanswered_tool_result_at_the_end_of_the_drain_is_an_empty_reply(tmp_path):
    _start_arc()
    path = write_transcript(tmp_path / "t.jsonl", _tool_turn("toolu_last"))
    out = hook_output(run_hook("stop", _old_stop_payload(path), env={"ARCGUARD_DRAIN_MS": "200"}))
    assert out is not None and out["decision"] == "block"


def test_a_real_final_reply_after_the_tool_result_is_left_alone(tmp_path):
    _start_arc()
    path = write_transcript(
        tmp_path / "t.jsonl",
        _tool_turn("toolu_done") + assistant_entries(text("Here is what the tests showed.")),
    )
    out = hook_output(run_hook("stop", _old_stop_payload(path), env={"ARCGUARD_DRAIN_MS": "1500"}))
    assert out is None


def test_a_tool_use_with_no_result_at_the_end_of_the_drain_is_not_continued(tmp_path):
    _start_arc()
    path = write_transcript(
        tmp_path / "t.jsonl",
        assistant_entries(tool_use("Bash", {"command": "make"}, tool_id="toolu_hanging")),
    )
    out = hook_output(run_hook("stop", _old_stop_payload(path), env={"ARCGUARD_DRAIN_MS": "200"}))
    assert out is None  # nothing says the turn ended empty: fail open


def test_a_drain_setting_beyond_the_hook_budget_still_ends_in_a_decision(tmp_path):
    _start_arc()
    path = write_transcript(tmp_path / "t.jsonl", _tool_turn("toolu_budget"))
    out = hook_output(run_hook("stop", _old_stop_payload(path), env={"ARCGUARD_DRAIN_MS": "60000"}))
    assert out is not None and out["decision"] == "block"  # not cut off by the watchdog
