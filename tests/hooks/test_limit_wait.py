"""The limit waiter as Claude Code runs it: a process that waits, then wakes (exit 2) or not."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import time

import pytest
from testing.builders import run_hook
from testing.cli import invoke

from arcguard.core import limits
from arcguard.hooks import limit_wait
from arcguard.storage import paths
from arcguard.storage import store


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.state import State


SID = "5b1f0c2e-0000-4000-8000-00000000aaaa"
WAKE = "[arcguard] The API limit that ended the last turn has reset"


def start_arc() -> None:
    assert (
        run_hook(
            "posture",
            {"session_id": SID, "prompt": "/autonomous go", "hook_event_name": "UserPromptSubmit"},
        ).returncode
        == 0
    )


def failure(error: str = "rate_limit", reset_in: float | None = 1) -> dict[str, object]:
    text = "API Error: Request rejected (429) · Number of requests has exceeded your rate limit."
    if reset_in is not None:
        text = (
            f"API Error: Request rejected (429) · Claude AI usage limit reached|"
            f"{int(time.time() + reset_in)}"
        )
    return {
        "session_id": SID,
        "hook_event_name": "StopFailure",
        "error": error,
        "last_assistant_message": text,
    }


def state() -> State:
    found = store.read_session(paths.state_dir(os.environ), SID)
    assert found is not None
    return found


def spawn(payload: dict[str, object]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "arcguard", "hook", "limit-wait"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(payload).encode())
    proc.stdin.close()
    return proc


def wait_until(condition, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "condition not met"
        time.sleep(0.05)


def test_after_the_reset_the_waiter_exits_2_with_the_wake_message_on_stderr():
    start_arc()
    result = run_hook("limit-wait", failure(reset_in=1))
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr.decode().startswith(WAKE)
    assert state()["arc"]["limit_resumes"] == 1
    assert "limit_wait" not in state()


def test_an_error_that_does_not_pass_with_time_wakes_nothing():
    start_arc()
    result = run_hook("limit-wait", failure("authentication_failed"))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert "limit_wait" not in state()


def test_without_an_arc_nothing_waits():
    result = run_hook("limit-wait", failure(reset_in=1))
    assert (result.returncode, result.stderr) == (0, b"")


def test_a_corrupt_state_file_fails_open():
    start_arc()
    with open(paths.session_path(paths.state_dir(os.environ), SID), "w") as handle:
        handle.write("{not json")
    result = run_hook("limit-wait", failure(reset_in=1))
    assert (result.returncode, result.stderr) == (0, b"")


def test_cancel_wait_ends_a_pending_waiter_without_waking():
    start_arc()
    proc = spawn(failure(reset_in=60))
    try:
        wait_until(lambda: "limit_wait" in state())
        result = invoke("arc", "cancel-wait", SID)
        assert result.output == "cancelled\n"
        assert proc.wait(timeout=20) == 0
        assert proc.stderr is not None and proc.stderr.read() == b""
    finally:
        proc.kill()
    assert "limit_resumes" not in state()["arc"]
    assert invoke("arc", "cancel-wait", SID).output == "no wait\n"


def test_a_second_failure_while_a_waiter_lives_starts_no_other():
    start_arc()
    proc = spawn(failure(reset_in=60))
    try:
        wait_until(lambda: "limit_wait" in state())
        token = state()["limit_wait"]["token"]
        second = run_hook("limit-wait", failure(reset_in=1))
        assert (second.returncode, second.stderr) == (0, b"")
        assert state()["limit_wait"]["token"] == token
    finally:
        invoke("arc", "cancel-wait", SID)
        proc.wait(timeout=20)


def test_an_operator_prompt_ends_a_pending_waiter_without_waking():
    start_arc()
    proc = spawn(failure(reset_in=60))
    try:
        wait_until(lambda: "limit_wait" in state())
        assert run_hook("posture", {"session_id": SID, "prompt": "status?"}).returncode == 0
        assert proc.wait(timeout=20) == 0
    finally:
        proc.kill()
    assert state()["log"][-1]["kind"] == "limit-cancel"


# --- clock times resolved in their zone ----------------------------------------------------


def epoch(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> float:
    return datetime.datetime(year, month, day, hour, minute, tzinfo=datetime.UTC).timestamp()


def test_a_clock_time_is_the_next_such_moment_in_its_zone():
    wall = limits.parse_reset("You've hit your session limit · resets 2pm (UTC)")
    assert limit_wait.resolve(wall, epoch(2026, 5, 1, 13, 30)) == epoch(2026, 5, 1, 14, 1)
    # Said after 2pm it can only mean tomorrow's.
    assert limit_wait.resolve(wall, epoch(2026, 5, 1, 15, 0)) == epoch(2026, 5, 2, 14, 1)


def test_a_named_zone_is_honoured():
    pytest.importorskip("zoneinfo").ZoneInfo("Europe/London")
    wall = limits.parse_reset("resets 2pm (Europe/London)")  # summer time: UTC+1
    assert limit_wait.resolve(wall, epoch(2026, 7, 1, 12, 0)) == epoch(2026, 7, 1, 13, 1)


def test_a_dated_reset_and_an_unknown_zone():
    wall = limits.parse_reset("resets Dec 3, 9am (UTC)")
    assert limit_wait.resolve(wall, epoch(2026, 12, 1, 0, 0)) == epoch(2026, 12, 3, 9, 1)
    assert limit_wait.resolve(limits.parse_reset("resets 2pm (Mars/Olympus)"), 0.0) is None


def test_a_wait_recorded_by_a_pid_now_used_by_another_program_does_not_hold():
    start_arc()
    home = paths.state_dir(os.environ)

    def taken(state):
        state = dict(state)
        # This test process is alive, but it is no limit waiter.
        state["limit_wait"] = {
            "token": "old",
            "pid": os.getpid(),
            "started": time.time(),
            "until": time.time() + 3600,
            "attempt": 1,
        }
        return state, None

    store.update(home, SID, taken, now=time.time(), lock_timeout=5.0)
    result = run_hook("limit-wait", failure(reset_in=1))
    assert result.returncode == 2 and result.stderr.decode().startswith(WAKE)


def test_hook_help_lists_the_limit_waiter_as_a_background_stop_failure_handler():
    output = invoke("hook", "--help").output
    assert "limit-wait     StopFailure (in the background: async, asyncRewake)" in output
    assert "The one exception is limit-wait" in " ".join(output.split())
