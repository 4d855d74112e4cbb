"""Notifications from real hook processes: the terminal sequence and the user's command."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from testing import hook_driver
from testing.builders import hook_output
from testing.builders import run_hook

from arcguard.core.config import Config


SID = "5b1f0c2e-0000-4000-8000-00000000bbbb"
# A notify command that appends its stdin to a file, one line per event.
RECORDER = "import sys; open(sys.argv[1], 'a').write(sys.stdin.read() + '\\n')"


def start_arc() -> None:
    assert run_hook("posture", {"session_id": SID, "prompt": "/autonomous go"}).returncode == 0


def stall(**env: str):
    return run_hook(
        "stop",
        {
            "session_id": SID,
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": "No response requested.",
        },
        env=env,
    )


def lines(path: Path, count: int) -> list[dict[str, object]]:
    for _ in range(400):
        if path.exists() and len(path.read_text().splitlines()) >= count:
            break
        time.sleep(0.05)
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_stall_let_through_by_the_cap_rings_and_runs_the_notify_command_once(tmp_path):
    events = tmp_path / "events.jsonl"
    env = {
        "ARCGUARD_MAX_CONTINUATIONS_PER_ARC": "1",
        "ARCGUARD_NOTIFY_COMMAND": json.dumps([sys.executable, "-c", RECORDER, str(events)]),
    }
    start_arc()
    assert hook_output(stall(**env))["decision"] == "block"  # the arc's one continuation
    capped = hook_output(stall(**env))
    assert capped == {
        "terminalSequence": "\x1b]0;arcguard: stopped at the continuation cap\x07\x07",
        "systemMessage": capped["systemMessage"],
    }
    assert capped["systemMessage"].startswith("arcguard let the model stop")
    [event] = lines(events, 1)
    assert event["session_id"] == SID and event["kind"] == "cap"
    assert event["reason"] and isinstance(event["time"], float)
    # No terminal sequence; the user is still told, in a line the model does not see.
    assert set(hook_output(stall(ARCGUARD_NOTIFY_TERMINAL="0", **env))) == {"systemMessage"}
    assert len(lines(events, 2)) == 2


def test_a_failing_notify_command_is_logged_and_the_hook_still_answers(tmp_path):
    env = {
        "ARCGUARD_MAX_CONTINUATIONS_PER_ARC": "1",
        "ARCGUARD_NOTIFY_COMMAND": json.dumps([str(tmp_path / "no-such-program")]),
    }
    start_arc()
    stall(**env)  # the arc's one continuation
    result = stall(**env)
    assert result.returncode == 0 and hook_output(result) is not None
    log = Path(os.environ["ARCGUARD_HOME"]) / "arcguard.log"
    for _ in range(400):
        if log.exists() and "no-such-program" in log.read_text():
            break
        time.sleep(0.05)
    assert "notify no-such-program: cannot run" in log.read_text()


def test_stop_failure_rings_when_the_limit_waiter_will_give_up():
    start_arc()
    payload = {
        "session_id": SID,
        "hook_event_name": "StopFailure",
        "error": "rate_limit",
        "last_assistant_message": "API Error: Request rejected (429) · slow down",
    }
    assert hook_output(run_hook("stop-failure", payload)) is None  # resumes are left
    spent = hook_output(
        run_hook("stop-failure", payload, env={"ARCGUARD_LIMIT_RESUMES_PER_ARC": "0"})
    )
    assert spent == {
        "terminalSequence": "\x1b]0;arcguard: not resuming after the API limit\x07\x07"
    }
    auth = dict(payload, error="authentication_failed")
    assert (
        hook_output(run_hook("stop-failure", auth, env={"ARCGUARD_LIMIT_RESUMES_PER_ARC": "0"}))
        is None
    )


def _stall_in_process(home: Path, cfg: Config) -> str | None:
    payload = {
        "session_id": SID,
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": "No response requested.",
    }
    return hook_driver.dispatch("stop", payload, home, cfg)


def _capped_arc(tmp_path: Path, monkeypatch) -> tuple[object, list[object]]:
    from arcguard.core.config import default_config
    from arcguard.hooks import notify

    cfg = default_config()
    cfg.max_continuations_per_arc = 1
    cfg.notify_command = ("true",)
    hook_driver.dispatch("posture", {"session_id": SID, "prompt": "/autonomous go"}, tmp_path, cfg)
    _stall_in_process(tmp_path, cfg)  # the arc's one continuation
    told: list[object] = []
    monkeypatch.setattr(notify, "spawn", lambda _home, _argv, event: told.append(event))
    return cfg, told


def test_save_then_tell_a_decision_whose_save_failed_is_never_announced(tmp_path, monkeypatch):
    from arcguard.storage import atomic

    cfg, told = _capped_arc(tmp_path, monkeypatch)

    def full_disk(*_args: object, **_kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic, "atomic_write", full_disk)
    assert _stall_in_process(tmp_path, cfg) is None  # fail open: no decision
    assert told == []


def test_save_then_tell_the_command_starts_after_the_state_is_saved_and_unlocked(
    tmp_path, monkeypatch
):
    from arcguard.storage import atomic
    from arcguard.storage import paths

    cfg, told = _capped_arc(tmp_path, monkeypatch)
    from arcguard.hooks import notify

    state_file = Path(paths.session_path(str(tmp_path), SID))
    before = state_file.read_text()
    at_spawn: list[str] = []

    def check(_home: str, _argv: list[str], event: object) -> None:
        with atomic.locked(str(state_file), 0.05):  # free: the hook has let go of it
            at_spawn.append(state_file.read_text())
        told.append(event)

    monkeypatch.setattr(notify, "spawn", check)
    assert _stall_in_process(tmp_path, cfg) is not None
    # The command started once, on the state as finally saved, not the one before it.
    assert len(told) == 1 and at_spawn == [state_file.read_text()] and at_spawn != [before]
