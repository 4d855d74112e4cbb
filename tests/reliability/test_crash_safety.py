"""Writers killed with SIGKILL at random moments: the state file is never torn, temps are swept.

Protections exercised:
- `atomic.atomic_write` (temp file in the same directory, fsync, `os.replace`): a reader sees
  the old or the new document, never a truncated one. A writer that truncates and rewrites the
  file in place leaves a torn file when killed mid-write, and the checks below fail.
- `atomic.remove_orphan_temps`, called by `store.update` under the lock: temp files of killed
  writers are removed by the next writer, so they never accumulate.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from arcguard.core.state import fresh_state
from arcguard.storage import atomic
from arcguard.storage import store
from tests.reliability import support


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from arcguard.core.state import State


SESSION = "crash-session"
PAD = 2 * 1024 * 1024  # big enough that a write takes a while and a kill often lands in it

WRITER = """
import sys, time
from arcguard.storage import store
from arcguard.core.state import fresh_state
home, sid, pad = sys.argv[1], sys.argv[2], int(sys.argv[3])

def change(state):
    new = dict(state) if state is not None else fresh_state(sid, time.time())
    n = new.get("n", 0) + 1
    new["n"] = n
    new["check"] = n * 7
    new["pad"] = str(n % 10) * pad
    return new, None

sys.stdout.write("go\\n")
sys.stdout.flush()
while True:
    store.update(home, sid, change, now=time.time(), lock_timeout=30.0)
"""


def _keep_or_create(state: State | None) -> tuple[State, None]:
    if state is not None:
        return state, None
    # Counter 0, in the shape `_check` expects of every version.
    created: Any = {**fresh_state(SESSION, 0.0), "n": 0, "check": 0, "pad": "0" * PAD}
    return created, None


def _temps(home: Path) -> list[str]:
    directory = support.state_path(home, SESSION).parent
    return [n for n in os.listdir(directory) if atomic.TEMP_MARK in n]


def _check(home: Path, last: int) -> int:
    """The file is one whole version, no older than the last one seen; returns its counter."""
    state: Any = store.read_state(str(support.state_path(home, SESSION)))  # raises if torn
    if state is None:
        assert last == 0, "the state file disappeared"
        return 0
    n = state["n"]
    assert state["check"] == n * 7
    assert state["pad"] == str(n % 10) * PAD
    assert n >= last
    return int(n)


def _trials(home: Path, count: int, seed: int) -> None:
    """`count` killed writers, and more (up to eight times as many) until a kill has landed
    mid-write: where a kill lands is up to the machine's timing, and a trial in which none
    did proves nothing."""
    rng = random.Random(seed)
    from arcguard.storage import paths

    paths.ensure_sessions_dir(str(home))
    last = 0
    killed_with_temp = 0
    trials = 0
    while trials < count or (killed_with_temp == 0 and trials < 8 * count):
        trials += 1
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(home), SESSION, str(PAD)],
            stdout=subprocess.PIPE,
            env=support.env(home),
        )
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"go\n"
        try:
            proc.wait(timeout=rng.uniform(0.0, 0.08))
        except subprocess.TimeoutExpired:
            pass
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        assert proc.returncode == -signal.SIGKILL, "the writer ended on its own"
        last = _check(home, last)
        killed_with_temp += bool(_temps(home))
        # The next writer sweeps what the killed one left behind. It stores something: a
        # change that stores nothing for a session with no state yet takes no lock, and temps
        # are only ever removed under the lock.
        store.update(str(home), SESSION, _keep_or_create, now=0.0, lock_timeout=30.0)
        assert _temps(home) == []
    assert last > 0, "no write ever completed: the trial proves nothing"
    assert killed_with_temp > 0, "no kill landed mid-write: the trial proves nothing"


def test_killed_writers_never_tear_the_state_file(tmp_path: Path) -> None:
    _trials(tmp_path / "state", 50, seed=6)


@pytest.mark.slow
def test_hundreds_of_killed_writers_never_tear_the_state_file(tmp_path: Path) -> None:
    _trials(tmp_path / "state", 400, seed=7)
