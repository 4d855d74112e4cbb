"""doctor gives the same verdict whatever folder it is run from.

arcguard installed for the user (`~/.claude/settings.json`, an absolute program) is checked from
the home folder, `/`, a temporary folder, a git repository, the folder that holds the
virtualenv: each time every event is wired once and every command runs. A project that really
wires arcguard a second time is still a gap, with a hint that removes the right entries; a
command doctor will not run because it lies inside the project is a skip, not a gap.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from testing.cli import invoke

from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import settings_files as cc
from arcguard.claude_settings import slash_command as slash
from arcguard.doctor import probes
from arcguard.doctor import reading
from arcguard.doctor import wiring


pytestmark = pytest.mark.usefixtures("claude_on_path")

ANSWERS = "cat >/dev/null; echo '{}'"


def home() -> Path:
    return Path(os.environ["HOME"])


def program_at(directory: Path, body: str = ANSWERS) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    program = directory / "arcguard"
    program.write_text(f"#!/bin/sh\n{body}\n")
    program.chmod(0o755)
    return program


def write(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
    return path


def install_for_the_user(program: Path | str) -> Path:
    """What `arcguard install` leaves for the user: every event wired, /autonomous present."""
    command = cc.commands_dir("user", Path("/"), os.environ) / slash.COMMAND_NAME
    command.parent.mkdir(parents=True, exist_ok=True)
    command.write_text(slash.command_template())
    return write(home() / ".claude" / "settings.json", {"hooks": plan.desired_hooks(str(program))})


def wire_the_project(project: Path, program: Path | str, scope: str = "project") -> Path:
    name = "settings.local.json" if scope == "local" else "settings.json"
    return write(project / ".claude" / name, {"hooks": plan.desired_hooks(str(program))})


def doctor_from(folder: Path, monkeypatch: pytest.MonkeyPatch, *args: str):
    monkeypatch.chdir(folder)
    return invoke("doctor", *args)


def assert_one_clean_verdict(result) -> None:
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if not line.startswith(" ")]
    assert not [line for line in lines if line.startswith(("gap", "skip"))], result.output
    assert "ok    wiring: all 8 events wired once (user)" in lines
    assert "ok    runs: 8 wired commands answer a test payload as hooks must" in lines
    users = home() / ".claude" / "settings.json"
    assert sum(f"{users} parses" in line for line in lines) == 1


def git_repository(folder: Path) -> Path:
    """A git repository at `folder` (a bare `.git` folder where git is not installed: doctor
    looks for nothing else)."""
    folder.mkdir(parents=True, exist_ok=True)
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(folder)], check=True, capture_output=True)
    else:
        (folder / ".git").mkdir()
    return folder


# --- one verdict for the user's install, from anywhere --------------------------------------


def test_from_the_home_folder_the_users_file_is_counted_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # pipx puts the program in ~/.local/bin; from ~, ~/.claude/settings.json is also what
    # Claude Code would call the project's file, and it reads it once.
    install_for_the_user(program_at(home() / ".local" / "bin"))
    assert_one_clean_verdict(doctor_from(home(), monkeypatch))


def test_from_the_filesystem_root(monkeypatch: pytest.MonkeyPatch) -> None:
    install_for_the_user(program_at(home() / ".local" / "bin"))
    assert_one_clean_verdict(doctor_from(Path("/"), monkeypatch))


def test_from_a_temporary_folder_that_holds_the_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "scratch"
    install_for_the_user(program_at(scratch / "bin"))
    assert_one_clean_verdict(doctor_from(scratch, monkeypatch))


def test_from_the_folder_that_holds_the_virtualenv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = tmp_path / "tools"
    install_for_the_user(program_at(tools / ".venv" / "bin"))
    assert_one_clean_verdict(doctor_from(tools, monkeypatch))


def test_from_a_git_clone_whose_virtualenv_the_user_installed_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The user's own absolute program in the user's own settings: not the repository's words.
    clone = git_repository(tmp_path / "clone")
    install_for_the_user(program_at(clone / ".venv" / "bin"))
    assert_one_clean_verdict(doctor_from(clone, monkeypatch))
    assert_one_clean_verdict(doctor_from(clone, monkeypatch, "--project", str(clone)))


def test_json_of_a_clean_verdict_from_home(monkeypatch: pytest.MonkeyPatch) -> None:
    install_for_the_user(program_at(home() / ".local" / "bin"))
    result = doctor_from(home(), monkeypatch, "--json")
    document = json.loads(result.output)
    assert result.exit_code == 0 and document["ok"] is True
    assert {c["status"] for c in document["checks"]} <= {"ok", "warn"}


# --- a project that really wires arcguard a second time -------------------------------------


def test_a_project_that_wires_arcguard_again_is_a_gap_whose_hint_is_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The user's install and another one (a second virtualenv): Claude Code runs both.
    users = install_for_the_user(program_at(tmp_path / "opt" / "bin"))
    project = git_repository(tmp_path / "app")
    wire_the_project(project, program_at(tmp_path / "other-venv" / "bin"))
    result = doctor_from(project, monkeypatch)
    assert result.exit_code == 1
    assert (
        "gap   wiring: all 8 events are wired 2 times (user, project): every hook would run "
        "more than once\n      hint: keep the user one: arcguard uninstall --scope project\n"
    ) in result.output
    # Following the hint from the same folder leaves the user's wiring, wired once.
    before = users.read_text()
    assert invoke("uninstall", "--scope", "project").exit_code == 0
    assert users.read_text() == before
    assert_one_clean_verdict(doctor_from(project, monkeypatch))


def test_the_hint_names_the_project_doctor_was_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_for_the_user(program_at(tmp_path / "opt" / "bin"))
    project = tmp_path / "my app"
    wire_the_project(project, program_at(tmp_path / "other-venv" / "bin"), scope="local")
    result = doctor_from(tmp_path, monkeypatch, "--project", str(project))
    assert f"hint: keep the user one: arcguard uninstall --scope local --project '{project}'" in (
        result.output
    )


def test_the_same_entries_in_user_and_project_settings_are_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `arcguard install` and `arcguard install --scope project` with the same arcguard write
    # identical entries, which Claude Code runs once.
    program = program_at(tmp_path / "opt" / "bin")
    install_for_the_user(program)
    project = git_repository(tmp_path / "app")
    wire_the_project(project, program)
    result = doctor_from(project, monkeypatch)
    assert result.exit_code == 0, result.output
    assert "ok    wiring: all 8 events wired once (project, user)" in result.output
    assert (
        "warn  wiring: all 8 events are wired word for word in user, project: Claude Code runs "
        "identical entries once, but once they differ (a reinstall from elsewhere) every hook "
        "runs twice\n      hint: keep the user one: arcguard uninstall --scope project\n"
    ) in result.output
    assert "`hook limit-wait` runs in the background on StopFailure" in result.output


def test_plugin_plus_user_settings_says_to_keep_one_of_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    users = install_for_the_user(program_at(tmp_path / "opt" / "bin"))
    write(users, {**json.loads(users.read_text()), "enabledPlugins": {"arcguard@tools": True}})
    result = doctor_from(home(), monkeypatch)
    assert result.exit_code == 1
    assert (
        "hint: keep one: disable the arcguard plugin, or arcguard uninstall --scope user"
        in result.output
    )
    assert "(user, project" not in result.output


# --- what doctor will not run is a skip ----------------------------------------------------


def test_a_project_entry_inside_the_project_is_skipped_and_the_verdict_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "RAN"
    project = git_repository(tmp_path / "app")
    wire_the_project(project, program_at(project / "tools", f"touch {marker}"))
    (project / ".claude" / "commands").mkdir()
    (project / ".claude" / "commands" / slash.COMMAND_NAME).write_text(slash.command_template())
    result = doctor_from(project, monkeypatch)
    assert not marker.exists()
    assert result.exit_code == 0, result.output
    assert (
        f"skip  runs: `{project / 'tools' / 'arcguard'} hook posture|stop|pre-tool|post-tool|"
        "post-batch|session-start|stop-failure|limit-wait` (project): not run: its program is "
        "inside the project being checked"
    ) in result.output
    assert f"      hint: {wiring.SKIP_HINT}" in result.output
    document = json.loads(doctor_from(project, monkeypatch, "--json").output)
    assert document["ok"] is True
    assert [c["status"] for c in document["checks"] if c["name"] == "runs"] == ["skip"]


def test_from_a_subfolder_the_whole_repository_is_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Claude Code reads <cwd>/.claude; a program elsewhere in the same repository is still its
    # own code.
    marker = tmp_path / "RAN"
    repository = git_repository(tmp_path / "app")
    program = program_at(repository / "tools", f"touch {marker}")
    sub = repository / "web"
    wire_the_project(sub, program)
    [check] = probes.check_runs(reading.read_setup(sub, dict(os.environ)))
    assert not marker.exists()
    assert check.status == "skip" and "its program is inside the project" in check.detail


def test_a_users_bare_name_found_on_path_inside_the_project_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PATH can lead into the project (an activated virtualenv, a .envrc): what a bare name
    # finds there is the project's code even when the user's settings name it.
    marker = tmp_path / "RAN"
    project = git_repository(tmp_path / "app")
    bin_dir = program_at(project / "bin", f"touch {marker}").parent
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    install_for_the_user("arcguard")
    result = doctor_from(project, monkeypatch)
    assert not marker.exists()
    assert "skip  runs: `arcguard hook posture|" in result.output
    assert "(user): not run: its program is inside the project" in result.output
    # Outside any project the same entry is run.
    assert doctor_from(tmp_path, monkeypatch).exit_code == 0 and marker.exists()


def test_a_status_line_inside_the_project_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arcguard.doctor.statusline import check_statusline

    marker = tmp_path / "RAN"
    project = tmp_path / "app"
    program = program_at(project / "tools", f"touch {marker}")
    write(
        project / ".claude" / "settings.json",
        {"statusLine": {"type": "command", "command": f"{program} statusline"}},
    )
    [check] = check_statusline(reading.read_setup(project, dict(os.environ)))
    assert not marker.exists()
    assert check.status == "skip" and check.hint == wiring.SKIP_HINT


# --- what makes a folder a project, and each file once --------------------------------------


def test_a_project_is_a_claude_folder_or_a_repository_below_home(tmp_path: Path) -> None:
    environ = dict(os.environ)
    plain = tmp_path / "plain"
    plain.mkdir()
    assert reading.project_root(plain, environ, given=False) is None
    assert reading.project_root(plain, environ, given=True) == plain
    assert reading.project_root(home(), environ, given=False) is None
    assert reading.project_root(Path("/"), environ, given=False) is None
    configured = tmp_path / "configured"
    (configured / ".claude").mkdir(parents=True)
    assert reading.project_root(configured, environ, given=False) == configured
    repository = git_repository(tmp_path / "repo")
    (repository / "a" / "b").mkdir(parents=True)
    assert reading.project_root(repository / "a" / "b", environ, given=False) == repository
    assert reading.project_root(repository, environ, given=False) == repository


def test_a_home_folder_kept_in_git_does_not_make_every_folder_a_project(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Dotfiles: ~ is a repository; ~/notes is still no project, and ~ itself is none either.
    git_repository(home())
    notes = home() / "notes"
    notes.mkdir()
    environ = dict(os.environ)
    assert reading.project_root(notes, environ, given=False) is None
    assert reading.project_root(home(), environ, given=False) is None
    install_for_the_user(program_at(home() / ".local" / "bin"))
    assert_one_clean_verdict(doctor_from(notes, monkeypatch))
    assert_one_clean_verdict(doctor_from(home(), monkeypatch))


def test_each_settings_file_is_named_once_by_its_first_scope(tmp_path: Path) -> None:
    users = home() / ".claude" / "settings.json"
    assert cc.scope_files(home(), os.environ) == {
        "user": users,
        "local": home() / ".claude" / "settings.local.json",
    }
    linked = tmp_path / "dotfiles-project"
    (linked / ".claude").mkdir(parents=True)
    write(users, {})
    (linked / ".claude" / "settings.json").symlink_to(users)
    assert list(cc.scope_files(linked, os.environ)) == ["user", "local"]
    elsewhere = tmp_path / "app"
    assert list(cc.scope_files(elsewhere, os.environ)) == ["user", "project", "local"]


def test_from_home_each_check_names_the_users_file_once(monkeypatch: pytest.MonkeyPatch) -> None:
    users = install_for_the_user(program_at(home() / ".local" / "bin"))
    write(
        users,
        {**json.loads(users.read_text()), "statusLine": {"command": "arcguard statusline"}},
    )
    output = doctor_from(home(), monkeypatch).output
    assert output.count(f"{users} parses") == 1
    assert output.count("status line:") == 1
    assert output.count(f"/autonomous: {home() / '.claude' / 'commands'}") == 1


def test_two_entries_in_one_file_are_made_one_by_installing_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    users = install_for_the_user(program_at(tmp_path / "opt" / "bin"))
    settings = json.loads(users.read_text())
    settings["hooks"]["Stop"].append(plan.desired_group("Stop", str(tmp_path / "b" / "arcguard")))
    write(users, settings)
    result = doctor_from(tmp_path, monkeypatch)
    assert (
        "gap   wiring: Stop is wired 2 times (user, user): every hook would run more than once\n"
        "      hint: keep the user one: arcguard install --scope user\n"
    ) in result.output
    assert invoke("install").exit_code == 0
    assert doctor_from(tmp_path, monkeypatch).exit_code == 0
