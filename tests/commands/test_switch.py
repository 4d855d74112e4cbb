"""`arcguard off` / `arcguard on` and the `loop_guard` setting, through real hook processes:
what each holds back, and where `status`, `doctor` and the status line say so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from testing.builders import hook_output
from testing.builders import run_hook
from testing.cli import invoke

from arcguard.storage import paths
from arcguard.storage.switch import Switch
from arcguard.storage.switch import turned


A = "5b1f0c2e-0000-4000-8000-00000000000a"
B = "5b1f0c2e-0000-4000-8000-00000000000b"


def _home() -> str:
    return os.environ["ARCGUARD_HOME"]


def _repeat(sid: str, times: int = 3, **env: str) -> dict[str, Any] | None:
    """The same Bash call with the same result `times` times; the last PreToolUse's output."""
    base = {"session_id": sid, "tool_name": "Bash", "tool_input": {"command": "cat settings"}}
    out = None
    for n in range(times):
        call = {**base, "tool_use_id": f"toolu_{sid[-1]}{n}"}
        out = hook_output(run_hook("pre-tool", {**call, "hook_event_name": "PreToolUse"}, env=env))
        if out is None:
            post = {**call, "hook_event_name": "PostToolUse", "tool_response": {"stdout": "x: 1"}}
            run_hook("post-tool", post, env=env)
    return out


def _denied(out: dict[str, Any] | None) -> bool:
    return out is not None and out["hookSpecificOutput"]["permissionDecision"] == "deny"


def _switch_file() -> Path:
    return Path(paths.switch_path(_home()))


def test_the_third_identical_call_is_denied_while_on() -> None:
    # The baseline the other tests hold back: without it they would pass on a guard that
    # never denies anything.
    assert _denied(_repeat(A))


def test_off_for_every_session_decides_and_records_nothing() -> None:
    assert invoke("off").exit_code == 0
    assert not _denied(_repeat(A))
    assert not os.path.exists(paths.session_path(_home(), A))
    out = run_hook("posture", {"session_id": B, "prompt": "/autonomous go", "hook_event_name": "x"})
    assert hook_output(out) is None  # no posture, no arc started
    assert invoke("on").exit_code == 0
    assert not _switch_file().exists()  # everything on: no file for a hook to open
    assert _denied(_repeat(A))


def test_off_for_one_session_leaves_the_others_guarded() -> None:
    result = invoke("off", "--session", A)
    assert result.exit_code == 0 and "off for session" in result.output
    assert not _denied(_repeat(A))
    assert _denied(_repeat(B))
    assert invoke("on", "--session", A).exit_code == 0
    assert _denied(_repeat(A))


def test_on_for_one_session_while_every_session_is_off() -> None:
    invoke("off")
    result = invoke("on", "--session", A)
    assert "every other session stays off" in result.output
    assert _denied(_repeat(A))
    assert not _denied(_repeat(B))


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        ([(None, True)], Switch(every=True)),
        ([(A, True), (None, True)], Switch(every=True)),  # every session clears single ones
        ([(A, True), (None, False)], Switch()),
        ([(A, True), (B, True), (A, False)], Switch(off=(B,))),
        ([(None, True), (A, False)], Switch(every=True, on=(A,))),
        ([(None, True), (A, False), (A, True)], Switch(every=True)),
        ([(A, False)], Switch()),  # on for a session that was never off changes nothing
    ],
)
def test_turning_the_switch(steps: list[tuple[str | None, bool]], expected: Switch) -> None:
    current = Switch()
    for sid, off in steps:
        current = turned(current, sid, off=off)
    assert current == expected


def test_status_doctor_and_the_status_line_say_it_is_off() -> None:
    _repeat(A, times=1)
    invoke("off", "--session", A)
    table = invoke("status").output
    assert "arcguard is off for 1 session" in table and "arcguard off" in table.splitlines()[-1]
    listing = json.loads(invoke("status", "--json").output)
    assert listing["switch"] == {"every": False, "off": [A], "on": [], "error": None}
    assert listing["sessions"][0]["switched_off"] is True
    assert "switch    off" in invoke("status", "--session", A).output
    line = _status_line(A)
    assert line.startswith("arcguard off") and "arcguard on" in line
    assert _status_line(B) == ""  # another session: nothing of arcguard's to show
    doctor = json.loads(invoke("doctor", "--json").output)
    switch = [c for c in doctor["checks"] if c["name"] == "switch"]
    assert switch and switch[0]["status"] == "warn" and "1 session" in switch[0]["detail"]


def _status_line(sid: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "arcguard", "statusline"],
        input=json.dumps({"session_id": sid}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


def test_an_unreadable_switch_file_means_off_and_doctor_says_so() -> None:
    os.makedirs(_home(), exist_ok=True)
    _switch_file().write_text("{not json")
    assert not _denied(_repeat(A))  # failing open: no decision
    doctor = json.loads(invoke("doctor", "--json").output)
    switch = next(c for c in doctor["checks"] if c["name"] == "switch")
    assert switch["status"] == "gap" and "arcguard on" in switch["hint"]
    assert "cannot be read" in invoke("status").output
    assert invoke("on").exit_code == 0
    assert _denied(_repeat(A))


def test_a_blank_session_id_is_refused() -> None:
    result = invoke("off", "--session", " ")
    assert result.exit_code != 0 and not _switch_file().exists()


@pytest.mark.parametrize(("scope", "denied"), [("always", True), ("arcs", False), ("off", False)])
def test_loop_guard_scope_outside_an_arc(scope: str, denied: bool) -> None:
    assert _denied(_repeat(A, ARCGUARD_LOOP_GUARD=scope)) is denied


@pytest.mark.parametrize(("scope", "denied"), [("always", True), ("arcs", True), ("off", False)])
def test_loop_guard_scope_inside_an_arc(scope: str, denied: bool) -> None:
    assert invoke("arc", "set", A, "task").exit_code == 0
    assert _denied(_repeat(A, ARCGUARD_LOOP_GUARD=scope)) is denied
