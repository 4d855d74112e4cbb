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
from arcguard.core.arc_keeper.arc import new_arc
from arcguard.core.config import default_config
from arcguard.core.display.statusline import segment as core_segment
from arcguard.core.state import fresh_state
from arcguard.doctor import reading
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
    state["arc"] = new_arc("importer", ["parse", "load", "report"], NOW).data
    state["arc"]["milestones"][0]["status"] = "done"
    state["arc"]["reconcile_count"], state["arc"]["total_blocks"] = 1, 4
    return state


# --- the segment (pure) --------------------------------------------------------------------


def segment(state, cfg, now, clock, *, waiter_alive=True):
    return core_segment(state, cfg, now, clock, waiter_alive=waiter_alive)


def test_an_arc_session_shows_its_arc_milestones_and_continuations():
    assert segment(arc_state(), CFG, NOW, clock) == (
        "arcguard arc importer 1/3, continued 1/2 in a row, 4/5 in the arc"
    )


def test_an_arc_is_named_after_its_task_and_says_when_it_was_stopped():
    from arcguard.core.arc_keeper.posture import decide_posture

    def prompt(state, text):
        return decide_posture(state, text, CFG, NOW, session_id="sid", command="arcguard")[1]

    state = prompt(None, "/autonomous fix the greeting script in bin/ and its tests")
    assert segment(state, CFG, NOW, clock).startswith(
        "arcguard arc fix the greeting script in bin/…, continued 0/2"
    )
    assert segment(prompt(state, "/autonomous stop"), CFG, NOW, clock) == (
        "arcguard arc fix the greeting script in bin/… stopped"
    )
    done = arc_state()
    done["arc"]["active"], done["arc"]["completed_at"] = False, "2027-01-15T08:00:00Z"
    assert segment(done, CFG, NOW, clock) == "arcguard arc importer complete"


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
    assert done.stdout.decode().startswith("arcguard arc go, continued 0/2 in a row")
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
    [check] = check_statusline(reading.read_setup(tmp_path, dict(os.environ)))
    assert check.status == "ok" and "runs" in check.detail
    path = cc.settings_path("project", tmp_path, os.environ)
    broken = json.loads(path.read_text())
    broken["statusLine"]["command"] = "/nonexistent/python -m arcguard statusline"
    path.write_text(json.dumps(broken))
    [check] = check_statusline(reading.read_setup(tmp_path, dict(os.environ)))
    assert check.status == "gap" and "exit 127" in check.detail


# --- item 8: fails quietly, prints nothing raw, within the hooks' wall budget ---------------

HOSTILE_SLUG = "x\x1b]0;owned\x07\x1b[2Jy\nz"


def arc_session(slug: str = "importer") -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arcguard", "arc", "set", SID, slug, "parse"],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_item8_a_relative_arcguard_home_exits_0_and_prints_nothing():
    done = subprocess.run(
        [sys.executable, "-m", "arcguard", "statusline"],
        input=json.dumps({"session_id": SID}).encode(),
        capture_output=True,
        timeout=60,
        check=False,
        env={**os.environ, "ARCGUARD_HOME": "relative/state"},
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_item8_an_unusable_config_path_or_state_dir_exits_0_and_prints_nothing(tmp_path):
    arc_session()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "link").symlink_to(elsewhere)
    for env in ({"ARCGUARD_CONFIG": "relative.toml"}, {"ARCGUARD_HOME": str(tmp_path / "link")}):
        done = subprocess.run(
            [sys.executable, "-m", "arcguard", "statusline"],
            input=json.dumps({"session_id": SID}).encode(),
            capture_output=True,
            timeout=60,
            check=False,
            env={**os.environ, **env},
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), env


def test_item8_a_closed_or_broken_stdout_exits_0_without_a_traceback():
    arc_session()
    payload = json.dumps({"session_id": SID}).encode()
    broken = subprocess.Popen(
        [sys.executable, "-m", "arcguard", "statusline"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert broken.stdout is not None
    broken.stdout.close()  # the reader went away: writing raises EPIPE
    _, err = broken.communicate(payload, timeout=60)
    assert (broken.returncode, err) == (0, b"")
    closed = subprocess.run(  # no stdout at all
        ["/bin/sh", "-c", f"exec {sys.executable} -m arcguard statusline >&-"],
        input=payload,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert (closed.returncode, closed.stderr) == (0, b"")
    no_stdin = subprocess.run(
        ["/bin/sh", "-c", f"exec {sys.executable} -m arcguard statusline <&-"],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert (no_stdin.returncode, no_stdin.stdout, no_stdin.stderr) == (0, b"", b"")
    log = Path(paths.error_log(paths.state_dir(os.environ)))
    assert not log.exists() or "statusline" not in log.read_text()


def test_item8_control_characters_in_the_arc_slug_are_printed_escaped():
    arc_session(HOSTILE_SLUG)
    done = statusline({"session_id": SID})
    assert done.returncode == 0
    out = done.stdout.decode()
    assert out.startswith("arcguard arc x\\x1b]0;owned\\x07\\x1b[2Jy\\x0az")
    assert out.count("\n") == 1 and out.endswith("\n")
    assert not any(ord(c) < 0x20 for c in out[:-1])


def test_item8_a_stdin_that_never_ends_is_cut_off_by_the_wall_budget(tmp_path):
    arc_session()
    config = tmp_path / "config.toml"
    config.write_text("hook_budget_ms = 300\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "arcguard", "statusline"],
        stdin=subprocess.PIPE,  # held open and never written: a read would wait forever
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "ARCGUARD_CONFIG": str(config)},
    )
    try:
        proc.wait(timeout=30)
    finally:
        proc.kill()
        assert proc.stdin is not None
        proc.stdin.close()
    assert proc.returncode == 0
    assert proc.stdout is not None and proc.stdout.read() == b""
    log = Path(paths.error_log(paths.state_dir(os.environ))).read_text()
    assert "statusline" in log and "wall budget exceeded" in log


def test_item8_a_fifo_at_the_config_path_does_not_hang_the_status_line(tmp_path):
    arc_session()
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "arcguard", "statusline"],
        input=json.dumps({"session_id": SID}).encode(),
        capture_output=True,
        timeout=30,
        check=False,
        env={**os.environ, "ARCGUARD_CONFIG": str(fifo)},
    )
    assert (done.returncode, done.stderr) == (0, b"")


# --- item 9: `status` and the status line agree on when a limit wait is pending ------------


def test_item9_a_wait_is_pending_only_while_its_waiter_runs_and_its_time_has_not_come():
    from arcguard.core.arc_keeper import limits
    from arcguard.core.schema import LimitWait

    wait = LimitWait(token="t", until=NOW + 60, attempt=1)
    assert limits.waiting(wait, NOW, alive=True)
    assert not limits.waiting(wait, NOW, alive=False)
    assert not limits.waiting(wait, NOW + 60, alive=True)
    assert not limits.waiting(LimitWait(token="t"), NOW, alive=True)
    state = arc_state()
    state["limit_wait"] = wait.data
    assert "waiting" in segment(state, CFG, NOW, clock, waiter_alive=True)
    assert "waiting" not in segment(state, CFG, NOW, clock, waiter_alive=False)
    assert "waiting" not in segment(state, CFG, NOW + 61, clock, waiter_alive=True)


def record_wait(pid: int, until: float) -> None:
    import time

    arc_session()
    home = paths.state_dir(os.environ)

    def change(state):
        state["limit_wait"] = {
            "token": f"{pid}-1",
            "pid": pid,
            "started": time.time(),
            "until": until,
            "error": "rate_limit",
            "source": "error text",
            "arc": "importer",
            "attempt": 1,
        }
        return state, None

    store.update(home, SID, change, now=time.time(), lock_timeout=5.0)


def both_views() -> list[str]:
    line = statusline({"session_id": SID}).stdout.decode()
    table = invoke("status").output
    detail = invoke("status", "--session", SID).output
    document = json.loads(invoke("status", "--json", "--session", SID).output)
    assert document["session"]["limit_wait"] is not None
    return [line, table, detail, json.dumps(document["session"]["limit_wait"]["waiting"])]


def a_waiter() -> subprocess.Popen[bytes]:
    # /proc/<pid>/cmdline names limit-wait: as good as a real waiter for the liveness check.
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "limit-wait"])


def test_item9_a_killed_waiter_is_not_shown_as_waiting_by_either_view():
    import time

    waiter = a_waiter()
    record_wait(waiter.pid, time.time() + 3600)
    try:
        assert all("waiting" in view or view == "true" for view in both_views())
    finally:
        waiter.kill()
        waiter.wait(timeout=20)
    line, table, detail, flag = both_views()
    assert "waiting" not in line + table + detail and flag == "false"
    assert "its waiter is gone" in detail and line.startswith("arcguard arc importer")


def test_item9_a_wait_whose_time_has_passed_is_not_shown_as_waiting_by_either_view():
    import time

    waiter = a_waiter()
    try:
        record_wait(waiter.pid, time.time() - 5)
        line, table, detail, flag = both_views()
    finally:
        waiter.kill()
        waiter.wait(timeout=20)
    assert "waiting" not in line + table + detail and flag == "false"
    assert "its time has passed" in detail
