"""Claude Code's Stop-hook cap with the real CLI: arcguard stays under it, and a turn the cap
ended (another Stop hook kept blocking) is reported as such by `status` and `forensics`.

Claude Code overrides a Stop hook after CLAUDE_CODE_STOP_HOOK_BLOCK_CAP consecutive blocks
(default 8) and writes a system warning "... overriding and ending turn"; in `-p` the run
then ends with `terminal_reason: "completed"`, like a finished one.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from typing import Any

from scripted_api import ScriptedAPI
from scripted_api import text

from conftest import add_handler
from conftest import all_arcguard_settings
from conftest import arcguard_state
from conftest import log_kinds


NOOP = "No response requested."
OVERRIDE = "overriding and ending turn"
# A Stop hook that blocks its first N stops, then lets every stop through.
_BLOCKER = """\
import json, sys
json.load(sys.stdin)
with open(sys.argv[1], "a") as fh:
    fh.write("x\\n")
with open(sys.argv[1]) as fh:
    if sum(1 for _ in fh) <= int(sys.argv[2]):
        sys.stdout.write(json.dumps({"decision": "block", "reason": "other hook: not yet"}))
"""


def warnings(run: Any) -> list[str]:
    return [
        str(e.get("content"))
        for e in run.transcript_entries()
        if e.get("type") == "system" and OVERRIDE in str(e.get("content"))
    ]


def arcguard_cli(*args: str, env: dict[str, str]) -> str:
    return subprocess.run(
        [sys.executable, "-m", "arcguard", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    ).stdout


def test_a_lower_claude_cap_clamps_arcguard_and_nothing_is_overridden(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    env = {"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "1"}
    with ScriptedAPI([text(NOOP)] * 4) as api:
        run = run_claude(project, api, "/autonomous ship the importer", env=env)

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert len(api.requests) == 2  # one continuation, which Claude Code's cap allows
    assert warnings(run) == []  # arcguard stopped short: Claude Code had nothing to override
    state = arcguard_state(project, run.session_id)
    assert log_kinds(state) == ["arc", "continue", "cap"]
    assert "Claude Code's Stop-hook cap (1 in a row)" in state["log"][-1]["reason"]


def test_a_turn_the_cap_ended_is_reported_as_not_completed(claude_project, run_claude):
    project = claude_project()
    blocker = project.write_script("blocker.py", _BLOCKER)
    command = shlex.join([sys.executable, str(blocker), str(project.root / "blocks.txt"), "3"])
    project.write_settings(add_handler(all_arcguard_settings(), "Stop", command))
    env = {"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "2"}
    with ScriptedAPI([text(NOOP)] * 3) as api:
        first = run_claude(project, api, "/autonomous ship the importer", env=env)
        sid = first.session_id
        # The other hook's third block is one too many: Claude Code ends the turn...
        assert first.result is not None, first.describe()
        assert first.result["terminal_reason"] == "completed" and first.result["result"] == ""
        assert len(api.requests) == 3
        assert len(warnings(first)) == 1, first.describe()
        # ... and arcguard, at the next stop that reads the transcript, records what it was.
        api.add(text("Back on the importer: the header parses."))
        second = run_claude(project, api, "carry on", extra_args=["--resume", str(sid)], env=env)

    assert second.result is not None, second.describe()
    state = arcguard_state(project, sid)
    assert log_kinds(state).count("overridden") == 1
    home = {**project.base_env(), "ARCGUARD_HOME": str(project.arcguard_home)}
    shown = arcguard_cli("status", "--session", str(sid), env=home)
    assert "overridden 1 turn(s) ended by Claude Code's Stop-hook cap, not completed" in shown
    report = json.loads(arcguard_cli("forensics", "--json", str(project.transcript_dir), env=home))
    assert report["stop_cap_overrides"] == 1
