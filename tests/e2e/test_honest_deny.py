"""A deny says what is true when it is given, end to end with the real Claude Code CLI: three
identical calls in one message have no result yet when the third is judged."""

from __future__ import annotations

from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use
from scripted_api import turn

from conftest import all_arcguard_settings


def test_the_third_of_three_identical_parallel_calls_is_denied_as_issued_at_once(
    claude_project, run_claude
):
    project = claude_project(all_arcguard_settings())
    call = {"command": "cat notes.txt"}
    (project.path / "notes.txt").write_text("hello\n")
    script = [
        turn(tool_use("Bash", call), tool_use("Bash", call), tool_use("Bash", call)),
        text("Read the notes."),
    ]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "read the notes")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    results = api.tool_results(1)
    assert len(results) == 3
    denied = [r for r in results if "arcguard" in str(r.get("content"))]
    assert len(denied) == 1, results
    reason = str(denied[0]["content"])
    assert "issued 3 times at once" in reason
    assert "already ran" not in reason
