"""No secret from a tool input reaches the state or the log; old session files are pruned."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from testing.builders import run_hook

from arcguard.core.arc_keeper.arc import new_arc
from arcguard.core.state import fresh_state
from arcguard.storage import error_log
from arcguard.storage import paths


SID = "5b1f0c2e-0000-4000-8000-00000000dddd"
TOKEN = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXNlc3Npb24tdG9rZW4.Zm9vYmFy"
DAY = 86400.0


def home() -> Path:
    return Path(paths.state_dir(os.environ))


def test_a_bearer_token_in_a_bash_command_never_reaches_the_state_file_or_the_log():
    assert run_hook("posture", {"session_id": SID, "prompt": "/autonomous go"}).returncode == 0
    command = f"curl -sS -H 'Authorization: Bearer {TOKEN}' https://api.example.com/v1/items"
    payload = {
        "session_id": SID,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    # Run until the repeat guard denies it: the label is in the state, the deny reason in the log.
    for n in range(4):
        run_hook("pre-tool", {**payload, "tool_use_id": f"toolu_{n}"})
        post = {**payload, "hook_event_name": "PostToolUse", "tool_use_id": f"toolu_{n}"}
        run_hook("post-tool", {**post, "tool_response": {"stdout": "[]", "stderr": ""}})
    # A failure that quotes the input in its log line: that line is masked too.
    error_log.log_line(str(home()), "hook pre-tool", f"ValueError: cannot use {command!r}")
    files = [p for p in home().rglob("*") if p.is_file()]
    state = paths.session_path(str(home()), SID)
    assert Path(state) in files
    assert "Bearer ***" in Path(state).read_text()
    for path in files:
        data = path.read_bytes()
        assert TOKEN.encode() not in data, path
        assert TOKEN[:20].encode() not in data, path


def write_session(sid: str, *, age_days: float, arc_age_days: float | None = None, wait=False):
    now = time.time()
    state = fresh_state(sid, now - age_days * DAY)
    if arc_age_days is not None:
        state["arc"] = new_arc("work", [], now - arc_age_days * DAY).data
    if wait:
        arc = state["arc"] = new_arc("work", [], now - age_days * DAY).data
        state["limit_wait"] = {
            "token": "t",
            "pid": 0,
            "started": now - 60,
            "until": now + 3600,
            "arc": arc["invoked_at"],
        }
    path = Path(paths.session_path(str(home()), sid))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state))
    Path(str(path) + ".lock").write_text("")
    stamp = now - age_days * DAY
    for name in (path, Path(str(path) + ".lock")):
        os.utime(name, (stamp, stamp))
    return path


def test_old_session_files_are_pruned_at_session_start_recent_and_active_ones_kept(monkeypatch):
    old = write_session("old-one", age_days=40)
    recent = write_session("recent-one", age_days=3)
    waiting = write_session("waiting-one", age_days=40, wait=True)
    current = write_session(SID, age_days=40)
    sessions = old.parent
    corrupt = sessions / "gone.json.corrupt-1"
    corrupt.write_text("{raw")
    orphan = sessions / "orphan.json.lock"
    orphan.write_text("")
    for path in (corrupt, orphan):
        os.utime(path, (time.time() - 40 * DAY,) * 2)
    start = {"session_id": SID, "hook_event_name": "SessionStart", "source": "startup"}
    assert run_hook("session-start", start).returncode == 0
    assert not old.exists() and not Path(str(old) + ".lock").exists()
    assert not corrupt.exists() and not orphan.exists()
    assert recent.exists() and waiting.exists() and current.exists()


def test_an_active_arc_keeps_its_file_past_the_retention_age_and_the_age_is_a_setting():
    stale_month = {"ARCGUARD_STALE_SECONDS": str(30 * 86400), "ARCGUARD_STATE_RETENTION_DAYS": "1"}
    active = write_session("active-one", age_days=2, arc_age_days=2)
    idle = write_session("idle-one", age_days=2)
    start = {"session_id": SID, "hook_event_name": "SessionStart", "source": "startup"}
    assert run_hook("session-start", start, env=stale_month).returncode == 0
    assert active.exists() and not idle.exists()


def test_item9_a_killed_writers_temp_file_is_pruned_though_its_session_never_writes_again():
    """A `<file>.json.tmp-<pid>-<n>` is a full copy of a session's state. Its session is
    within the retention age and never writes again, so only pruning can clear it: once its
    writer is gone (past a short grace) or once it is old whatever its pid says."""
    session = write_session("quiet-one", age_days=3)
    current = write_session(SID, age_days=0)
    gone = _finished_pid()
    alive = os.getpid()
    minutes, hours = 5 * 60, 2 * 3600

    def temp(owner: Path, pid: int, n: int, age_s: float) -> Path:
        path = Path(f"{owner}.tmp-{pid}-{n}")
        path.write_text(owner.read_text())
        os.utime(path, (time.time() - age_s,) * 2)
        return path

    orphaned = temp(session, gone, 1, minutes)
    too_old = temp(session, alive, 2, hours)
    young = temp(session, gone, 3, 5)
    writing = temp(session, alive, 4, minutes)
    lookalike = session.parent / "quiet-one.json.tmp-notapid-1"
    lookalike.write_text("{}")
    os.utime(lookalike, (time.time() - hours,) * 2)
    start = {"session_id": SID, "hook_event_name": "SessionStart", "source": "startup"}
    assert run_hook("session-start", start).returncode == 0
    assert not orphaned.exists() and not too_old.exists()
    assert young.exists() and writing.exists() and lookalike.exists()
    assert session.exists() and current.exists()


def _finished_pid() -> int:
    """The pid of a process that has ended."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid
