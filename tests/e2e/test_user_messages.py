"""What arcguard tells the user, end to end: a `systemMessage` per decision, never the model.

Run in `-p` with `--output-format stream-json --verbose`, where Claude Code prints each hook's
`systemMessage` as a system event (`"subtype": "informational"`, "<Event> says: ...");
interactive mode shows the same line on the screen under the assistant's text.
"""

from __future__ import annotations

import json
from typing import Any

from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use

from conftest import ClaudeRun
from conftest import all_arcguard_settings
from conftest import arcguard_state


STREAM = ["--output-format", "stream-json", "--verbose"]
NOOP = "No response requested."


def said(run: ClaudeRun) -> list[str]:
    """The informational system lines of a stream-json run, in order."""
    lines = []
    for raw in run.stdout.splitlines():
        try:
            event: Any = json.loads(raw)
        except ValueError:
            continue
        if isinstance(event, dict) and (event.get("type"), event.get("subtype")) == (
            "system",
            "informational",
        ):
            lines.append(str(event.get("content")))
    return lines


def never_sent(api: ScriptedAPI, line: str) -> None:
    for index in range(len(api.requests)):
        assert line not in api.request_text(index), index


def test_a_continuation_is_told_to_the_user_and_not_to_the_model(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    with ScriptedAPI([text(NOOP), text("Back on the importer.")]) as api:
        run = run_claude(project, api, "/autonomous ship the importer", extra_args=STREAM)

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert len(api.requests) == 2
    line = (
        "arcguard sent the model back to work (1 of 2 in a row):"
        " it stopped mid-arc with nothing done. To change this: stop_policy, or /autonomous stop"
    )
    assert f"Stop says: {line}" in said(run), run.describe()
    never_sent(api, "arcguard sent the model back to work")
    # The model's reason names the completion command; the posture before it spells it out.
    assert f"arc complete {run.session_id}" in api.request_text(0)


def test_a_deny_and_a_pause_are_told_where_a_headless_run_shows_them(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    call_a, call_b = "echo A >> runs.txt", "echo B >> runs.txt"
    script = [tool_use("Bash", {"command": c}) for _ in range(15) for c in (call_a, call_b)]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "get the build green", extra_args=STREAM)

    assert run.result is not None and run.result["terminal_reason"] == "hook_stopped"
    assert run.result["result"] == ""  # the pause's reason is not in the result...
    lines = said(run)
    denied = [x for x in lines if x.startswith("PreToolUse:Bash says: arcguard stopped")]
    assert len(denied) == 2, lines
    assert "a repeated Bash call: it ran 2 times with the same result" in denied[0]
    assert denied[0].endswith("To change this: repeat_limit, loop_guard, or arcguard off")
    # The pause gets no line of its own (Claude Code prints its reason on the screen, see
    # test_screen_lines.py); `arcguard status` has it (the state's guard.paused).
    assert not [x for x in lines if "arcguard paused" in x], lines
    state = arcguard_state(project, run.session_id)
    assert "a 2-call cycle 3 times" in state["guard"]["paused"]["reason"]
    never_sent(api, "arcguard stopped a repeated")
