"""doctor and what a project can steer: symlinked PATH entries, and the `env` block of a
project's settings."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import settings_files as cc
from arcguard.doctor import probes
from arcguard.doctor import reading
from arcguard.doctor.statusline import check_statusline


pytestmark = pytest.mark.usefixtures("claude_on_path")

REFUSED = "not run: its program is inside the project being checked"


def write_settings(project: Path, value: object, scope: str = "project") -> Path:
    path = cc.settings_path(scope, project, os.environ)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
    return path


def marker_program(directory: Path, marker: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    program = directory / "arcguard"
    program.write_text(f"#!/bin/sh\ntouch {marker}\n")
    program.chmod(0o755)
    return program


def tools_linked_out(project: Path, outside: Path, marker: Path) -> str:
    # PATH names $PROJECT/tools; the repository made `tools` a symlink to a folder elsewhere.
    marker_program(outside / "bin", marker)
    (project / "tools").symlink_to(outside / "bin")
    return str(project / "tools")


def entry_linked_in(project: Path, outside: Path, marker: Path) -> str:
    # PATH names a folder outside that is a symlink to a folder of the project.
    marker_program(project / "bin", marker)
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "link").symlink_to(project / "bin")
    return str(outside / "link")


def program_linked_out(project: Path, outside: Path, marker: Path) -> str:
    # The program in the project's folder is itself a symlink to a program elsewhere.
    real = marker_program(outside / "bin", marker)
    (project / "bin").mkdir()
    (project / "bin" / "arcguard").symlink_to(real)
    return str(project / "bin")


def project_through_a_link(project: Path, outside: Path, marker: Path) -> str:
    # The program is in the project, which doctor is given by way of a symlink.
    marker_program(project / "bin", marker)
    return str(project / "bin")


LAYOUTS = [tools_linked_out, entry_linked_in, program_linked_out, project_through_a_link]


def checked(project: Path, layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    marker = tmp_path / "PWNED"
    entry = layout(project, tmp_path / "outside", marker)
    monkeypatch.setenv("PATH", f"{entry}{os.pathsep}{os.environ['PATH']}")
    if layout is project_through_a_link:
        (tmp_path / "via").symlink_to(project)
        return tmp_path / "via"
    return project


@pytest.mark.parametrize("layout", LAYOUTS)
def test_item11_a_symlinked_path_entry_does_not_get_a_status_line_program_run(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout
) -> None:
    given = checked(project, layout, tmp_path, monkeypatch)
    write_settings(project, {"statusLine": {"type": "command", "command": "arcguard statusline"}})
    [check] = check_statusline(reading.read_setup(given, dict(os.environ)))
    assert not (tmp_path / "PWNED").exists()
    assert check.status == "skip" and REFUSED in check.detail


@pytest.mark.parametrize("layout", LAYOUTS)
def test_item11_a_symlinked_path_entry_does_not_get_a_hook_program_run(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout
) -> None:
    given = checked(project, layout, tmp_path, monkeypatch)
    write_settings(project, {"hooks": {"Stop": [plan.desired_group("Stop", "arcguard")]}})
    [check] = probes.check_runs(reading.read_setup(given, dict(os.environ)))
    assert not (tmp_path / "PWNED").exists()
    assert check.status == "skip" and REFUSED in check.detail


def test_item11_a_program_outside_the_project_still_runs(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "RAN"
    program = marker_program(tmp_path / "elsewhere", marker)
    (tmp_path / "link").symlink_to(program.parent)
    monkeypatch.setenv("PATH", f"{tmp_path / 'link'}{os.pathsep}{os.environ['PATH']}")
    write_settings(project, {"statusLine": {"type": "command", "command": "arcguard statusline"}})
    [check] = check_statusline(reading.read_setup(project, dict(os.environ)))
    assert marker.exists() and check.status == "ok"


# --- item 12: doctor names what a project's settings `env` sets for arcguard ----------------


def test_item12_doctor_names_each_arcguard_variable_a_project_or_local_file_sets(
    project: Path,
) -> None:
    from testing.cli import invoke

    from arcguard.doctor.trust import check_project_env

    shared = write_settings(
        project,
        {"env": {"ARCGUARD_NOTIFY_COMMAND": '["sh", "-c", "id"]', "ARCGUARD_STOP_POLICY": "noop"}},
    )
    local = write_settings(
        project,
        {"env": {"ARCGUARD_CONFIG": "/tmp/theirs.toml", "XDG_CONFIG_HOME": "/tmp", "LANG": "C"}},
        scope="local",
    )
    found = check_project_env(reading.read_setup(project, dict(os.environ)))
    named = {(c.detail.split(" is set by ")[0], c.detail.split(" is set by ")[1].split(" (")[0])
             for c in found}  # fmt: skip
    assert named == {
        ("ARCGUARD_NOTIFY_COMMAND", str(shared)),
        ("ARCGUARD_STOP_POLICY", str(shared)),
        ("ARCGUARD_CONFIG", str(local)),
        ("XDG_CONFIG_HOME", str(local)),
    }
    assert all(c.status == "warn" for c in found)
    detail = {c.detail.split(" ")[0]: c.detail for c in found}
    assert "a program of its choosing runs" in detail["ARCGUARD_NOTIFY_COMMAND"]
    assert "overrides stop_policy" in detail["ARCGUARD_STOP_POLICY"]
    assert "config file of its choosing" in detail["ARCGUARD_CONFIG"]
    output = invoke("doctor", "--project", str(project)).output
    assert f"ARCGUARD_NOTIFY_COMMAND is set by {shared} (env)" in output


def test_item12_the_users_own_env_and_a_project_without_one_are_not_named(
    project: Path,
) -> None:
    from arcguard.doctor.trust import check_project_env

    write_settings(project, {"env": {"ARCGUARD_STOP_POLICY": "strict"}}, scope="user")
    write_settings(project, {"env": {"LANG": "C"}})
    assert check_project_env(reading.read_setup(project, dict(os.environ))) == []
