"""Many hook and verb processes on one session's state at once: no lost update, exact counters.

Protection exercised: the per-session sidecar lock (`atomic.locked`, flock on `<state>.lock`)
around every read-modify-write in `store.update`, shared by the hook path (raw flock) and the
verbs (filelock). Without it, concurrent read-modify-writes overwrite each other and the
counters below come out short. The lock-free reader checks that atomic replacement never lets
anyone see a half-written file.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from arcguard.core.config import SETTING
from arcguard.storage import store
from tests.reliability import support


WORKERS = 16
SESSION = "concurrent-session"
# The most patient the config allows: this suite checks exclusion, not the fail-open timeout
# (see lock starvation).
PATIENT = {
    "ARCGUARD_LOCK_TIMEOUT_MS": str(SETTING["lock_timeout_ms"].high),
    "ARCGUARD_HOOK_BUDGET_MS": str(SETTING["hook_budget_ms"].high),
}


def _worker(home: Path, worker: int, rounds: int) -> list[tuple[str, int, bytes]]:
    results = []
    for r in range(rounds):
        # Letters, not digits, tell the workers' tokens apart: a result differing only in its
        # numbers reads as one result seen again, and many of them would pause the session.
        token = f"token_{chr(97 + worker)}{chr(97 + r)}"
        command = f"grep -rn {token} src"
        tid = f"toolu_{worker}_{r}"
        for name, payload in (
            ("pre-tool", support.pre_tool(SESSION, command, tid)),
            ("post-tool", support.post_tool(SESSION, command, tid, stdout=f"hit {token}")),
            (
                "post-batch",
                {
                    "session_id": SESSION,
                    "transcript_path": "",
                    "hook_event_name": "PostToolBatch",
                    "tool_calls": [
                        {
                            "tool_name": "Bash",
                            "tool_input": {"command": command},
                            "tool_use_id": tid,
                            "tool_response": "hit",
                        }
                    ],
                },
            ),
            # stop_hook_active: a productive turn inside a continuation chain keeps the counter.
            (
                "stop",
                support.stop(
                    SESSION,
                    message=f"Worker {worker} finished round {r}; moving on to the next file.",
                    active=True,
                ),
            ),
        ):
            proc = support.run_hook(name, payload, home, env=PATIENT)
            results.append((name, proc.returncode, proc.stdout))
        proc = support.run_arc("bump", SESSION, "reconcile_count", home=home)
        results.append(("arc bump", proc.returncode, proc.stdout))
    return results


def _watch(home: Path, done: threading.Event, problems: list[str]) -> None:
    """Read the state lock-free, as `status` does, for as long as the writers run."""
    path = str(support.state_path(home, SESSION))
    while not done.is_set():
        try:
            if store.read_state(path) is None:
                problems.append("state file vanished")
        except store.Unreadable as exc:
            problems.append(str(exc))


def _hammer(home: Path, rounds: int) -> None:
    support.put_state(home, SESSION)
    first = support.run_hook("pre-tool", support.pre_tool(SESSION, "true", "toolu_first"), home)
    assert first.returncode == 0
    done = threading.Event()
    problems: list[str] = []
    watcher = threading.Thread(target=_watch, args=(home, done, problems))
    watcher.start()
    try:
        with ThreadPoolExecutor(WORKERS) as pool:
            runs = [
                r for rs in pool.map(lambda w: _worker(home, w, rounds), range(WORKERS)) for r in rs
            ]
    finally:
        done.set()
        watcher.join()
    assert problems == []
    for name, code, out in runs:
        assert code == 0, name
        if name == "arc bump":
            assert out.strip().isdigit()
        else:
            support.assert_quiet_output(out)
            assert not support.is_decision(out), (name, out)

    total = WORKERS * rounds
    state = support.read_state(home, SESSION)
    track = state["guard"]["tracks"]["main"]
    assert state["arc"]["reconcile_count"] == total  # every bump counted once
    assert track["seq"] == total + 1  # every pre-tool counted once (plus the first call)
    assert len(track["ops"]) == total + 1  # every distinct operation recorded
    runs_recorded = [run for op in track["ops"].values() for run in op["runs"]]
    assert len(runs_recorded) == total + 1
    # Each worker posts after its own pre-tool, so every run but the first has its outcome.
    assert sum(run["outcome"] is None for run in runs_recorded) == 1
    assert track["turns"] == 2 * total  # post-batch and stop each count a turn
    assert {entry["kind"] for entry in state["log"]} <= {"nudge"}
    assert support.log_text(home) == ""  # no hook failed open


def test_sixteen_processes_on_one_session_lose_no_update(tmp_path: Path) -> None:
    _hammer(tmp_path / "state", rounds=1)


@pytest.mark.slow
def test_sixteen_processes_many_rounds_lose_no_update(tmp_path: Path) -> None:
    _hammer(tmp_path / "state", rounds=6)
