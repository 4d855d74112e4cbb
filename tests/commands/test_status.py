"""`arcguard status` over state files written by real hook runs, and the decision log."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from testing.builders import append_transcript
from testing.builders import assistant_entries
from testing.builders import tool_use
from testing.builders import write_transcript
from testing.cli import invoke

from arcguard.commands.group import cli
from arcguard.core.config import DEFAULTS
from arcguard.storage import paths


arcguard = invoke


def hook(name: str, payload: dict[str, Any], **env: str) -> str:
    """Run `arcguard hook NAME` as Claude Code does: a process, the payload on stdin."""
    done = subprocess.run(
        [sys.executable, "-m", "arcguard", "hook", name],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
        check=True,
    )
    return done.stdout


def verb(*args: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "arcguard", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout


def stop(session: str, text: str, *, active: bool = False) -> str:
    return hook(
        "stop",
        {
            "session_id": session,
            "hook_event_name": "Stop",
            "last_assistant_message": text,
            "stop_hook_active": active,
        },
    )


def bash_turn(session: str, call_id: str, transcript: Path, **env: str) -> str:
    call = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": call_id}
    out = hook("pre-tool", {"session_id": session, "hook_event_name": "PreToolUse", **call}, **env)
    hook(
        "post-tool",
        {
            "session_id": session,
            "hook_event_name": "PostToolUse",
            **call,
            "tool_response": {"stdout": "a", "stderr": ""},
        },
        **env,
    )
    # A tool-only turn: its message, as the transcript has it, carries no text.
    append_transcript(
        transcript, assistant_entries(tool_use("Bash", {"command": "ls"}, tool_id=call_id))
    )
    hook(
        "post-batch",
        {
            "session_id": session,
            "hook_event_name": "PostToolBatch",
            "transcript_path": str(transcript),
            "tool_calls": [call],
        },
        **env,
    )
    return out


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Two sessions driven through real hook processes; returns the state dir and outputs."""
    home = str(tmp_path_factory.mktemp("status-home"))
    saved = os.environ.get("ARCGUARD_HOME")
    os.environ["ARCGUARD_HOME"] = home
    try:
        outputs: dict[str, Any] = {}
        # An arc with milestones: two continuations, then the cap, then the model says done.
        verb("arc", "set", "arc-sess", "importer", "parse", "load", "report")
        verb("arc", "done", "arc-sess", "parse")
        outputs["blocks"] = [
            stop("arc-sess", "No response requested."),
            stop("arc-sess", "No response requested.", active=True),
        ]
        outputs["cap"] = stop("arc-sess", "No response requested.", active=True)
        outputs["release"] = stop("arc-sess", "The arc is complete.")
        # A loop: a repeat denied, a check-in nudge, then a cycle pause.
        hook(
            "posture",
            {
                "session_id": "loop-sess",
                "hook_event_name": "UserPromptSubmit",
                "prompt": "/autonomous tidy up",
                "cwd": "/srv/projects/shop",
            },
        )
        env = {
            "ARCGUARD_CHECKIN_TURNS": "1",
            "ARCGUARD_CYCLE_REPEATS_IDENTICAL": "3",
            "ARCGUARD_REPEAT_LIMIT": "2",
        }
        transcript = write_transcript(tmp_path_factory.mktemp("transcripts") / "loop.jsonl", [])
        outputs["turns"] = [bash_turn("loop-sess", f"t{i}", transcript, **env) for i in range(3)]
    finally:
        if saved is None:
            del os.environ["ARCGUARD_HOME"]
        else:
            os.environ["ARCGUARD_HOME"] = saved
    return {"home": home, **outputs}


@pytest.fixture
def state_home(recorded: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ARCGUARD_HOME", recorded["home"])
    return str(recorded["home"])


def test_the_hook_runs_made_the_decisions_under_test(recorded: dict[str, Any]) -> None:
    assert all('"decision":"block"' in out for out in recorded["blocks"])
    # A stall let through at the cap is no decision; the user is told through the terminal
    # and in a line the model does not see.
    assert set(json.loads(recorded["cap"])) == {"terminalSequence", "systemMessage"}
    assert recorded["release"] == ""
    assert "permissionDecision" in recorded["turns"][2]


def test_every_decision_kind_is_in_the_log(state_home: str) -> None:
    kinds = {}
    for session in ("arc-sess", "loop-sess"):
        document = json.loads(arcguard("status", "--json", "--session", session).output)
        for entry in document["session"]["log"]:
            kinds.setdefault(entry["kind"], entry)
    assert {"continue", "cap", "release", "arc", "deny", "nudge", "pause"} <= set(kinds)
    for entry in kinds.values():
        assert isinstance(entry["t"], float) and entry["hook"] and entry["reason"]
    assert kinds["deny"]["operation"] == "Bash: ls"
    assert kinds["pause"]["rule"] == "cycle"
    assert kinds["continue"]["consecutive"] == 1


def test_table_lists_sessions_newest_first(state_home: str) -> None:
    result = arcguard("status")
    assert result.exit_code == 0
    header, first, second = (re.split(r"\s{2,}", line) for line in result.output.splitlines())
    assert header == [
        "UPDATED (UTC)",
        "SESSION",
        "PROJECT",
        "TASK",
        "STATE",
        "MILESTONES",
        "IN A ROW",
        "IN ARC",
        "DENIALS",
        "BLOCKED",
        "PAUSE",
    ]
    # The task typed after /autonomous and the folder it was typed in, not the slug; counts as
    # used/cap, like the status line; no milestone count for an arc that has none.
    caps = (
        f"0/{DEFAULTS['max_consecutive_continuations']}",
        f"0/{DEFAULTS['max_continuations_per_arc']}",
    )
    assert first[1:10] == [
        "loop-sess",
        "/srv/projects/shop",
        "tidy up",
        "active",
        "-",
        *caps,
        "1",
        "1",
    ]
    assert first[10].startswith("cycle: arcguard paused this session")
    row, arc = (
        f"2/{DEFAULTS['max_consecutive_continuations']}",
        f"2/{DEFAULTS['max_continuations_per_arc']}",
    )
    assert second[1:] == ["arc-sess", "-", "importer", "complete", "1/3", row, arc, "0", "0", "-"]


def test_session_view_shows_arc_guard_and_decisions(state_home: str) -> None:
    text = arcguard("status", "--session", "arc-sess").output
    assert "arc       importer (complete), milestones 1/3, next: load" in text
    assert (
        f"continued 2/{DEFAULTS['max_consecutive_continuations']} in a row, "
        f"2/{DEFAULTS['max_continuations_per_arc']} in this arc"
    ) in text
    assert "project   -" in text
    loop = arcguard("status", "--session", "loop-sess").output
    assert "project   /srv/projects/shop" in loop and "arc       tidy up (" in loop
    assert "paused    no" in text
    assert "decisions (4, oldest first):" in text
    lines = [line for line in text.splitlines() if line.startswith("  ")]
    assert [line.split()[3] for line in lines] == ["continue", "continue", "cap", "release"]
    assert "consecutive=2 lifetime=2 rule=no-op - no-op stop mid-arc sent back to work" in lines[1]


def test_session_view_shows_a_pause(state_home: str) -> None:
    text = arcguard("status", "--session", "loop-sess").output
    assert "paused    cycle: arcguard paused this session" in text
    assert "guard     1 denials, 1 blocked rounds" in text


def test_a_session_id_prefix_works(state_home: str) -> None:
    assert "session   loop-sess" in arcguard("status", "--session", "loop").output


def test_an_unknown_or_ambiguous_session_is_an_error(state_home: str) -> None:
    missing = arcguard("status", "--session", "nope")
    assert missing.exit_code == 1 and "no state for session 'nope'" in missing.output
    both = CliRunner().invoke(cli, ["status", "--session", ""])
    assert both.exit_code == 1 and "2 sessions start with ''" in both.output


SESSION_KEYS = {
    "project",
    "session_id",
    "file",
    "updated",
    "updated_iso",
    "error",
    "arc",
    "guard",
    "limit_wait",
    "switched_off",
}
ARC_KEYS = {
    "slug",
    "name",
    "state",
    "milestones_done",
    "milestones_total",
    "next_milestone",
    "consecutive",
    "lifetime",
    "task",
    "consecutive_cap",
    "lifetime_cap",
}
GUARD_KEYS = {"paused", "denials", "blocked_rounds", "last_pause"}


def test_json_schema_is_stable(state_home: str) -> None:
    document = json.loads(arcguard("status", "--json").output)
    assert set(document) == {"schema", "state_dir", "sessions", "switch"}
    assert document["schema"] == 1 and document["state_dir"] == state_home
    loop, arc = document["sessions"]
    for session in (loop, arc):
        assert set(session) == SESSION_KEYS
        assert set(session["arc"]) == ARC_KEYS
        assert set(session["guard"]) == GUARD_KEYS
    assert arc["arc"] == {
        "slug": "importer",
        "name": "importer",
        "state": "complete",
        "milestones_done": 1,
        "milestones_total": 3,
        "next_milestone": "load",
        "consecutive": 2,
        "lifetime": 2,
        "task": "",
        "consecutive_cap": DEFAULTS["max_consecutive_continuations"],
        "lifetime_cap": DEFAULTS["max_continuations_per_arc"],
    }
    assert (loop["project"], loop["arc"]["task"]) == ("/srv/projects/shop", "tidy up")
    assert arc["project"] is None
    assert set(loop["guard"]["paused"]) == {"kind", "reason", "at"}
    assert set(loop["guard"]["last_pause"]) == {"rule", "reason", "t"}
    full = json.loads(arcguard("status", "--json", "--session", "loop-sess").output)
    assert set(full) == {"schema", "state_dir", "session"}
    assert set(full["session"]) == SESSION_KEYS | {"log", "events"}


def test_limit_keeps_the_newest(state_home: str) -> None:
    document = json.loads(arcguard("status", "--json", "--limit", "1").output)
    assert [s["session_id"] for s in document["sessions"]] == ["loop-sess"]


def test_no_sessions_yet() -> None:
    result = arcguard("status")
    assert result.exit_code == 0 and result.output.startswith("no sessions yet in ")
    assert json.loads(arcguard("status", "--json").output)["sessions"] == []


def test_an_unreadable_state_file_is_listed_not_fatal() -> None:
    home = os.environ["ARCGUARD_HOME"]
    bad = Path(paths.ensure_sessions_dir(home)) / "broken.json"
    bad.write_text("{not json")
    [session] = json.loads(arcguard("status", "--json").output)["sessions"]
    assert session["file"] == str(bad) and session["error"].startswith("not JSON")
    assert "unreadable" in arcguard("status").output


def test_stale_arc_is_shown_as_stale() -> None:
    verb("arc", "set", "old-sess", "x")
    path = Path(paths.session_path(os.environ["ARCGUARD_HOME"], "old-sess"))
    document = json.loads(path.read_text())
    document["arc"]["invoked_at"] = document["arc"]["last_activity"] = "2020-01-01T00:00:00Z"
    path.write_text(json.dumps(document))
    [session] = json.loads(arcguard("status", "--json").output)["sessions"]
    assert session["arc"]["state"] == "stale"


def test_a_log_an_earlier_version_wrote_shows_its_kinds_under_their_current_names() -> None:
    from arcguard.core.schema import LogEntry
    from arcguard.core.state import add_log
    from arcguard.core.state import fresh_state
    from arcguard.storage import store

    home = os.environ["ARCGUARD_HOME"]

    def change(state: Any) -> tuple[Any, None]:
        old = fresh_state("older", 1.0)
        # `block` is what earlier versions logged for a stop sent back to work.
        entry: Any = {"t": 1.0, "hook": "stop", "kind": "block", "reason": "r", "rule": "no-op"}
        add_log(old, LogEntry.view(entry))
        return old, None

    store.update(home, "older", change, now=1.0, lock_timeout=5.0)
    document = json.loads(arcguard("status", "--json", "--session", "older").output)
    assert [e["kind"] for e in document["session"]["log"]] == ["continue"]
    assert document["session"]["log"][0]["rule"] == "no-op"
    lines = arcguard("status", "--session", "older").output.splitlines()
    assert [line.split()[3] for line in lines if line.startswith("  ")] == ["continue"]


def test_status_reads_consistently_while_hooks_write() -> None:
    from arcguard.core.schema import LogEntry
    from arcguard.core.state import add_log
    from arcguard.core.state import clone
    from arcguard.core.state import fresh_state
    from arcguard.storage import store

    home = os.environ["ARCGUARD_HOME"]
    stop_writing = threading.Event()
    first_write = threading.Event()

    def writer() -> None:
        n = 0
        while not stop_writing.is_set():
            n += 1

            def change(state: Any, n: int = n) -> tuple[Any, None]:
                new = clone(state) if state else fresh_state("busy", float(n))
                add_log(new, LogEntry(t=float(n), hook="stop", kind="deny", reason="x" * 500))
                return new, None

            store.update(home, "busy", change, now=float(n), lock_timeout=5.0)
            first_write.set()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert first_write.wait(30)
        for _ in range(30):
            [session] = json.loads(arcguard("status", "--json").output)["sessions"]
            assert session["error"] is None
            full = json.loads(arcguard("status", "--json", "--session", "busy").output)
            assert len(full["session"]["log"]) >= 1
    finally:
        stop_writing.set()
        thread.join()


def test_the_states_real_hook_runs_write_pass_the_schema(state_home: str) -> None:
    from arcguard.core import schema
    from arcguard.storage import store

    sessions = store.list_sessions(state_home)
    assert len(sessions) == 2
    for path, _ in sessions:
        assert schema.problem(json.loads(Path(path).read_text())) is None, path


def test_a_state_file_invalid_deep_inside_is_skipped_with_a_note_and_others_shown() -> None:
    verb("arc", "set", "good-sess", "x")
    verb("arc", "set", "bad-sess", "y")
    path = Path(paths.session_path(os.environ["ARCGUARD_HOME"], "bad-sess"))
    document = json.loads(path.read_text())
    document["guard"]["tracks"] = [1]
    path.write_text(json.dumps(document))
    result = arcguard("status", "--json")
    assert result.exit_code == 0
    sessions = {s["file"]: s for s in json.loads(result.output)["sessions"]}
    assert sessions[str(path)]["error"].endswith("state.guard.tracks: expected an object")
    good = [s for s in sessions.values() if s["session_id"] == "good-sess"]
    assert good and good[0]["arc"]["slug"] == "x"
    table = arcguard("status")
    assert table.exit_code == 0 and "unreadable" in table.output and "good-sess" in table.output


def test_status_shows_a_session_waiting_for_a_limit_to_reset() -> None:
    import time

    sid = "limit-waiting-session"
    hook("posture", {"session_id": sid, "prompt": "/autonomous go"})
    reset = int(time.time()) + 3600
    proc = subprocess.Popen(
        [sys.executable, "-m", "arcguard", "hook", "limit-wait"],
        stdin=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    proc.stdin.write(
        json.dumps(
            {
                "session_id": sid,
                "hook_event_name": "StopFailure",
                "error": "rate_limit",
                "last_assistant_message": f"Claude AI usage limit reached|{reset}",
            }
        ).encode()
    )
    proc.stdin.close()
    try:
        for _ in range(400):
            document = json.loads(arcguard("status", "--json", "--session", sid).output)
            if document["session"]["limit_wait"]:
                break
            time.sleep(0.05)
        wait = document["session"]["limit_wait"]
        assert wait["attempt"] == 1 and wait["of"] == 3 and wait["waiter_alive"] is True
        assert wait["until"] == reset + 2
        text = arcguard("status", "--session", sid).output
        assert "limit     waiting for the rate limit to reset until " in text
        assert "(resume 1/3)" in text
        assert "waiting for the rate limit to reset" in arcguard("status").output
    finally:
        verb("arc", "cancel-wait", sid)
        proc.wait(timeout=20)
    assert (
        json.loads(arcguard("status", "--json", "--session", sid).output)["session"]["limit_wait"]
        is None
    )


def test_a_turn_ended_by_claude_codes_stop_cap_is_shown_as_such(tmp_path: Path) -> None:
    sid = "cap-sess"
    hook("posture", {"session_id": sid, "prompt": "/autonomous go"})
    warning = {
        "type": "system",
        "subtype": "informational",
        "level": "warning",
        "uuid": "warn-1",
        "content": "A hook blocked the turn from ending 9 consecutive times\u2014overriding and"
        " ending turn.",
    }
    path = write_transcript(
        tmp_path / "t.jsonl",
        [warning, *assistant_entries(tool_use("Bash", {"command": "ls"}), version="2.1.328")],
    )
    hook(
        "stop",
        {
            "session_id": sid,
            "transcript_path": str(path),
            "last_assistant_message": "No response requested.",
        },
    )
    text = arcguard("status", "--session", sid).output
    assert "overridden 1 turn(s) ended by Claude Code's Stop-hook cap, not completed" in text


def test_a_summary_takes_whether_the_limit_waiter_runs_as_given() -> None:
    # The summaries are pure: the reader asks the system about the waiter's process.
    from arcguard.commands.status_summary import summarise
    from arcguard.core.config import default_config
    from arcguard.core.state import fresh_state

    state = fresh_state("s", 1000.0)
    # A pid above any pid_max: no such process, whatever the system says about it.
    state["limit_wait"] = {"token": "t", "until": 2000.0, "attempt": 1, "pid": 2**22 + 1}
    for alive in (True, False):
        wait = summarise(state, "f", default_config(), 1500.0, waiter_alive=alive)["limit_wait"]
        assert wait is not None
        assert wait["waiter_alive"] is alive
        assert wait["waiting"] is alive
