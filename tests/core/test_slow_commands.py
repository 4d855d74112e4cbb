"""A command moved to the background at its timeout counts as one that hung, unless the harness
later says it completed: then it was slow, not stuck, and that attempt no longer counts. A
task completing says nothing of any other failure: a loop with a background step that
completes is still a loop."""

from __future__ import annotations

from typing import Any

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import edit as edit_call
from testing.guard_driver import fail


BENCH = "python bench.py --rounds 50"
# Narration that moves every turn, so only the failure rules can speak.
SAYS = [
    (f"Starting benchmark pass {tag} with {how} settings.", f"Pass {tag} done: {how} looks {v}.")
    for tag, how, v in zip(
        ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
        ("default", "warm cache", "cold cache", "pinned cpu", "larger batch", "small batch",
         "no jit", "jit", "final"),
        ("stable", "faster", "slower", "noisy", "better", "worse", "odd", "fine", "good"),
        strict=True,
    )
]  # fmt: skip


def _moved(command: str, task: str) -> Call:
    """The harness's report of a command that outlived its timeout and runs on as `task`."""
    response = {
        "stdout": "warming up\n",
        "stderr": "",
        "interrupted": False,
        "backgroundTaskId": task,
        "timedOutAfterMs": 120_000,
    }
    return Call("Bash", {"command": command}, response=response)


def _started(command: str, task: str) -> Call:
    response = {"stdout": "", "stderr": "", "interrupted": False, "backgroundTaskId": task}
    return Call("Bash", {"command": command, "run_in_background": True}, response=response)


def _notification(task: str, code: int) -> str:
    status, said = ("completed", "completed (exit code 0)") if code == 0 else ("failed", "failed")
    return (
        f"<task-notification>\n<task-id>{task}</task-id>\n<status>{status}</status>\n"
        f'<summary>Background command "run" {said}</summary>\n</task-notification>'
    )


def _status_call(task: str, code: int, output: str) -> Call:
    """The oldest releases' status tool reporting the task's end."""
    task_report = {
        "task_id": task,
        "task_type": "local_bash",
        "status": "completed" if code == 0 else "failed",
        "description": "run",
        "output": output,
        "exitCode": code,
    }
    response = {"retrieval_status": "success", "task": task_report}
    return Call("TaskOutput", {"task_id": task, "block": True}, response=response)


def _first(events: list[dict[str, Any]], d: Driver) -> tuple[bool, bool]:
    return any(e["context"] for e in events), d.paused is not None


def _bench_rounds(*, code: int | None, status_tool: bool = False) -> tuple[bool, bool]:
    """Eight rounds of a slow benchmark, each moved to the background at its timeout, then
    told ended with `code` (None: never told), then its numbers read: (worded, paused)."""
    d, events = Driver(), []
    for n, (start, done) in enumerate(SAYS[:8]):
        task = f"bench{n}"
        events.append(d.turn(_moved(BENCH, task), text=start))
        d.wait(200)
        read = Call("Read", {"file_path": f"/p/results/{task}.json"}, response=done)
        if status_tool and code is not None:
            events.append(d.turn(_status_call(task, code, "p50 12ms\n"), read, text=done))
            continue
        queued = [(f"q{n}", _notification(task, code), False)] if code is not None else []
        events.append(d.turn(read, queued=queued, text=done))
    return _first(events, d)


@pytest.mark.parametrize("status_tool", [False, True])
def test_a_slow_command_moved_at_its_timeout_that_then_completes_is_no_failure(status_tool):
    assert _bench_rounds(code=0, status_tool=status_tool) == (False, False)


@pytest.mark.parametrize("status_tool", [False, True])
def test_a_command_moved_at_its_timeout_that_then_fails_each_time_is_a_loop(status_tool):
    assert _bench_rounds(code=1, status_tool=status_tool) == (True, True)


def test_a_command_that_hangs_each_time_and_never_ends_is_a_loop():
    assert _bench_rounds(code=None) == (True, True)


@pytest.mark.parametrize("status_tool", [False, True])
def test_a_background_step_that_completes_moves_no_other_failure(status_tool):
    # A rebuild in the background, told complete, then the same test failure as before.
    d, events = Driver(), []
    for n, (start, done) in enumerate(SAYS[:8]):
        task = f"build{n}"
        events.append(d.turn(_started("npm run build", task), text=start))
        d.wait(60)
        queued = [] if status_tool else [(f"q{n}", _notification(task, 0), False)]
        if status_tool:
            events.append(d.turn(_status_call(task, 0, "built in 40s\n"), text=done))
        failure = fail("npm test", "FAIL src/app.test.ts\n  expected 200, received 500")
        events.append(d.turn(failure, queued=queued, text=f"{start} Then the tests."))
    assert _first(events, d) == (True, True)


def test_a_failed_task_notified_beside_a_completed_one_still_counts():
    # One prompt holding two notifications: only the task that completed is retired.
    d, events = Driver(), []
    for n, (start, done) in enumerate(SAYS[:8]):
        events.append(d.turn(_moved("npm run e2e", f"e2e{n}"), text=start))
        events.append(d.turn(_started("sleep 1", f"nap{n}"), text=f"{start} Waiting."))
        both = _notification(f"e2e{n}", 1) + _notification(f"nap{n}", 0)
        read = Call("Read", {"file_path": f"/p/e2e-{n}.log"}, response=done)
        events.append(d.turn(read, queued=[(f"q{n}", both, False)], text=done))
    assert _first(events, d) == (True, True)


def test_parallel_copies_of_a_hang_are_one_attempt_and_retired_once():
    d = Driver()
    for n in range(3):
        d.turn(_moved(BENCH, f"a{n}"), _moved(BENCH, f"b{n}"), text=SAYS[n][0])
    d.turn(Call("Read", {"file_path": "/p/notes.md"}, response="x"), text="Reading notes.")
    (run,) = [n for key, n in d.main["stuck"]["runs"].items() if key.startswith("failed")]
    assert run == 3
    both = _notification("a2", 0) + _notification("b2", 0)
    d.turn(Call("Read", {"file_path": "/p/more.md"}, response="y"), queued=[("q", both, False)])
    (run,) = [n for key, n in d.main["stuck"]["runs"].items() if key.startswith("failed")]
    assert run == 2


def test_a_hang_counted_before_the_run_started_over_is_not_taken_from_the_new_run():
    d = Driver()
    for n in range(3):
        d.turn(_moved(BENCH, f"old{n}"), text=SAYS[n][0])
    new_code = edit_call("/p/bench.py", "ROUNDS = 50", "ROUNDS = 20")  # every run starts over
    d.turn(new_code, text="Fewer rounds, so each pass fits its timeout.")
    for n in range(2):
        d.turn(_moved(BENCH, f"new{n}"), text=SAYS[n + 3][0])
    late = _notification("old2", 0)
    d.turn(Call("Read", {"file_path": "/p/x.md"}, response="z"), queued=[("q", late, False)])
    (run,) = [n for key, n in d.main["stuck"]["runs"].items() if key.startswith("failed")]
    assert run == 2
