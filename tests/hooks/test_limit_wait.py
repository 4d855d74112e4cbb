"""The limit waiter as Claude Code runs it: a process that waits, then wakes (exit 2) or not."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import time

import pytest
from testing import hook_driver
from testing.builders import run_hook
from testing.cli import invoke

from arcguard.core.arc_keeper import reset_text
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
    wall = reset_text.parse_reset("You've hit your session limit · resets 2pm (UTC)")
    assert limit_wait.resolve(wall, epoch(2026, 5, 1, 13, 30)) == epoch(2026, 5, 1, 14, 1)
    # Said after 2pm it can only mean tomorrow's.
    assert limit_wait.resolve(wall, epoch(2026, 5, 1, 15, 0)) == epoch(2026, 5, 2, 14, 1)


def test_a_named_zone_is_honoured():
    pytest.importorskip("zoneinfo").ZoneInfo("Europe/London")
    wall = reset_text.parse_reset("resets 2pm (Europe/London)")  # summer time: UTC+1
    assert limit_wait.resolve(wall, epoch(2026, 7, 1, 12, 0)) == epoch(2026, 7, 1, 13, 1)


def test_a_dated_reset_and_an_unknown_zone():
    wall = reset_text.parse_reset("resets Dec 3, 9am (UTC)")
    assert limit_wait.resolve(wall, epoch(2026, 12, 1, 0, 0)) == epoch(2026, 12, 3, 9, 1)
    assert limit_wait.resolve(reset_text.parse_reset("resets 2pm (Mars/Olympus)"), 0.0) is None


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


# --- a long wait keeps its arc alive; every ending without a wake is announced --------------

HOURS = 3600.0
T0 = 1_800_000_000.0
# A notify command that appends its stdin to a file, one line per event.
RECORDER = "import sys; open(sys.argv[1], 'a').write(sys.stdin.read() + '\\n')"


class FakeClock:
    """`limit_wait`'s clock: sleeping moves it on at once, so a 10 h wait takes no time."""

    def __init__(self, now: float, during_sleep=None) -> None:
        self.now = now
        self.during_sleep = during_sleep

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        if self.during_sleep is not None:
            self.during_sleep(self.now)


class NoWatchdog:
    def set_budget(self, budget: float) -> None:
        pass


def notify_to(monkeypatch, tmp_path) -> object:
    events = tmp_path / "events.jsonl"
    monkeypatch.setenv(
        "ARCGUARD_NOTIFY_COMMAND", json.dumps([sys.executable, "-c", RECORDER, str(events)])
    )
    return events


def notified(events, count: int = 1) -> list[str]:
    """The kinds of the events the notify command got (waits for `count` of them)."""
    for _ in range(400):
        if events.exists() and len(events.read_text().splitlines()) >= count:
            break
        time.sleep(0.05)
    if not events.exists():
        return []
    return [json.loads(line)["kind"] for line in events.read_text().splitlines()]


def write_arc(at: float) -> None:
    from arcguard.core.arc_keeper.arc import new_arc
    from arcguard.core.state import fresh_state

    def put(_state):
        new = fresh_state(SID, at)
        new["arc"] = new_arc("importer", ["parse"], at).data
        return new, None

    store.update(paths.state_dir(os.environ), SID, put, now=at, lock_timeout=5.0)


def edit(change) -> None:
    def put(current):
        new = json.loads(json.dumps(current))
        change(new)
        return new, None

    store.update(paths.state_dir(os.environ), SID, put, now=time.time(), lock_timeout=5.0)


def run_in_process(monkeypatch, clock: FakeClock, reset_at: float, **settings: str):
    """`limit_wait.run` on this process's clock `clock`, as the hook would run it."""
    from arcguard.storage.config_file import load_config

    for name, value in settings.items():
        monkeypatch.setenv(f"ARCGUARD_{name.upper()}", value)
    monkeypatch.setattr(limit_wait, "time", clock)
    monkeypatch.setattr(limit_wait, "POLL_SECONDS", 1800.0)  # a poll every half hour
    cfg, _ = load_config(os.environ)
    ctx = hook_driver.context(
        limit_wait.NAME, paths.state_dir(os.environ), cfg, now=clock.now, environ=os.environ
    )
    payload = {
        **failure(),
        "last_assistant_message": f"Claude AI usage limit reached|{int(reset_at)}",
    }
    return limit_wait.run(json.dumps(payload).encode(), ctx, NoWatchdog())


def test_a_10h_wait_with_stale_seconds_8h_wakes_the_session(monkeypatch):
    write_arc(T0 - 60)
    clock = FakeClock(T0)
    message, _ = run_in_process(monkeypatch, clock, T0 + 10 * HOURS, limit_wait_max_seconds="86400")
    assert os.environ.get("ARCGUARD_STALE_SECONDS") is None  # the default: 8 h
    assert clock.now >= T0 + 10 * HOURS
    assert message is not None and message.startswith(WAKE)
    assert state()["arc"]["limit_resumes"] == 1 and "limit_wait" not in state()


@pytest.mark.parametrize("change", ["complete", "paused", "new arc"])
def test_a_wait_refused_at_its_end_is_announced(monkeypatch, tmp_path, change):
    events = notify_to(monkeypatch, tmp_path)
    write_arc(T0 - 60)

    def meanwhile(now: float) -> None:
        if now < T0 + HOURS:
            return
        if change == "complete":
            edit(lambda s: s["arc"].update(active=False))
        elif change == "paused":
            edit(lambda s: s["guard"].update(paused={"kind": "cycle", "reason": "r", "at": now}))
        else:
            edit(lambda s: s["arc"].update(invoked_at="2027-01-01T00:00:00Z"))

    clock = FakeClock(T0, meanwhile)
    message, _ = run_in_process(monkeypatch, clock, T0 + 2 * HOURS)
    assert message is None and "limit_wait" not in state()
    assert state()["log"][-1]["kind"] == "limit-cancel"
    assert notified(events) == ["limit-cancel"]


def test_a_waiter_whose_claude_code_is_gone_announces_the_end_of_its_wait(monkeypatch, tmp_path):
    events = notify_to(monkeypatch, tmp_path)
    write_arc(T0 - 60)
    parent = os.getppid()
    monkeypatch.setattr(os, "getppid", lambda: parent)

    def orphaned(_now: float) -> None:
        monkeypatch.setattr(os, "getppid", lambda: 1)

    message, _ = run_in_process(monkeypatch, FakeClock(T0, orphaned), T0 + HOURS)
    assert message is None and "limit_wait" not in state()
    assert "Claude Code process is gone" in state()["log"][-1]["reason"]
    assert notified(events) == ["limit-cancel"]


def test_a_waiter_that_fails_while_waiting_ends_its_wait_and_announces_it(monkeypatch, tmp_path):
    events = notify_to(monkeypatch, tmp_path)
    write_arc(T0 - 60)

    def broken(_now: float) -> None:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        run_in_process(monkeypatch, FakeClock(T0, broken), T0 + HOURS)
    assert "limit_wait" not in state()
    assert "the waiter was stopped (RuntimeError)" in state()["log"][-1]["reason"]
    assert notified(events) == ["limit-cancel"]


def test_a_waiter_stopped_by_a_signal_ends_its_wait_and_announces_it(monkeypatch, tmp_path):
    import signal

    events = notify_to(monkeypatch, tmp_path)
    start_arc()
    proc = spawn(failure(reset_in=600))
    try:
        wait_until(lambda: "limit_wait" in state())
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        proc.kill()
    assert "limit_wait" not in state()
    assert "stopped (signal 15)" in state()["log"][-1]["reason"]
    assert notified(events) == ["limit-cancel"]


def test_an_operator_prompt_and_cancel_wait_announce_the_cancelled_wait(monkeypatch, tmp_path):
    events = notify_to(monkeypatch, tmp_path)
    start_arc()
    record = {"token": "t", "pid": 0, "started": time.time(), "until": time.time() + 600}
    edit(lambda s: s.update(limit_wait={**record, "arc": s["arc"]["invoked_at"]}))
    result = run_hook("posture", {"session_id": SID, "prompt": "back, how is it going?"})
    assert result.returncode == 0 and "limit_wait" not in state()
    assert notified(events) == ["limit-cancel"]
    edit(lambda s: s.update(limit_wait={**record, "arc": s["arc"]["invoked_at"]}))
    assert invoke("arc", "cancel-wait", SID).output == "cancelled\n"
    assert notified(events, 2) == ["limit-cancel", "limit-cancel"]


def test_a_new_wait_that_takes_over_from_a_dead_waiter_announces_the_old_one(monkeypatch, tmp_path):
    events = notify_to(monkeypatch, tmp_path)
    start_arc()
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], check=True, capture_output=True
    ).stdout
    record = {"token": "old", "pid": int(dead), "started": time.time(), "until": time.time() + 60}
    edit(lambda s: s.update(limit_wait={**record, "arc": s["arc"]["invoked_at"]}))
    result = run_hook("limit-wait", failure(reset_in=1))
    assert result.returncode == 2
    assert notified(events) == ["limit-cancel"]
    assert (
        "waiter is gone" in next(e for e in state()["log"] if e["kind"] == "limit-cancel")["reason"]
    )
