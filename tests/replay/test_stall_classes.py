"""Replay's timeline names the class of every stop decision: what the model's final message
was seen to do, whether it was continued, let through or refused at a cap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from testing.builders import Transcript
from testing.builders import assistant_entries
from testing.builders import text
from testing.builders import tool_result
from testing.builders import tool_use
from testing.builders import user_prompt
from testing.builders import write_transcript

from arcguard.replay import replay
from arcguard.replay.timeline import render


def session(tmp_path: Path) -> Path:
    entries = [
        user_prompt("/autonomous ship the CSV export"),
        *assistant_entries(text("The writer is done. Want me to run the tests next?")),
        user_prompt("yes"),
        *assistant_entries(text("Tests pass.\n\nNext, I'll update the README.")),
        user_prompt("ok"),
        *assistant_entries(
            text(
                "DECISION NEEDED: the export drops the legacy column,"
                " which two public clients read."
            )
        ),
    ]
    return write_transcript(tmp_path / "s.jsonl", entries)


def stop_lines(shown: str) -> list[str]:
    return [line for line in shown.splitlines() if " stop " in line]


def test_the_timeline_names_question_announced_and_decision_stops(tmp_path: Path) -> None:
    lines = stop_lines(render(replay(str(session(tmp_path)))))
    assert len(lines) == 3
    assert "continue" in lines[0] and "question" in lines[0]
    assert "continue" in lines[1] and "announced-step" in lines[1]
    assert "decision" in lines[2] and "DECISION NEEDED" in lines[2]


def test_a_stop_refused_at_the_cap_says_which_class_it_was(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("max_continuations_per_arc = 1\n")
    lines = stop_lines(render(replay(str(session(tmp_path)), config_path=str(config))))
    assert "cap" in lines[1] and "announced-step" in lines[1]


def test_the_timeline_names_a_dead_resume(tmp_path: Path) -> None:
    resume = user_prompt("Continue from where you left off.")
    resume["isMeta"] = True  # Claude Code's own prompt after a crash or reconnect
    entries = [
        user_prompt("refactor the loader"),
        *assistant_entries(text("Refactoring the loader.")),
        resume,
        *assistant_entries(text("No response requested."), model="<synthetic>"),
    ]
    path = write_transcript(tmp_path / "resumed.jsonl", entries)
    lines = stop_lines(render(replay(str(path))))
    assert any("continue" in line and "resumed session" in line for line in lines), lines


STARTS: dict[str, tuple[str, dict[str, Any], str]] = {
    "agent": (
        "Task",
        {"description": "triage", "prompt": "triage the failures"},
        "Async agent launched successfully. agentId: a1 (the agent works in the background)",
    ),
    "shell": (
        "Bash",
        {"command": "make build", "run_in_background": True},
        "Command running in background with ID: a1. Output is being written to: /tmp/a1.output",
    ),
    "monitor": (
        "Monitor",
        {"description": "the build", "command": "make build"},
        "Monitor started (task a1, expires in 5m unless the source ends first).",
    ),
}


@pytest.mark.parametrize("work", sorted(STARTS))
def test_a_wait_on_running_work_is_let_through_and_one_on_nothing_sent_back(
    tmp_path: Path, work: str
) -> None:
    # While background work runs, Claude Code lists it in the Stop's `background_tasks` and
    # wakes the session when it reports. Once it has, a wait on CI has nothing running that
    # would wake the session: mid-arc, a stop partway.
    t = Transcript()
    t.prompt("/autonomous get the release pipeline green")
    t.tools(STARTS[work])
    t.text("Waiting for the pipeline to finish.")
    t.prompt("<task-notification><task-id>a1</task-id><status>completed</status>")
    t.text("The build is done. Waiting for CI to complete.")
    result = replay(str(t.write(tmp_path / "s.jsonl")))
    stops = [(d.turn, d.kind) for d in result.decisions if d.hook == "stop"]
    assert stops == [(2, "allow"), (3, "continue")]


def checked_session(tmp_path: Path, *, test_after_edit: bool) -> Path:
    run_tests, edit = (
        tool_use("Bash", {"command": "uv run pytest -q"}),
        tool_use("Edit", {"file_path": "/repo/app.py", "old_string": "a", "new_string": "b"}),
    )
    patch = {
        "filePath": "/repo/app.py",
        "originalFile": "a",
        "structuredPatch": [{"lines": ["-a", "+b"]}],
    }
    ran = {"stdout": "12 passed", "stderr": "", "interrupted": False}
    calls = [
        (edit, "The file /repo/app.py has been updated.", patch),
        (run_tests, "12 passed", ran),
    ]
    if not test_after_edit:
        calls.reverse()
    entries: list[dict[str, Any]] = [user_prompt("/autonomous fix the app until `pytest` passes")]
    for call, answer, result in calls:
        entries += [*assistant_entries(call), tool_result(call["id"], answer, result=result)]
    entries += assistant_entries(text("The arc is complete."))
    for entry in entries:
        entry["cwd"] = "/repo"  # the session's folder: /repo/app.py is the project's code
    return write_transcript(tmp_path / "checked.jsonl", entries)


def test_replay_sends_back_a_claim_made_before_the_named_check_passed_on_the_last_edit(
    tmp_path: Path,
) -> None:
    before = replay(str(checked_session(tmp_path, test_after_edit=False)))
    lines = stop_lines(render(before))
    assert len(lines) == 1 and "continue" in lines[0] and "unchecked" in lines[0]
    after = replay(str(checked_session(tmp_path, test_after_edit=True)))
    assert "release" in {d.kind for d in after.decisions}
    assert "continue" not in {d.kind for d in after.decisions}
