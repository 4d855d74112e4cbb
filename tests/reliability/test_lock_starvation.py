"""A lock held elsewhere for longer than the hook may wait: no decision, exit 0, one log line.

The holder is another process using `filelock.FileLock` on `<state>.lock` (the same flock
protocol arcguard's own writers use).
Protections exercised:
- the bounded lock wait (`atomic._FlockLock` gives up after ARCGUARD_LOCK_TIMEOUT_MS and the
  runner fails open with a `LockTimeout` line): without the bound the hook would wait until
  the watchdog ended it, and the `LockTimeout` line would be missing;
- the wall-budget watchdog (`runner._Watchdog`): when the budget is shorter than the lock wait,
  the process ends with no decision and a "wall budget exceeded" line; without the watchdog
  the hook would wait out the whole lock timeout and log a `LockTimeout` instead.
In every case the state is set up so that the hook would otherwise have made a decision.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability import support


SESSION = "starved-session"
HOLDER = """
import sys, time
from filelock import FileLock
lock = FileLock(sys.argv[1])
lock.acquire()
sys.stdout.write("held\\n")
sys.stdout.flush()
time.sleep(120)
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A session whose next `pre-tool` call would be denied and whose no-op stop would block."""
    home = tmp_path / "state"
    support.put_state(home, SESSION)
    for i in range(2):
        tid = f"toolu_{i}"
        for name, payload in (
            ("pre-tool", support.pre_tool(SESSION, "make test", tid)),
            ("post-tool", support.post_tool(SESSION, "make test", tid)),
        ):
            assert support.run_hook(name, payload, home).returncode == 0
    return home


@pytest.fixture
def held(home: Path) -> Iterator[None]:
    lock = str(support.state_path(home, SESSION)) + ".lock"
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, lock], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"held\n"
        yield
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def test_the_repeat_really_would_be_denied(home: Path) -> None:
    """The control case: with the lock free, the same call is denied."""
    proc = support.run_hook("pre-tool", support.pre_tool(SESSION, "make test", "toolu_9"), home)
    assert support.is_decision(proc.stdout)


@pytest.mark.usefixtures("held")
def test_a_busy_lock_gives_no_decision_and_logs_the_timeout(home: Path) -> None:
    before = support.state_path(home, SESSION).read_bytes()
    proc = support.run_hook(
        "pre-tool",
        support.pre_tool(SESSION, "make test", "toolu_9"),
        home,
        ARCGUARD_LOCK_TIMEOUT_MS="200",
        ARCGUARD_HOOK_BUDGET_MS="5000",
    )
    assert proc.returncode == 0
    assert proc.stdout == b""
    log = support.log_text(home)
    assert "hook pre-tool LockTimeout" in log
    assert "wall budget" not in log
    assert support.state_path(home, SESSION).read_bytes() == before


@pytest.mark.usefixtures("held")
def test_a_lock_wait_longer_than_the_budget_is_cut_by_the_watchdog(home: Path) -> None:
    proc = support.run_hook(
        "stop",
        support.stop(SESSION, message="No response requested."),
        home,
        ARCGUARD_LOCK_TIMEOUT_MS="5000",
        ARCGUARD_HOOK_BUDGET_MS="300",
    )
    assert proc.returncode == 0
    assert proc.stdout == b""  # a no-op stop mid-arc, which would otherwise be blocked
    log = support.log_text(home)
    assert "hook stop wall budget exceeded" in log
    assert "LockTimeout" not in log


def test_the_no_op_stop_really_would_be_blocked(home: Path) -> None:
    proc = support.run_hook("stop", support.stop(SESSION, message="No response requested."), home)
    assert support.is_decision(proc.stdout)
