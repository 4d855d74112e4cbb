"""Which entry forms each release of the support window runs, and that the short entries
`arcguard install` writes for a release fire in it: the exec form (`command` a program,
`args` its arguments, no shell) from `releases.EXEC_FORM_SINCE`, one shell line before; that
they refuse a launcher others can write; and that the completion command the model is given
runs the installed arcguard from a project holding a package of that name."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use

from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import releases
from arcguard.core.words import messages
from arcguard.hooks.runner import own_command
from arcguard.storage import paths
from conftest import ClaudeRelease
from conftest import arcguard_state
from conftest import install_arcguard
from conftest import install_autonomous_command


MARK = "import sys,pathlib;pathlib.Path(sys.argv[1]).write_text(repr(sys.argv[2:]))"


def test_the_exec_form_runs_from_the_pinned_release_on(
    claude_project: Any, run_release: Any, claude_release: ClaudeRelease
) -> None:
    project = claude_project()
    mark = project.root / "mark.txt"
    handler = {
        "type": "command",
        "command": sys.executable,
        "args": ["-I", "-S", "-c", MARK, str(mark), "a b", "$HOME"],
    }
    project.write_settings({"hooks": {"UserPromptSubmit": [{"hooks": [handler]}]}})
    with ScriptedAPI([text("Done.")]) as api:
        run = run_release(project, api, "hello")
    assert run.result is not None, run.describe()
    runs = releases.runs_exec_form(releases.parse(claude_release.version))
    assert mark.exists() is runs
    if runs:
        assert mark.read_text() == repr(["a b", "$HOME"])  # verbatim: no shell expanded it


def install(project: Any, claude_release: ClaudeRelease) -> None:
    """`arcguard install --scope project` for `claude_release`, as a user runs it."""
    install_arcguard(project, "--claude-version", claude_release.version)


def test_installed_short_entries_fire(
    claude_project: Any, run_release: Any, claude_release: ClaudeRelease
) -> None:
    project = claude_project()
    install_autonomous_command(project)
    install(project, claude_release)
    settings = json.loads((project.path / ".claude" / "settings.json").read_text())
    entries = plan.our_entries(settings)
    exec_form = releases.runs_exec_form(releases.parse(claude_release.version))
    assert entries and all(("args" in h) is exec_form for _, h in entries)
    assert all(Path(plan.code_location(h) or "").is_file() for _, h in entries)
    with ScriptedAPI([text("Working on it."), text("Done.")]) as api:
        run = run_release(project, api, "/autonomous finish the task")
    assert run.result is not None, run.describe()
    state = arcguard_state(project, run.session_id)
    assert state, "the installed hooks wrote no session state"

    # A launcher others can write may hold anyone's code: the entries refuse it, and the
    # session runs on with arcguard off (no state), never blocked.
    launcher = Path(plan.code_location(entries[0][1]) or "")
    launcher.chmod(0o660)
    with ScriptedAPI([text("Working on it."), text("Done.")]) as api:
        run = run_release(project, api, "/autonomous finish the task")
    assert run.result is not None and run.returncode == 0, run.describe()
    assert run.session_id
    assert not Path(paths.session_path(str(project.arcguard_home), run.session_id)).exists()


def test_the_completion_command_runs_the_installed_arcguard_in_a_project_with_its_own(
    claude_project: Any, run_release: Any, claude_release: ClaudeRelease
) -> None:
    # The project holds a package named arcguard; the model runs the completion command it
    # was given from there, and the installed arcguard completes the arc.
    project = claude_project()
    install_autonomous_command(project)
    install(project, claude_release)
    trap = project.root / "trapped"
    (project.path / "arcguard").mkdir()
    (project.path / "arcguard" / "__init__.py").write_text(
        f"open({str(trap)!r}, 'w').close()\nraise SystemExit(9)\n"
    )
    session_id = str(uuid.uuid4())
    hint = messages.complete_hint(own_command("-c", sys.executable), session_id)
    script = [tool_use("Bash", {"command": hint.strip("`")}), text("Done.")]
    with ScriptedAPI(script) as api:
        run = run_release(
            project, api, "/autonomous finish the task", extra_args=["--session-id", session_id]
        )
    assert run.result is not None and run.session_id == session_id, run.describe()
    assert hint in api.request_text(0)  # the command the model was given, word for word
    assert "inactive" in api.request_text(1) and not trap.exists()
    assert arcguard_state(project, session_id)["arc"]["active"] is False
