"""`arcguard statusline`: the segment, the recorded reset times, the fast path, install, doctor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from testing.builders import run_hook
from testing.cli import invoke

from arcguard.claude_settings import settings_files as cc
from arcguard.claude_settings import statusline_plan as sl
from arcguard.core.arc import new_arc
from arcguard.core.config import default_config
from arcguard.core.state import fresh_state
from arcguard.core.statusline import segment
from arcguard.doctor import model as st
from arcguard.doctor.statusline import check_statusline
from arcguard.storage import paths
from arcguard.storage import store


NOW = 1_800_000_000.0
CFG = default_config()
SID = "5b1f0c2e-0000-4000-8000-00000000cccc"


def clock(ts: float) -> str:
    return f"<{ts:.0f}>"


def arc_state():
    state = fresh_state("sid", NOW)
    state["arc"] = new_arc("importer", ["parse", "load", "report"], NOW)
    state["arc"]["milestones"][0]["status"] = "done"
    state["arc"]["reconcile_count"], state["arc"]["total_blocks"] = 1, 4
    return state


# --- the segment (pure) --------------------------------------------------------------------


def test_an_arc_session_shows_its_arc_milestones_and_continuations():
    assert segment(arc_state(), CFG, NOW, clock) == (
        "arcguard arc importer 1/3, continued 1/2 in a row, 4/5 in the arc"
    )


def test_a_plain_session_shows_nothing():
    assert segment(fresh_state("sid", NOW), CFG, NOW, clock) == ""
    assert segment(None, CFG, NOW, clock) == ""


def test_the_guard_and_a_pending_limit_wait_are_shown():
    state = arc_state()
    state["guard"]["tracks"] = {"main": {"denials": 2}}
    state["limit_wait"] = {"token": "t", "until": NOW + 60, "attempt": 1}
    assert segment(state, CFG, NOW, clock).endswith(
        " | 2 repeats denied | waiting for the API limit to reset until <1800000060> (resume 1/3)"
    )
    state["guard"]["paused"] = {"kind": "cycle", "reason": "loop", "at": NOW}
    assert "| PAUSED (cycle): send a message to resume |" in segment(state, CFG, NOW, clock)


# --- the command ---------------------------------------------------------------------------


def statusline(payload: object, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, *args, "-m", "arcguard", "statusline"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )


def test_the_command_prints_the_segment_of_an_arc_session_and_nothing_otherwise():
    assert run_hook("posture", {"session_id": SID, "prompt": "/autonomous go"}).returncode == 0
    done = statusline({"session_id": SID, "model": {"display_name": "x"}})
    assert done.returncode == 0
    assert done.stdout.decode().startswith("arcguard arc autonomous, continued 0/2 in a row")
    plain = statusline({"session_id": "never-seen"})
    assert (plain.returncode, plain.stdout) == (0, b"")
    for junk in (b"", b"not json", b"[1]"):
        done = subprocess.run(
            [sys.executable, "-m", "arcguard", "statusline"],
            input=junk,
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert (done.returncode, done.stdout) == (0, b"")


def test_the_command_records_the_rate_limit_reset_times_for_limit_wait():
    assert run_hook("posture", {"session_id": SID, "prompt": "/autonomous go"}).returncode == 0
    payload = {
        "session_id": SID,
        "rate_limits": {
            "five_hour": {"used_percentage": 93.0, "resets_at": 1_900_000_000},
            "seven_day": {"used_percentage": 41.2, "resets_at": 1_900_500_000},
        },
    }
    assert statusline(payload).returncode == 0
    state = store.read_session(paths.state_dir(os.environ), SID)
    assert state["rate_limits"] == {"five_hour": 1_900_000_000.0, "seven_day": 1_900_500_000.0}


def test_the_status_line_path_never_imports_click_orjson_or_filelock():
    assert run_hook("posture", {"session_id": SID, "prompt": "/autonomous go"}).returncode == 0
    done = statusline(
        {"session_id": SID, "rate_limits": {"five_hour": {"resets_at": 1}}}, "-X", "importtime"
    )
    loaded = {line.split("|")[-1].strip() for line in done.stderr.decode().splitlines()}
    assert "arcguard.hooks.statusline" in loaded
    assert not loaded & {"click", "orjson", "filelock", "json", "typing", "hashlib", "re"}


# --- install --statusline and doctor -------------------------------------------------------


def install(project: Path, *more: str) -> str:
    result = invoke("install", "--scope", "project", "--project", str(project), *more)
    assert result.exit_code == 0, result.output
    return result.output


def status_line_of(project: Path) -> object:
    path = cc.settings_path("project", project, os.environ)
    return json.loads(path.read_text()).get("statusLine")


def test_install_statusline_sets_it_when_none_is_set_and_uninstall_removes_it(tmp_path):
    assert "set the status line to arcguard's" in install(tmp_path, "--statusline")
    line = status_line_of(tmp_path)
    assert sl.is_ours(line) and line["command"].endswith(" statusline")
    assert "already set" in install(tmp_path, "--statusline")
    invoke("uninstall", "--scope", "project", "--project", str(tmp_path))
    # Nothing but arcguard's was in the file: it goes, status line and all.
    assert not cc.settings_path("project", tmp_path, os.environ).exists()


def test_a_status_line_of_the_users_own_is_kept_unless_forced(tmp_path):
    path = cc.settings_path("project", tmp_path, os.environ)
    path.parent.mkdir(parents=True)
    theirs = {"type": "command", "command": "~/bin/my-status.sh"}
    path.write_text(json.dumps({"statusLine": theirs}))
    assert "left as it is (not arcguard's)" in install(tmp_path, "--statusline")
    assert status_line_of(tmp_path) == theirs
    install(tmp_path, "--statusline", "--force")
    assert sl.is_ours(status_line_of(tmp_path))
    assert install(tmp_path) and sl.is_ours(status_line_of(tmp_path))  # a plain install keeps it


def test_doctor_runs_the_wired_status_line(tmp_path):
    install(tmp_path, "--statusline")
    [check] = check_statusline(st.Setup(tmp_path, dict(os.environ)))
    assert check.status == "ok" and "runs" in check.detail
    path = cc.settings_path("project", tmp_path, os.environ)
    broken = json.loads(path.read_text())
    broken["statusLine"]["command"] = "/nonexistent/python -m arcguard statusline"
    path.write_text(json.dumps(broken))
    [check] = check_statusline(st.Setup(tmp_path, dict(os.environ)))
    assert check.status == "gap" and "exit 127" in check.detail
