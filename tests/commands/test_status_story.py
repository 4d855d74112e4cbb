"""`status` tells each session's story: the task typed after /autonomous (clipped and escaped),
the project folder from the hooks' payloads, and no milestone column where no arc has any."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from testing.builders import run_hook
from testing.cli import invoke

from arcguard.core.arc_keeper import posture
from arcguard.core.schema import TASK_CHARS
from arcguard.storage import paths


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path / "state"
    monkeypatch.setenv("ARCGUARD_HOME", str(state))
    return state


def prompt(home: Path, sid: str, text: str, cwd: str | None = "/srv/app") -> None:
    payload = {"session_id": sid, "hook_event_name": "UserPromptSubmit", "prompt": text}
    if cwd is not None:
        payload["cwd"] = cwd
    assert run_hook("posture", payload, home).returncode == 0


def state_of(home: Path, sid: str) -> dict[str, object]:
    return json.loads(Path(paths.session_path(str(home), sid)).read_text())


def rows(home: Path) -> list[list[str]]:
    result = invoke("status")
    assert result.exit_code == 0, result.output
    return [re.split(r"\s{2,}", line) for line in result.output.splitlines()]


@pytest.mark.parametrize(
    ("typed", "task"),
    [
        ("/autonomous  ship the\n importer ", "ship the importer"),
        ("/arcguard:autonomous ship it", "ship it"),
        ("/AUTONOMOUS go", "go"),
        ("/autonomous", ""),
    ],
)
def test_the_task_is_what_follows_the_command_on_one_line(typed: str, task: str):
    assert posture.task_of(typed) == task


def test_the_task_and_the_project_are_shown_and_there_is_no_empty_milestone_column(home: Path):
    prompt(home, "s1", "/autonomous add CSV export to the report command")
    prompt(home, "s2", "hello", cwd=None)
    header, *sessions = rows(home)
    assert "MILESTONES" not in header and header[2:4] == ["PROJECT", "TASK"]
    by_id = {row[1]: row for row in sessions}
    assert by_id["s1"][2:5] == ["/srv/app", "add CSV export to the report command", "active"]
    assert by_id["s2"][2:5] == ["-", "-", "-"]


def test_a_long_task_is_clipped_when_stored_and_shown_escaped(home: Path):
    typed = "/autonomous fix \x1b[31mred\x1b[0m " + "x" * 500
    prompt(home, "s1", typed)
    stored = state_of(home, "s1")["arc"]["task"]  # type: ignore[index]
    assert len(stored) == TASK_CHARS
    output = invoke("status").output
    assert "\x1b" not in output
    [row] = rows(home)[1:]
    assert row[3].endswith("…") and len(row[3]) <= 40 * 4  # escapes may widen it


def test_the_first_folder_reported_is_kept(home: Path):
    prompt(home, "s1", "/autonomous go", cwd="/srv/first")
    prompt(home, "s1", "and more", cwd="/srv/second")
    start = {"session_id": "s1", "hook_event_name": "SessionStart", "source": "resume"}
    assert run_hook("session-start", {**start, "cwd": "/srv/third"}, home).returncode == 0
    assert state_of(home, "s1")["cwd"] == "/srv/first"


def test_session_start_stores_the_folder_of_a_session_that_has_state(home: Path):
    prompt(home, "s1", "hi", cwd=None)
    start = {"session_id": "s1", "hook_event_name": "SessionStart", "source": "compact"}
    assert run_hook("session-start", {**start, "cwd": "/srv/app"}, home).returncode == 0
    assert state_of(home, "s1")["cwd"] == "/srv/app"


def test_a_folder_under_home_is_shown_from_home_and_a_long_one_by_its_end():
    from arcguard.commands.status_text import _folder

    assert _folder("/home/ada/src/app", "/home/ada") == "~/src/app"
    assert _folder("/home/adam/x", "/home/ada") == "/home/adam/x"
    long = "/srv/" + "deep/" * 10 + "project"
    shown = _folder(long, "/home/ada")
    assert shown.startswith("…") and shown.endswith("/deep/project") and len(shown) == 24
