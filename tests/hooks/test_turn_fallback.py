"""Which hook event carries which turn's work, through the hook commands: outcomes from
PostToolBatch where it fires; without it, turns close at the next call or at the Stop."""

from __future__ import annotations

import json
from types import SimpleNamespace

from testing import hook_driver
from testing.builders import append_transcript
from testing.builders import assistant_entries
from testing.builders import hook_output
from testing.builders import run_hook
from testing.builders import text
from testing.builders import tool_result
from testing.builders import tool_use
from testing.builders import write_transcript

from arcguard.transcript import hook_reader
from tests.reliability import support


SID = "5b1f0c2e-0000-4000-8000-00000000f00d"


def _call(path, n, command, *, result):
    """One tool-only message with one Bash call: PreToolUse, then PostToolUse unless denied."""
    tool_id = f"toolu_{n}"
    append_transcript(
        path, assistant_entries(tool_use("Bash", {"command": command}, tool_id=tool_id))
    )
    base = {
        "session_id": SID,
        "transcript_path": str(path),
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": tool_id,
    }
    pre = hook_output(run_hook("pre-tool", {**base, "hook_event_name": "PreToolUse"}))
    if pre and pre.get("hookSpecificOutput", {}).get("permissionDecision") == "deny":
        return pre
    run_hook(
        "post-tool",
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_response": {"stdout": result, "stderr": ""},
        },
    )
    append_transcript(path, [tool_result(tool_id, result)])
    return pre


def test_pre_tool_closes_the_previous_turn_and_pauses_an_alternating_pair(tmp_path):
    path = write_transcript(tmp_path / "t.jsonl", [])
    outputs = [
        _call(path, n, "echo A" if n % 2 == 0 else "echo B", result="same") for n in range(7)
    ]
    assert outputs[6] is not None
    assert outputs[6]["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert outputs[6]["continue"] is False
    assert "2-call cycle" in outputs[6]["stopReason"]


def test_the_stop_closes_the_open_turn_and_pauses_a_cycle(tmp_path):
    path = write_transcript(tmp_path / "t.jsonl", [])
    outputs = [_call(path, n, "poll", result=f"pending {n}") for n in range(5)]
    assert outputs == [None] * 5  # the fifth turn is still open
    out = hook_output(
        run_hook(
            "stop",
            {
                "session_id": SID,
                "transcript_path": str(path),
                "hook_event_name": "Stop",
                "stop_hook_active": False,
                "last_assistant_message": "Still polling.",
            },
        )
    )
    assert out is not None and out["continue"] is False
    assert "the same call 5 times" in out["stopReason"]


def _batch_call(path, n, command, result):
    """One call whose result only PostToolBatch reports (PostToolUse is not wired for Bash)."""
    tool_id = f"toolu_b{n}"
    append_transcript(
        path, assistant_entries(tool_use("Bash", {"command": command}, tool_id=tool_id))
    )
    call = {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": tool_id}
    pre = hook_output(
        run_hook(
            "pre-tool",
            {
                "session_id": SID,
                "transcript_path": str(path),
                "hook_event_name": "PreToolUse",
                **call,
            },
        )
    )
    run_hook(
        "post-batch",
        {
            "session_id": SID,
            "transcript_path": str(path),
            "hook_event_name": "PostToolBatch",
            "tool_calls": [{**call, "tool_response": result}],
        },
    )
    return pre


def test_outcomes_from_the_batch_let_a_call_with_changing_results_run(tmp_path):
    path = write_transcript(tmp_path / "t.jsonl", [])
    outputs = [_batch_call(path, n, "make test", f"{5 - n} failing") for n in range(4)]
    assert outputs == [None] * 4


def test_outcomes_from_the_batch_deny_a_third_identical_call(tmp_path):
    path = write_transcript(tmp_path / "t.jsonl", [])
    outputs = [_batch_call(path, n, "make test", "3 failing") for n in range(3)]
    assert outputs[:2] == [None, None]
    assert outputs[2]["hookSpecificOutput"]["permissionDecision"] == "deny"


# Claude Code queues its transcript writes and flushes them on a timer, so a call's hooks can
# start before the call's own entry is on disk. These run the handlers in-process, with the
# entry landing during the hook's first wait.


def _late_flush(monkeypatch, path, entries):
    def sleep(_seconds):
        if entries:
            append_transcript(path, entries[:])
            entries.clear()

    monkeypatch.setattr(hook_reader.time, "sleep", sleep)


def _main_track(home):
    return support.read_state(home, SID)["guard"]["tracks"]["main"]


def _batch(tool_id, command):
    call = {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": tool_id}
    return {
        "session_id": SID,
        "hook_event_name": "PostToolBatch",
        "tool_calls": [{**call, "tool_response": ""}],
    }


def _message(tool_id, command, *, said=None):
    blocks = [text(said)] if said else []
    return assistant_entries(*blocks, tool_use("Bash", {"command": command}, tool_id=tool_id))


def _never_sleeps(monkeypatch):
    def sleep(_seconds):
        raise AssertionError("the hook waited for the transcript")

    monkeypatch.setattr(hook_reader.time, "sleep", sleep)


def test_a_quick_turn_whose_message_is_not_on_disk_yet_costs_no_wait(tmp_path, monkeypatch):
    path = write_transcript(tmp_path / "t.jsonl", [])
    _never_sleeps(monkeypatch)
    home = tmp_path / "home"
    assert (
        hook_driver.dispatch(
            "post-batch", {**_batch("toolu_q", "ls"), "transcript_path": str(path)}, home
        )
        is None
    )
    track = _main_track(home)
    assert track["unconfirmed"]["ids"] == ["toolu_q"]
    assert track["streak"] == 1  # taken as tool-only for now


def test_the_next_batch_settles_a_late_turn_that_narrated(tmp_path, monkeypatch):
    path = write_transcript(tmp_path / "t.jsonl", [])
    _never_sleeps(monkeypatch)
    home = tmp_path / "home"
    for n in range(3):
        append_transcript(path, _message(f"toolu_{n}", f"cat part{n}"))
        hook_driver.dispatch(
            "post-batch",
            {**_batch(f"toolu_{n}", f"cat part{n}"), "transcript_path": str(path)},
            home,
        )
    hook_driver.dispatch(
        "post-batch", {**_batch("toolu_q", "ls"), "transcript_path": str(path)}, home
    )
    assert _main_track(home)["streak"] == 4
    # By the next batch the late message is on disk, and it said something: the run ends there.
    append_transcript(path, _message("toolu_q", "ls", said="Now the other module."))
    append_transcript(path, _message("toolu_r", "ls src"))
    hook_driver.dispatch(
        "post-batch", {**_batch("toolu_r", "ls src"), "transcript_path": str(path)}, home
    )
    track = _main_track(home)
    assert "unconfirmed" not in track
    assert track["streak"] == 1 and len(track["fingerprints"]) == 1


def _alternate(home, path, turns):
    for n in range(turns):
        command = "echo A" if n % 2 == 0 else "echo B"
        append_transcript(path, _message(f"toolu_{n}", command))
        out = hook_driver.dispatch(
            "post-batch", {**_batch(f"toolu_{n}", command), "transcript_path": str(path)}, home
        )
        assert out is None
    return "echo A" if turns % 2 == 0 else "echo B"


def test_a_late_turn_that_would_pause_waits_for_its_message_then_pauses(tmp_path, monkeypatch):
    path = write_transcript(tmp_path / "t.jsonl", [])
    home = tmp_path / "home"
    command = _alternate(home, path, 5)
    _late_flush(monkeypatch, path, _message("toolu_last", command))
    out = hook_driver.dispatch(
        "post-batch", {**_batch("toolu_last", command), "transcript_path": str(path)}, home
    )
    assert out is not None and json.loads(out)["continue"] is False
    assert support.read_state(home, SID)["guard"]["paused"]["kind"] == "cycle"


def test_a_late_turn_whose_message_never_lands_does_not_pause(tmp_path, monkeypatch):
    path = write_transcript(tmp_path / "t.jsonl", [])
    home = tmp_path / "home"
    command = _alternate(home, path, 5)
    clock = iter(range(1000))
    monkeypatch.setattr(
        hook_reader,
        "time",
        SimpleNamespace(monotonic=lambda: next(clock) / 100, sleep=lambda _: None),
    )
    out = hook_driver.dispatch(
        "post-batch", {**_batch("toolu_last", command), "transcript_path": str(path)}, home
    )
    assert out is None  # unknown is not tool-only: no pause on a guess
    state = support.read_state(home, SID)
    assert state["guard"]["paused"] is None
    assert "unconfirmed" not in state["guard"]["tracks"]["main"]


def _pre(tool_id, command, path):
    return {
        "session_id": SID,
        "transcript_path": str(path),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": tool_id,
    }


def test_without_the_batch_a_turns_first_call_is_counted_without_waiting(tmp_path, monkeypatch):
    path = write_transcript(tmp_path / "t.jsonl", [])
    _never_sleeps(monkeypatch)
    home = tmp_path / "home"
    hook_driver.dispatch("pre-tool", _pre("toolu_1", "ls", path), home)
    turn = _main_track(home)["open_turn"]
    assert turn["message"] is None and turn["ids"] == ["toolu_1"]
    assert [c["label"] for c in turn["steps"]] == ["Bash: ls"] and turn["calls"] == []


def test_without_the_batch_a_later_call_waits_for_its_entry_then_closes_the_turn(
    tmp_path, monkeypatch
):
    path = write_transcript(tmp_path / "t.jsonl", [])
    home = tmp_path / "home"
    _never_sleeps(monkeypatch)
    hook_driver.dispatch("pre-tool", _pre("toolu_1", "ls", path), home)
    first = _message("toolu_1", "ls")
    append_transcript(path, first)
    second = _message("toolu_2", "ls src")
    _late_flush(monkeypatch, path, second[:])
    hook_driver.dispatch("pre-tool", _pre("toolu_2", "ls src", path), home)
    track = _main_track(home)
    # The first turn was named from the transcript and closed as tool-only; the second is open.
    assert track["turns"] == 1 and track["streak"] == 1
    assert track["open_turn"]["message"] == second[0]["message"]["id"]
    assert [c["label"] for c in track["open_turn"]["steps"]] == ["Bash: ls src"]


def test_without_the_batch_parallel_calls_of_a_late_message_stay_one_turn(tmp_path, monkeypatch):
    path = write_transcript(tmp_path / "t.jsonl", [])
    home = tmp_path / "home"
    _never_sleeps(monkeypatch)
    hook_driver.dispatch("pre-tool", _pre("toolu_1", "ls", path), home)
    # Both calls' entries land together, while the second call waits for its own.
    both = assistant_entries(
        tool_use("Bash", {"command": "ls"}, tool_id="toolu_1"),
        tool_use("Bash", {"command": "ls src"}, tool_id="toolu_2"),
    )
    _late_flush(monkeypatch, path, both[:])
    hook_driver.dispatch("pre-tool", _pre("toolu_2", "ls src", path), home)
    track = _main_track(home)
    assert track["turns"] == 0  # nothing closed: one message, one turn
    assert track["open_turn"]["message"] == both[0]["message"]["id"]
    assert len(track["open_turn"]["steps"]) == 2


def test_a_cycle_pauses_at_the_same_turn_when_every_message_lands_only_after_its_batch(
    tmp_path, monkeypatch
):
    # A hook that answers in milliseconds (resident mode, an in-process callback) can reach
    # the next batch before the previous turn's message is written: each message lands only
    # while a later hook waits. The A,B cycle must still pause at the sixth turn, as it does
    # when every message is on disk in time (`_alternate` above).
    path = write_transcript(tmp_path / "t.jsonl", [])
    home = tmp_path / "home"
    pending: list = []
    _late_flush(monkeypatch, path, pending)
    outputs = []
    for n in range(6):
        command = "echo A" if n % 2 == 0 else "echo B"
        pending += _message(f"toolu_{n}", command)
        payload = {**_batch(f"toolu_{n}", command), "transcript_path": str(path)}
        outputs.append(hook_driver.dispatch("post-batch", payload, home))
    assert outputs[:5] == [None] * 5
    assert outputs[5] is not None and json.loads(outputs[5])["continue"] is False
    assert support.read_state(home, SID)["guard"]["paused"]["kind"] == "cycle"
