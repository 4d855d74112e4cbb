"""Which hook event carries which turn's work, through the hook commands: outcomes from
PostToolBatch where it fires; without it, turns close at the next call or at the Stop."""

from __future__ import annotations

import json
from types import SimpleNamespace

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
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


def _bash_payload(path, n, command):
    """A tool-only message with one Bash call, written to the transcript: its hook payload."""
    tool_id = f"toolu_{n}"
    append_transcript(
        path, assistant_entries(tool_use("Bash", {"command": command}, tool_id=tool_id))
    )
    return {
        "session_id": SID,
        "transcript_path": str(path),
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": tool_id,
    }


def _call(path, n, command, *, result):
    """One tool-only message with one Bash call: PreToolUse, then PostToolUse unless denied."""
    base = _bash_payload(path, n, command)
    tool_id = base["tool_use_id"]
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
    assert track["pending"][0]["ids"] == ["toolu_q"]
    assert track["streak"] == 0  # counted once its message is read


def test_turns_whose_messages_are_not_on_disk_yet_cost_no_wait_while_nothing_would_act(
    tmp_path, monkeypatch
):
    # Claude Code writes its transcript on a timer: a hook that answers in milliseconds
    # meets several turns in a row whose messages are not written yet.
    path = write_transcript(tmp_path / "t.jsonl", [])
    _never_sleeps(monkeypatch)
    home = tmp_path / "home"
    for n, command in enumerate(["echo A", "echo B", "echo A", "echo B"]):
        payload = {**_batch(f"toolu_{n}", command), "transcript_path": str(path)}
        assert hook_driver.dispatch("post-batch", payload, home) is None
    assert len(_main_track(home)["pending"]) == 4


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
    assert _main_track(home)["streak"] == 3 and _main_track(home)["pending"]
    # By the next batch the late message is on disk, and it said something: the run ends there.
    append_transcript(path, _message("toolu_q", "ls", said="Now the other module."))
    append_transcript(path, _message("toolu_r", "ls src"))
    hook_driver.dispatch(
        "post-batch", {**_batch("toolu_r", "ls src"), "transcript_path": str(path)}, home
    )
    track = _main_track(home)
    assert "pending" not in track
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
    assert "pending" not in state["guard"]["tracks"]["main"]


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


# A turn: which call it makes (a few, so cycles form) and what its message says: nothing,
# something, or a repeat of something said before.
_TURN = st.tuples(
    st.sampled_from(["echo A", "echo B", "echo C"]), st.sampled_from(["", "", "x", "y"])
)
_SAID = {"": None, "x": "Checking the build once more.", "y": "Now the other module."}


def _session(tmp_path, turns, lag, name):
    """Run `turns` through the batch hook with each message landing `lag` batches late (or
    as soon as a hook waits for it): the outputs, and the run as the state holds it."""
    path = write_transcript(tmp_path / f"{name}.jsonl", [])
    home = tmp_path / name
    unwritten: list = []
    outputs = []
    for n, (command, said) in enumerate(turns):
        unwritten.append(_message(f"toolu_{n}", command, said=_SAID[said]))
        if len(unwritten) > lag:
            append_transcript(path, [e for m in unwritten for e in m])
            unwritten.clear()

        def sleep(_seconds, unwritten=unwritten):
            if unwritten:
                append_transcript(path, [e for m in unwritten for e in m])
                unwritten.clear()

        hook_reader.time.sleep = sleep
        payload = {**_batch(f"toolu_{n}", command), "transcript_path": str(path)}
        outputs.append(hook_driver.dispatch("post-batch", payload, home))
    # One more turn, with every message on disk by then, settles what is still pending.
    append_transcript(path, [e for m in unwritten for e in m] + _message("toolu_end", "echo D"))
    payload = {**_batch("toolu_end", "echo D"), "transcript_path": str(path)}
    outputs.append(hook_driver.dispatch("post-batch", payload, home))
    state = support.read_state(home, SID)
    track = state["guard"]["tracks"]["main"]
    run = {key: track.get(key) for key in ("fingerprints", "fresh", "streak", "labels", "pending")}
    paused = state["guard"]["paused"]
    return outputs, run, paused and {k: v for k, v in paused.items() if k != "at"}


@settings(max_examples=20, deadline=None)
@given(turns=st.lists(_TURN, min_size=4, max_size=12), lag=st.integers(1, 6))
def test_decisions_do_not_depend_on_how_late_the_messages_land(tmp_path_factory, turns, lag):
    # What a hook decides must not depend on whether Claude Code had written the turn's
    # message (and the earlier ones) when the hook ran: a hook that answers in milliseconds
    # runs ahead of the transcript, a slow one does not.
    tmp_path = tmp_path_factory.mktemp("lag")
    sleep = hook_reader.time.sleep
    try:
        in_time = _session(tmp_path, turns, 0, "in-time")
        late = _session(tmp_path, turns, lag, "late")
    finally:
        hook_reader.time.sleep = sleep
    assert late == in_time


def _failing_call(home, path, n, command, error):
    """One tool-only message with one Bash call that fails: (PreToolUse's, PostToolUseFailure's
    output)."""
    base = _bash_payload(path, n, command)
    pre = hook_output(run_hook("pre-tool", {**base, "hook_event_name": "PreToolUse"}, home))
    post = hook_output(
        run_hook(
            "post-tool", {**base, "hook_event_name": "PostToolUseFailure", "error": error}, home
        )
    )
    append_transcript(path, [tool_result(base["tool_use_id"], error, is_error=True)])
    return pre, post


def test_without_the_batch_a_request_waits_for_the_calls_result_which_a_failure_keeps(tmp_path):
    # Releases without PostToolBatch close a turn at the next call's PreToolUse; the oldest of
    # them drop that hook's context when the call fails, but deliver its failure hook's.
    home, path = tmp_path / "home", write_transcript(tmp_path / "t.jsonl", [])
    spellings = ("make", "make all", "make -k", "make all -k", "make  all")
    outputs = [
        _failing_call(home, path, n, c, "Exit code 2\nmake: *** No rule to make target 'all'.")
        for n, c in enumerate(spellings)
    ]
    assert [pre for pre, _ in outputs] == [None] * 5
    assert [post is not None for _, post in outputs] == [False] * 4 + [True]
    last = outputs[4][1]
    assert last["hookSpecificOutput"]["hookEventName"] == "PostToolUseFailure"
    assert "4 attempts failed the same way" in last["hookSpecificOutput"]["additionalContext"]
    assert "error_checkin_repeats" in last["systemMessage"]
    state = support.read_state(home, SID)
    assert [e["kind"] for e in state["log"]] == ["nudge"]
    assert state["guard"]["tracks"]["main"].get("held", []) == []
