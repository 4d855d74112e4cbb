"""Human output never passes a control sequence from recorded data through to the terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arcguard.commands.group import cli
from arcguard.commands.printable import printable


CLEAR_SCREEN = "\x1b[2J"
SET_TITLE = "\x1b]0;owned\x07"
HOSTILE = f"ls {CLEAR_SCREEN}{SET_TITLE}"


def hook(name: str, payload: dict[str, Any], home: Path) -> str:
    env = {**os.environ, "ARCGUARD_HOME": str(home), "ARCGUARD_REPEAT_LIMIT": "2"}
    return subprocess.run(
        [sys.executable, "-m", "arcguard", "hook", name],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    ).stdout


def assert_inert(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b[2J" in text and "\\x1b]0;owned\\x07" in text


def test_printable_escapes_c0_c1_and_del_but_keeps_layout() -> None:
    assert printable("a\nb\tc") == "a\nb\tc"
    assert printable("\x1b[2J\r\x00\x7f\x9b\u202e") == "\\x1b[2J\\x0d\\x00\\x7f\\x9b\\u202e"


def test_status_session_escapes_a_denied_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    call = {"tool_name": "Bash", "tool_input": {"command": HOSTILE}}
    denied = ""
    for turn in range(3):
        ids = {"session_id": "hostile", "tool_use_id": f"t{turn}", **call}
        denied = hook("pre-tool", {**ids, "hook_event_name": "PreToolUse"}, tmp_path)
        hook(
            "post-tool",
            {
                **ids,
                "hook_event_name": "PostToolUse",
                "tool_response": {"stdout": "a", "stderr": ""},
            },
            tmp_path,
        )
        hook(
            "post-batch",
            {
                "session_id": "hostile",
                "hook_event_name": "PostToolBatch",
                "tool_calls": [{**call, "tool_use_id": f"t{turn}"}],
            },
            tmp_path,
        )
    assert "permissionDecision" in denied
    monkeypatch.setenv("ARCGUARD_HOME", str(tmp_path))
    out = CliRunner().invoke(cli, ["status", "--session", "hostile"]).output
    assert "deny" in out
    assert_inert(out)


def test_doctor_escapes_a_project_path(tmp_path: Path) -> None:
    project = tmp_path / f"p{CLEAR_SCREEN}{SET_TITLE}"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text("{}")
    out = CliRunner().invoke(cli, ["doctor", "--project", str(project)]).output
    assert_inert(out)


def test_forensics_text_escapes_an_entry_type(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(
        json.dumps({"type": HOSTILE})
        + "\n"
        + json.dumps({"type": "user", "message": {"role": "user", "content": "go"}})
        + "\n"
        + json.dumps(
            {
                "type": "assistant",
                "message": {
                    "id": "m",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "ok"}],
                },
            }
        )
        + "\n"
    )
    out = CliRunner().invoke(cli, ["forensics", str(tmp_path)]).output
    assert "unknown entry types: ls" in out
    assert_inert(out)
