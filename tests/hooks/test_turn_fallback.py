"""Which hook event carries which turn's work, through the hook commands: outcomes from
PostToolBatch where it fires; without it, turns close at the next call or at the Stop."""

from __future__ import annotations

from testing.builders import append_transcript
from testing.builders import assistant_entries
from testing.builders import hook_output
from testing.builders import run_hook
from testing.builders import tool_result
from testing.builders import tool_use
from testing.builders import write_transcript


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
