"""What large tool inputs leave in the state file: never the inputs, never more than the budget,
and never the loss of an active arc to a size limit."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from testing.builders import append_transcript
from testing.builders import assistant_entries
from testing.builders import run_hook
from testing.builders import tool_use
from testing.builders import write_transcript
from testing.cli import invoke

from arcguard import jsonio
from arcguard.core import schema
from arcguard.storage import paths
from arcguard.storage import store


SID = "5b1f0c2e-0000-4000-8000-00000000c0de"
MARK = "UNIQUE-INPUT-MARK"
BIG = 900_000  # bytes of content in one call, as in a large Write


def home() -> str:
    return paths.state_dir(os.environ)


def state_file() -> Path:
    return Path(paths.session_path(home(), SID))


def start_arc() -> None:
    assert run_hook("posture", {"session_id": SID, "prompt": "/autonomous go"}).returncode == 0


def large_calls(message: int) -> list[tuple[str, dict[str, Any]]]:
    """Ten calls, each carrying about 0.9 MB: the editing tools and the shell."""
    # The mark lies beyond what a label shows of a command.
    body = "x" * 200 + (MARK + "x" * 64 + "\n") * (BIG // 82)
    shapes: list[tuple[str, dict[str, Any]]] = [
        ("Write", {"file_path": f"/w/{message}-{{}}.txt", "content": body}),
        ("Edit", {"file_path": f"/w/{message}-{{}}.py", "old_string": body, "new_string": "y"}),
        (
            "MultiEdit",
            {
                "file_path": f"/w/{message}-{{}}.md",
                "edits": [{"old_string": body, "new_string": ""}],
            },
        ),
        ("Bash", {"command": f"cat > /w/{message}-{{}} <<'EOF'\n{body}EOF"}),
    ]
    calls = []
    for n in range(10):
        name, given = shapes[n % len(shapes)]
        given = {
            k: (v.replace("{}", str(n)) if isinstance(v, str) and k != "content" else v)
            for k, v in given.items()
        }
        calls.append((name, given))
    return calls


def run_message(path: Path, message: int, *, batch: bool) -> None:
    calls = large_calls(message)
    ids = [f"toolu_{message}_{n}" for n in range(len(calls))]
    # The transcript names the message's calls (their inputs matter to nobody there).
    append_transcript(
        path,
        assistant_entries(
            *(
                tool_use(name, {"file_path": "x"}, tool_id=i)
                for (name, _), i in zip(calls, ids, strict=True)
            )
        ),
    )
    base = {"session_id": SID, "transcript_path": str(path)}
    for (name, given), tool_id in zip(calls, ids, strict=True):
        pre = {**base, "hook_event_name": "PreToolUse", "tool_name": name, "tool_input": given}
        assert run_hook("pre-tool", {**pre, "tool_use_id": tool_id}).returncode == 0
        assert state_file().stat().st_size <= schema.STATE_BUDGET
        post = {**pre, "hook_event_name": "PostToolUse", "tool_use_id": tool_id}
        run_hook("post-tool", {**post, "tool_response": {"stdout": "ok", "stderr": ""}})
    if batch:
        # Claude Code's batch carries every call again; three of them fit under the payload bound.
        tool_calls = [
            {"tool_name": name, "tool_input": given, "tool_use_id": i, "tool_response": "ok"}
            for (name, given), i in list(zip(calls, ids, strict=True))[:3]
        ]
        batch_payload = {**base, "hook_event_name": "PostToolBatch", "tool_calls": tool_calls}
        assert run_hook("post-batch", batch_payload).returncode == 0


def assert_small_and_the_arc_kept() -> None:
    data = state_file().read_bytes()
    assert len(data) <= schema.STATE_BUDGET
    assert MARK.encode() not in data  # no tool input is kept
    assert invoke("arc", "status", SID).output.startswith("active ")
    assert not list(state_file().parent.glob("*.corrupt-*"))


def test_large_tool_inputs_with_post_tool_batch_stay_within_the_state_budget(tmp_path):
    start_arc()
    path = write_transcript(tmp_path / "t.jsonl", [])
    for message in range(2):
        run_message(path, message, batch=True)
    assert_small_and_the_arc_kept()


def test_large_tool_inputs_without_post_tool_batch_stay_within_the_state_budget(tmp_path):
    start_arc()
    path = write_transcript(tmp_path / "t.jsonl", [])
    for message in range(3):
        run_message(path, message, batch=False)  # each message's calls close the last turn
    stop = {"session_id": SID, "hook_event_name": "Stop", "transcript_path": str(path)}
    assert run_hook("stop", {**stop, "last_assistant_message": "Working on it."}).returncode == 0
    assert_small_and_the_arc_kept()


def test_hostile_ids_and_names_cannot_grow_the_state_past_its_budget(tmp_path):
    start_arc()
    for n in range(12):
        payload = {
            "session_id": SID,
            "hook_event_name": "PreToolUse",
            "tool_name": f"mcp__{n}__" + "n" * 200_000,
            "tool_input": {"command": "c" * 200_000},
            "tool_use_id": f"{n}-" + "\U0001f600" * 200_000,
            "agent_id": f"{n}-" + "a" * 200_000,
        }
        assert run_hook("pre-tool", payload).returncode == 0
    assert state_file().stat().st_size < 200_000
    assert invoke("arc", "status", SID).output.startswith("active ")


# --- a file over the limit loses its history, never its arc --------------------------------


def old_oversized_state() -> dict[str, Any]:
    """A state an earlier version could write: the open turn keeping whole tool inputs."""
    import time

    from arcguard.core.arc_keeper.arc import new_arc
    from arcguard.core.loop_guard.tracks import new_track
    from arcguard.core.state import fresh_state

    now = time.time()
    state: Any = fresh_state(SID, now)
    state["arc"] = new_arc("importer", ["parse", "load"], now).data
    state["arc"].update(reconcile_count=1, total_blocks=4, limit_resumes=2)
    state["guard"]["edit_seq"] = 7
    track = new_track(now).data
    body = MARK + "x" * 1_000_000
    track["open_turn"] = {
        "message": "msg_1",
        "tool_only": True,
        "calls": [["Write", {"file_path": f"/w/{n}", "content": body}] for n in range(10)],
        "ids": [f"toolu_{n}" for n in range(10)],
    }
    state["guard"]["tracks"] = {"main": track}
    return state


def test_an_oversized_state_file_keeps_its_arc_and_caps_and_is_rewritten_small():
    state_file().parent.mkdir(parents=True, exist_ok=True)
    state_file().write_bytes(jsonio.dumps(old_oversized_state()).encode("ascii"))
    assert state_file().stat().st_size > store.MAX_STATE_BYTES
    assert invoke("arc", "status", SID).output == "active importer\n"
    kept = store.read_session(home(), SID)
    assert kept is not None and kept["arc"] is not None
    arc = kept["arc"]
    assert (arc["reconcile_count"], arc["total_blocks"], arc["limit_resumes"]) == (1, 4, 2)
    assert kept["guard"]["edit_seq"] == 7 and kept["guard"].get("tracks", {}) == {}
    data = state_file().read_bytes()
    assert len(data) < 100_000 and MARK.encode() not in data
    assert "over the" in (Path(home()) / "arcguard.log").read_text()


def test_a_state_that_would_pass_the_limit_is_written_without_its_history():
    import time

    start_arc()

    def grow(current):
        new = dict(current)
        new["from_a_newer_version"] = "z" * (store.MAX_STATE_BYTES + 1)
        return new, None

    store.update(home(), SID, grow, now=time.time(), lock_timeout=5.0)
    assert state_file().stat().st_size < 100_000
    assert invoke("arc", "status", SID).output == "active go\n"
