"""The hook's hard limits: a log that cannot hold it, a payload bound, a watchdog exit that
cannot block, and a decision that is either both recorded and printed or neither."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from testing import hook_driver

from arcguard.hooks import runner
from arcguard.storage import paths
from tests.reliability import support


SESSION = "5b1f0c2e-0000-4000-8000-00000000b001"
NO_OP = "No response requested."


def _blocks(home: Path) -> int:
    return int(support.read_state(home, SESSION)["arc"].get("total_blocks", 0))


@pytest.mark.parametrize("reader", [False, True])
def test_a_fifo_at_the_log_path_does_not_hang_a_hook_that_logs(
    tmp_path: Path, reader: bool
) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    sessions = Path(paths.ensure_sessions_dir(str(home)))
    fifo = paths.error_log(str(home))
    os.mkfifo(fifo)
    # With a reader the open itself succeeds; the type check must still turn the FIFO away.
    held = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK) if reader else -1
    try:
        (sessions / paths.session_file_name(SESSION)).write_text("{ torn")  # gets logged
        proc = support.run_hook("pre-tool", support.pre_tool(SESSION, "ls"), home, timeout=30)
        if reader:
            assert os.read(held, 1) == b""  # nothing was written into the FIFO
    finally:
        if held >= 0:
            os.close(held)
    assert proc.returncode == 0
    assert proc.stdout == b""
    assert b"quarantined" in proc.stderr and b"log unavailable" in proc.stderr


def test_a_payload_over_the_bound_gets_no_decision_and_a_log_line(tmp_path: Path) -> None:
    support.put_state(tmp_path, SESSION)
    payload = support.stop(SESSION, message=NO_OP)
    assert support.is_decision(support.run_hook("stop", payload, tmp_path).stdout)
    support.put_state(tmp_path, SESSION)
    padded = {**payload, "padding": "x" * runner.MAX_PAYLOAD}
    proc = support.run_hook("stop", padded, tmp_path)
    assert proc.returncode == 0
    assert proc.stdout == b""
    assert f"payload over {runner.MAX_PAYLOAD} bytes" in support.log_text(tmp_path)


def test_the_payload_bound_is_far_above_real_payloads() -> None:
    # The largest payload measured from real sessions is about 175 KB.
    assert runner.MAX_PAYLOAD >= 20 * 175_000
    assert runner.MAX_PAYLOAD <= 8 * 1024 * 1024


def test_the_watchdog_exits_even_when_its_log_line_blocks_forever(tmp_path: Path) -> None:
    script = (
        "import threading, time\n"
        "from arcguard.storage import error_log\n"
        "from arcguard.hooks import runner\n"
        "error_log.log_line = lambda *a, **k: threading.Event().wait()\n"
        f"runner._Watchdog.begin(0.05, {str(tmp_path)!r}, 'stop')\n"
        "time.sleep(120)\n"
        "raise SystemExit(3)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, timeout=60, check=False
    )
    assert proc.returncode == 0


def _context(home: Path) -> runner.Context:
    return hook_driver.context("stop", home)


def test_a_decision_is_committed_before_its_state_is_written(tmp_path: Path) -> None:
    support.put_state(tmp_path, SESSION)
    ctx = _context(tmp_path)
    blocks_at_commit = []

    def commit() -> bool:
        blocks_at_commit.append(_blocks(tmp_path))
        return True

    ctx.commit = commit
    raw = json.dumps(support.stop(SESSION, message=NO_OP)).encode()
    text = runner.dispatch("stop", raw, ctx)
    assert text is not None and json.loads(text)["decision"] == "block"
    assert blocks_at_commit == [0]  # nothing was spent before the output was certain
    assert _blocks(tmp_path) == 1


def test_a_decision_too_late_to_commit_spends_nothing(tmp_path: Path) -> None:
    support.put_state(tmp_path, SESSION)
    before = support.state_path(tmp_path, SESSION).read_bytes()
    ctx = _context(tmp_path)
    ctx.commit = lambda: False  # the watchdog fired first
    raw = json.dumps(support.stop(SESSION, message=NO_OP)).encode()
    assert runner.dispatch("stop", raw, ctx) is None
    assert support.state_path(tmp_path, SESSION).read_bytes() == before
    assert support.log_text(tmp_path) == ""
