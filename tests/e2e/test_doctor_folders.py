"""Which settings files the real CLI reads depends on the folder it starts in; doctor agrees.

Started in the home folder, Claude Code finds `~/.claude/settings.json` both as the user's file
and as `<cwd>/.claude/settings.json`, yet runs each hook once: so doctor, run from there after
`arcguard install`, counts that file once and reports every event wired once. Started in a
subfolder of a project, it reads no `.claude/settings.json` of a folder above: doctor, which
looks at `<cwd>/.claude` only, finds nothing there either. The same handler in the user's and
the project's settings runs once, two different ones both run: so doctor reports the first as
a warning and only the second as a gap.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from scripted_api import ScriptedAPI
from scripted_api import text

from conftest import ClaudeProject
from conftest import add_handler
from conftest import arcguard_state
from conftest import hook_settings
from conftest import log_kinds
from conftest import payload_log


def arcguard(
    project: ClaudeProject, cwd: Path, *args: str, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arcguard", *args],
        capture_output=True,
        text=True,
        env={**project.base_env(), **env},
        cwd=cwd,
        timeout=120,
    )


def started_in(project: ClaudeProject, folder: Path) -> ClaudeProject:
    return ClaudeProject(
        root=project.root, home=project.home, path=folder, arcguard_home=project.arcguard_home
    )


def test_from_home_each_hook_fires_once_and_doctor_says_wired_once(
    claude_project, run_claude, claude_bin
):
    project = claude_project()
    at_home = started_in(project, project.home)
    path = {"PATH": f"{Path(claude_bin).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    installed = arcguard(at_home, project.home, "install", env=path)
    assert installed.returncode == 0, installed.stderr
    users = project.home / ".claude" / "settings.json"
    log = payload_log(project)
    settings = json.loads(users.read_text())
    for event in ("UserPromptSubmit", "Stop"):
        add_handler(settings, event, log.command())
    users.write_text(json.dumps(settings, indent=2))

    # A no-op stop mid-arc is sent back once; the model then says the arc is complete.
    script = [text("No response requested."), text("The arc is complete.")]
    with ScriptedAPI(script) as api:
        run = run_claude(at_home, api, "/autonomous tidy the notes")
    assert run.returncode == 0, run.describe()
    assert len(api.requests) == 2, run.describe()
    assert log.events() == ["UserPromptSubmit", "Stop", "Stop"]
    assert log_kinds(arcguard_state(project, run.session_id)) == ["arc", "continue", "release"]

    doctor = arcguard(at_home, project.home, "doctor", env=path)
    assert doctor.returncode == 0, doctor.stdout
    assert "ok    wiring: all 8 events wired once (user)" in doctor.stdout
    assert "ok    runs: 8 wired commands answer a test payload as hooks must" in doctor.stdout
    assert "gap" not in doctor.stdout and "skip" not in doctor.stdout


def test_from_a_subfolder_no_settings_file_above_is_read(claude_project, run_claude, claude_bin):
    project = claude_project()
    if shutil.which("git") is None:
        pytest.skip("git is not installed: the folder above would be no repository")
    subprocess.run(["git", "init", "-q", str(project.path)], check=True, capture_output=True)
    log = payload_log(project)
    project.write_settings(add_handler({}, "UserPromptSubmit", log.command()))
    sub = project.path / "web"
    sub.mkdir()
    with ScriptedAPI([text("Done.")]) as api:
        run = run_claude(started_in(project, sub), api, "hello")
    assert run.returncode == 0, run.describe()
    assert log.events() == []
    with ScriptedAPI([text("Done.")]) as api:
        run = run_claude(project, api, "hello")
    assert log.events() == ["UserPromptSubmit"]

    path = {"PATH": f"{Path(claude_bin).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    doctor = arcguard(project, sub, "doctor", "--json", env=path)
    checks = json.loads(doctor.stdout)["checks"]
    assert [c["detail"] for c in checks if c["name"] == "settings"] == [
        "no Claude Code settings file exists yet"
    ]


def user_and_project(project: ClaudeProject, same: bool) -> list[str]:
    """A counting hook on UserPromptSubmit in the user's and in the project's settings, the
    same command twice or two commands that differ by one flag; the events it saw."""
    log = payload_log(project)
    other = shlex.join([sys.executable, "-I", str(log.script), str(log.path)])
    users = project.home / ".claude" / "settings.json"
    users.parent.mkdir(parents=True, exist_ok=True)
    users.write_text(json.dumps(hook_settings({"UserPromptSubmit": log.command()})))
    project.write_settings(hook_settings({"UserPromptSubmit": log.command() if same else other}))
    return log.events


@pytest.mark.parametrize("same", [True, False], ids=["identical", "different"])
def test_an_identical_handler_in_two_files_runs_once_on_each_release(
    claude_project, run_release, same
):
    project = claude_project()
    events = user_and_project(project, same)
    with ScriptedAPI([text("Done.")]) as api:
        run = run_release(project, api, "hello")
    assert run.returncode == 0, run.describe()
    assert events() == ["UserPromptSubmit"] * (1 if same else 2)


@pytest.mark.parametrize("same", [True, False], ids=["identical", "different"])
def test_doctor_calls_only_different_entries_a_double_wiring(
    claude_project, run_claude, claude_bin, same
):
    project = claude_project()
    events = user_and_project(project, same)
    with ScriptedAPI([text("Done.")]) as api:
        run = run_claude(project, api, "hello")
    assert run.returncode == 0, run.describe()
    assert events() == ["UserPromptSubmit"] * (1 if same else 2)

    # arcguard wired the same two ways: by one install twice, or by two installs.
    from arcguard.claude_settings import merge_plan

    path = {"PATH": f"{Path(claude_bin).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    assert arcguard(project, project.path, "install", env=path).returncode == 0
    if same:
        again = arcguard(project, project.path, "install", "--scope", "project", env=path)
        assert again.returncode == 0, again.stderr
    else:
        settings = json.loads(project.settings_path.read_text())
        prefix = f"{shlex.quote(sys.executable)} -m arcguard"
        project.write_settings(merge_plan.plan_install(settings, prefix))
    doctor = arcguard(project, project.path, "doctor", env=path)
    if same:
        assert doctor.returncode == 0, doctor.stdout
        assert "warn  wiring: all 8 events are wired word for word in user, project" in (
            doctor.stdout
        )
    else:
        assert doctor.returncode == 1, doctor.stdout
        assert "gap   wiring: all 8 events are wired 2 times (user, project)" in doctor.stdout
        assert "hint: keep the user one: arcguard uninstall --scope project" in doctor.stdout
