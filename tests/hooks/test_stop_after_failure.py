"""The Stop hook reads whether the call before a final message failed, when that message says
the work is done: done said over a failing check is sent back, mid-arc."""

from __future__ import annotations

import threading

import pytest
from testing.builders import append_transcript
from testing.builders import assistant_entries
from testing.builders import hook_output
from testing.builders import run_hook
from testing.builders import text
from testing.builders import tool_result
from testing.builders import tool_use
from testing.builders import write_transcript

from tests.hooks.test_hook_commands import start_arc
from tests.hooks.test_hook_commands import stop_payload


DONE = "`web` and `api` lint clean under the new setup. Migration's done."


def _result(failed):
    return tool_result("t1", "Exit code 1\npackages/shared: 3 errors", is_error=failed)


def _transcript(tmp_path, *, failed, final=True):
    entries = assistant_entries(tool_use("Bash", {"command": "pnpm -r lint"}, tool_id="t1"))
    entries.append(_result(failed))
    if final:
        entries += assistant_entries(text(DONE))
    return write_transcript(tmp_path / "t.jsonl", entries)


@pytest.mark.parametrize("final", [True, False], ids=["written", "not-written-yet"])
def test_done_after_a_failed_check_is_sent_back(tmp_path, final):
    start_arc()
    path = _transcript(tmp_path, failed=True, final=final)
    out = hook_output(run_hook("stop", stop_payload(path, DONE)))
    assert out is not None and "right after a call failed" in out["reason"]


def test_done_after_a_passing_check_is_left_alone(tmp_path):
    start_arc()
    out = hook_output(run_hook("stop", stop_payload(_transcript(tmp_path, failed=False), DONE)))
    assert out is None


def test_done_read_from_the_transcript_alone_is_judged_alike(tmp_path):
    # Older releases send no `last_assistant_message`: the final message comes from the tail.
    start_arc()
    out = hook_output(run_hook("stop", stop_payload(_transcript(tmp_path, failed=True))))
    assert out is not None and "right after a call failed" in out["reason"]


def test_the_turn_flushed_after_stop_is_waited_for(tmp_path):
    # Stop may come before the turn's entries are on disk: the failure is read once they are.
    start_arc()
    calls = assistant_entries(tool_use("Bash", {"command": "pnpm -r lint"}, tool_id="t1"))
    path = write_transcript(tmp_path / "t.jsonl", calls)
    later = threading.Timer(
        0.3, append_transcript, (path, [_result(True), *assistant_entries(text(DONE))])
    )
    later.start()
    out = hook_output(run_hook("stop", stop_payload(path, DONE), env={"ARCGUARD_DRAIN_MS": "1500"}))
    later.join()
    assert out is not None and "right after a call failed" in out["reason"]
