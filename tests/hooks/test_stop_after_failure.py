"""The Stop hook reads whether the call before a final message failed, when that message says
the work is done: done said over a failing check is sent back, mid-arc."""

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

from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.config_input import build_config
from arcguard.core.schema import StateFile
from arcguard.core.state import fresh_state
from arcguard.hooks import stop
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


def test_done_after_a_failed_check_is_sent_back(tmp_path):
    start_arc()
    out = hook_output(run_hook("stop", stop_payload(_transcript(tmp_path, failed=True), DONE)))
    assert out is not None and "right after a call failed" in out["reason"]


def test_a_message_never_written_is_not_judged(tmp_path):
    # What the transcript does not show within the drain budget is not held against the model.
    start_arc()
    path = _transcript(tmp_path, failed=True, final=False)
    out = hook_output(run_hook("stop", stop_payload(path, DONE), env={"ARCGUARD_DRAIN_MS": "300"}))
    assert out is None


def test_the_same_words_again_are_judged_by_the_new_message(tmp_path):
    # Sent back once, the model says the same words again; its new message is not on disk yet.
    # The first message, already judged, is not taken for it.
    start_arc()
    path = _transcript(tmp_path, failed=True)
    assert hook_output(run_hook("stop", stop_payload(path, DONE)))
    env = {"ARCGUARD_DRAIN_MS": "300"}
    assert hook_output(run_hook("stop", stop_payload(path, DONE), env=env)) is None


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


class _Ctx:
    now = 1_800_000_000.0

    def __init__(self, policy):
        self.cfg = build_config({}, {"stop_policy": policy})[0]


def test_only_a_stop_mid_arc_under_a_policy_that_sends_back_reads_the_transcript():
    state = fresh_state("sid", _Ctx.now)
    assert stop._mid_arc(state, _Ctx("ask")) is None  # no arc
    StateFile.view(state).arc = arcs.new_arc("demo", [], _Ctx.now)
    assert stop._mid_arc(state, _Ctx("noop")) is None
    assert stop._mid_arc(state, _Ctx("ask")) == set()
