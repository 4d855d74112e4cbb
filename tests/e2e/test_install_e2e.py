"""`arcguard install` into a project, then the real Claude Code CLI runs a session there.

The hooks firing is proven by the decision log in the session's state file (read back with
`arcguard status`), and the installed `/autonomous` command by what the model receives.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from scripted_api import ScriptedAPI
from scripted_api import text


REPO = Path(__file__).resolve().parents[2]
TEMPLATE_LINE = "The operator hands you this task to carry through to the end"
NOT_AVAILABLE = "no command with that name is available"


def arcguard_argv() -> list[str]:
    """The installed console script when there is one (what a user runs), else the module."""
    script = Path(sys.executable).parent / "arcguard"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "arcguard"]


def arcguard(
    project: Any, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*arcguard_argv(), *args],
        capture_output=True,
        text=True,
        env={**project.base_env(), **(env or {})},
        cwd=project.path,
        timeout=120,
    )


def status(project: Any, session_id: str) -> dict[str, Any]:
    done = arcguard(project, "status", "--json", "--session", session_id)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["session"]  # type: ignore[no-any-return]


def test_installed_hooks_fire_and_the_command_expands(claude_project, run_claude, claude_bin):
    project = claude_project()
    path = f"{Path(claude_bin).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    installed = arcguard(
        project, "install", "--scope", "project", "--project", str(project.path), env={"PATH": path}
    )
    assert installed.returncode == 0, installed.stderr
    assert "left out" not in installed.stdout
    assert "installed arcguard hooks in" in installed.stdout
    assert (project.path / ".claude" / "commands" / "autonomous.md").is_file()

    # A no-op stop mid-arc is sent back to work; the model then says the arc is complete.
    script = [text("No response requested."), text("The arc is complete.")]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "/autonomous ship the importer")
    assert run.returncode == 0, run.describe()
    assert run.result is not None and run.result["terminal_reason"] == "completed"
    assert len(api.requests) == 2, run.describe()

    # The model got the expanded template, and the posture hook's context, not a "no such
    # command" notice.
    first = api.request_text(0)
    assert TEMPLATE_LINE in first and "ship the importer" in first
    assert NOT_AVAILABLE not in first
    assert "[arcguard] Autonomous arc 'ship the importer' is active" in first
    assert "Stop hook additional context: [arcguard]" in api.request_text(1)

    # The posture hook saw the raw prompt and started the arc; the stop hook decided.
    session = status(project, run.session_id)
    kinds = [entry["kind"] for entry in session["log"]]
    assert kinds == ["arc", "continue", "release"], session["log"]
    assert [entry["hook"] for entry in session["log"]] == ["posture", "stop", "stop"]
    assert session["arc"]["state"] == "complete"
    assert session["arc"]["lifetime"] == 1

    # doctor agrees the wiring works, with this Claude Code on PATH.
    doctor = arcguard(project, "doctor", "--project", str(project.path), env={"PATH": path})
    assert doctor.returncode == 0, doctor.stdout
    assert "ok    claude: Claude Code 2.1.328" in doctor.stdout

    # After uninstall, nothing of arcguard's runs and /autonomous is unknown again.
    removed = arcguard(project, "uninstall", "--scope", "project", "--project", str(project.path))
    assert removed.returncode == 0, removed.stderr
    with ScriptedAPI([text("ok")]) as api:
        again = run_claude(project, api, "/autonomous ship the importer")
    assert again.returncode == 0, again.describe()
    assert NOT_AVAILABLE in api.request_text(0)
    assert (
        again.session_id
        and not Path(project.arcguard_home, "sessions", f"{again.session_id}.json").exists()
    )


def test_the_repository_works_as_a_plugin(claude_project, run_claude):
    project = claude_project()
    bin_dir = str(Path(arcguard_argv()[0]).parent)
    if not (Path(bin_dir) / "arcguard").is_file():
        import pytest

        pytest.skip("the plugin's hooks call `arcguard` on PATH: no console script here")
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    # Claude Code names a plugin's commands /<plugin>:<command>.
    with ScriptedAPI([text("No response requested."), text("The arc is complete.")]) as api:
        run = run_claude(
            project,
            api,
            "/arcguard:autonomous ship the importer",
            extra_args=["--plugin-dir", str(REPO / "plugin")],
            env=env,
        )
    assert run.returncode == 0, run.describe()
    assert TEMPLATE_LINE in api.request_text(0)
    assert len(api.requests) == 2, run.describe()
    kinds = [entry["kind"] for entry in status(project, run.session_id)["log"]]
    assert kinds == ["arc", "continue", "release"]
