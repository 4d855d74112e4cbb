"""However `arcguard hook` is called, and wherever its output goes, it exits 0.

Claude Code reads a hook's exit status: 2 blocks (on PreToolUse, every tool call), any other
non-zero exit is reported as a hook error. A typo in the wiring or a closed pipe must not do
either.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from testing.builders import run_hook

from arcguard.core import render
from arcguard.hooks import runner
from arcguard.storage import paths


SID = "5b1f0c2e-0000-4000-8000-00000000a001"
NO_OP_STOP = {
    "session_id": SID,
    "hook_event_name": "Stop",
    "last_assistant_message": "No response requested.",
}


def arcguard(
    *args: str, home: Path, stdout: int | None = subprocess.PIPE, **kw: object
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "ARCGUARD_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "arcguard", *args],
        input=b"{}",
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=env,
        timeout=60,
        check=False,
        **kw,
    )  # type: ignore[call-overload]


def log(home: Path) -> str:
    path = Path(paths.error_log(str(home)))
    return path.read_text() if path.exists() else ""


@pytest.mark.parametrize(
    "args", [(), ("stpo",), ("stop", "extra"), ("pre-tool", "--json"), ("",), ("stop", "stop")]
)
def test_a_malformed_hook_invocation_exits_0_and_says_why(tmp_path: Path, args: tuple[str, ...]):
    done = arcguard("hook", *args, home=tmp_path)
    assert done.returncode == 0
    assert done.stdout == b""
    assert b"usage: arcguard hook NAME" in done.stderr
    assert "usage: arcguard hook NAME" in log(tmp_path)


def test_hook_help_still_shows_the_hooks(tmp_path: Path):
    done = arcguard("hook", "--help", home=tmp_path)
    assert done.returncode == 0
    assert b"post-batch" in done.stdout


def _start_arc(home: Path) -> None:
    result = run_hook(
        "posture",
        {"session_id": SID, "prompt": "/autonomous go", "hook_event_name": "UserPromptSubmit"},
        env={"ARCGUARD_HOME": str(home)},
    )
    assert result.returncode == 0 and result.stdout


def test_a_full_stdout_exits_0_without_a_traceback(tmp_path: Path):
    _start_arc(tmp_path)
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "arcguard", "hook", "stop"],
            input=json.dumps(NO_OP_STOP).encode(),
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
            env={**os.environ, "ARCGUARD_HOME": str(tmp_path)},
        )
    assert done.returncode == 0
    assert b"Traceback" not in done.stderr


def test_a_closed_stdout_exits_0_and_the_output_lands_nowhere_else(tmp_path: Path):
    _start_arc(tmp_path)
    code = (
        "import os, sys; os.close(1); from arcguard.main import main; "
        "sys.exit(main(['hook', 'stop']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(NO_OP_STOP).encode(),
        capture_output=True,
        timeout=60,
        check=False,
        env={**os.environ, "ARCGUARD_HOME": str(tmp_path)},
    )
    assert done.returncode == 0
    assert b"Traceback" not in done.stderr
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert b'"decision"' not in path.read_bytes(), path


def test_a_runner_that_cannot_load_still_exits_0(monkeypatch: pytest.MonkeyPatch):
    from arcguard import main as entry

    def broken(*_args: object) -> int:
        raise TypeError("a broken accelerator")

    monkeypatch.setattr(runner, "main", broken)
    assert entry.main(["hook", "stop"]) == 0


def test_output_to_a_broken_descriptor_is_dropped_quietly():
    read_end, write_end = os.pipe()
    os.close(read_end)
    printed = render.output((render.Continue("go on"),), "Stop")
    runner._write(write_end, json.dumps(printed))  # EPIPE: no raise
    os.close(write_end)


def test_the_hooks_on_a_call_s_result_leave_an_arc_s_checks_unloaded_until_an_arc_needs_them():
    # Most sessions hold no arc: the module of its checks is start-up time they would pay on
    # every tool call for nothing.
    code = (
        "import sys, arcguard.hooks.post_batch, arcguard.hooks.post_tool;"
        "print('arcguard.core.arc_keeper.named_checks' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
