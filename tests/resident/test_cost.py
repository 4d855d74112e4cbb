"""Each hook run records its own cost; `arcguard status --cost` reports it per hook and mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from testing.builders import run_hook

from arcguard.storage import cost


SID = "3e0c1b2a-0000-4000-8000-00000000c057"


def _status_cost(home: Path, *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arcguard", "status", "--cost", *more],
        capture_output=True,
        text=True,
        env={**os.environ, "ARCGUARD_HOME": str(home)},
        timeout=60,
    )


def test_a_command_hook_records_its_wall_time_from_process_start(tmp_path):
    home = tmp_path / "state"
    home.mkdir(mode=0o700)
    for _ in range(3):
        done = run_hook("post-batch", {"session_id": SID, "tool_calls": []}, home)
        assert done.returncode == 0
    runs = cost.read(str(home))
    assert list(runs) == [("command", "post-batch")]
    assert len(runs["command", "post-batch"]) == 3
    # From the process start: the interpreter's own start-up is in it, so no run is shorter
    # than a bare interpreter's start (a few ms), and none longer than the hook's budget.
    assert all(2_000 <= micros <= 60_000_000 for micros in runs["command", "post-batch"])
    assert oct((home / cost.NAME).stat().st_mode & 0o777) == "0o600"


def test_the_process_start_clock_counts_the_interpreter_start(tmp_path):
    code = (
        "import time;time.sleep(0.3);"
        "from arcguard.storage import cost;print(cost.since_process_start())"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert 0.3 <= float(done.stdout) < 30


def test_the_record_stays_bounded_and_keeps_the_most_recent_runs(tmp_path):
    home = str(tmp_path)
    for n in range(cost.MAX_BYTES // 10):
        cost.record(home, cost.COMMAND, "pre-tool", n / 1_000_000)
    sizes = [os.path.getsize(cost.path(home) + suffix) for suffix in ("", ".1")]
    assert all(size <= cost.MAX_BYTES + 64 for size in sizes)
    values = cost.read(home)["command", "pre-tool"]
    assert values[-1] == cost.MAX_BYTES // 10 - 1
    assert values == sorted(values)


def test_a_damaged_record_is_skipped(tmp_path):
    (tmp_path / cost.NAME).write_bytes(b"command pre-tool 100\ngarbage\n\xff\xfe\nresident x -1\n")
    assert cost.read(str(tmp_path)) == {("command", "pre-tool"): [100]}


def test_status_cost_prints_median_and_p95_per_hook_and_mode(tmp_path):
    home = str(tmp_path)
    for n in range(1, 101):
        cost.record(home, cost.COMMAND, "pre-tool", n / 1000)
        cost.record(home, cost.RESIDENT, "pre-tool", n / 10_000)
    done = _status_cost(tmp_path, "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["cost"]
    assert rows == [
        {
            "hook": "pre-tool",
            "events": ["PreToolUse"],
            "mode": "command",
            "runs": 100,
            "median_ms": 50.0,
            "p95_ms": 95.0,
        },
        {
            "hook": "pre-tool",
            "events": ["PreToolUse"],
            "mode": "resident",
            "runs": 100,
            "median_ms": 5.0,
            "p95_ms": 9.5,
        },
    ]
    text = _status_cost(tmp_path).stdout
    assert "pre-tool" in text and "PreToolUse" in text
    assert "  50.0 ms   95.0 ms" in text and "   5.0 ms    9.5 ms" in text


def test_status_cost_with_nothing_recorded_says_so(tmp_path):
    done = _status_cost(tmp_path)
    assert done.returncode == 0
    assert "no hook runs recorded yet" in done.stdout
