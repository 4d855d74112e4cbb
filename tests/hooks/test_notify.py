"""Notifications from real hook processes: the terminal sequence and the user's command."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from testing.builders import hook_output
from testing.builders import run_hook


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
