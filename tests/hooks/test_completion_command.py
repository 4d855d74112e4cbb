"""The completion command shown to the model must survive a shell, whatever the install path."""

from __future__ import annotations

import os
import shlex

import pytest

from arcguard.core.words import messages
from arcguard.hooks.runner import own_command


AWKWARD_DIR = "/opt/my tools/it's here"


@pytest.mark.parametrize(
    "argv",
    [
        ["arcguard"],
        [f"{AWKWARD_DIR}/bin/python3", "-m", "arcguard"],
        ["/usr/bin/python3", "-m", "arcguard"],
        ["a b", "", "'", '"', "$HOME", "`id`", "x;y", "tab\there", "ünï", "safe_@%+=:,./-"],
    ],
)
def test_shell_join_quotes_like_shlex(argv):
    assert messages.shell_join(argv) == shlex.join(argv)
    assert shlex.split(messages.shell_join(argv)) == argv


def _hint_argv(command: str, session_id: str) -> list[str]:
    return shlex.split(messages.complete_hint(command, session_id).strip("`"))


def test_completion_command_with_a_space_and_a_quote_in_the_interpreter_path(monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin")
    python = f"{AWKWARD_DIR}/bin/python3"
    command = own_command("-c", python, f"{AWKWARD_DIR}/lib/python3.11/site-packages")
    assert _hint_argv(command, "sid-1") == [
        *[python, "-I", "-m", "arcguard"],
        *["arc", "complete", "sid-1"],
    ]


@pytest.mark.parametrize(
    ("python", "location", "flag"),
    [
        # A virtualenv, pipx or uv tool environment: isolated (-I) finds the package.
        (
            "/h/.local/share/pipx/venvs/arcguard/bin/python",
            "/h/.local/share/pipx/venvs/arcguard/lib/python3.11/site-packages",
            "-I",
        ),
        ("/usr/bin/python3", "/usr/lib/python3/dist-packages", "-I"),
        # The user site or an editable checkout: -I could lose it, -P keeps the cwd out.
        ("/usr/bin/python3", "/h/.local/lib/python3.11/site-packages", "-P"),
        ("/h/src/arcguard/.venv/bin/python", "/h/src/arcguard/src", "-P"),
        ("/python3", "/lib/python3.11/site-packages", "-P"),
    ],
)
def test_the_interpreter_command_never_imports_from_the_working_folder(
    python: str, location: str, flag: str
) -> None:
    assert shlex.split(own_command("-c", python, location)) == [python, flag, "-m", "arcguard"]


def test_the_command_given_runs_the_installed_arcguard_from_a_project_that_has_its_own(
    tmp_path, monkeypatch
):
    # Run from a project holding a package named arcguard, the command the model is given
    # (as the fast entries and the resident server give it) imports the installed one.
    import subprocess
    import sys

    project = tmp_path / "project"
    (project / "arcguard").mkdir(parents=True)
    trap = tmp_path / "trapped"
    (project / "arcguard" / "__init__.py").write_text(
        f"open({str(trap)!r}, 'w').close()\nraise SystemExit(9)\n"
    )
    (project / "arcguard" / "__main__.py").write_text("raise SystemExit(9)\n")
    hint = messages.complete_hint(own_command("-c", sys.executable), "s-trap")
    env = {**os.environ, "ARCGUARD_HOME": str(tmp_path / "state")}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        shlex.split(hint.strip("`")),
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "inactive\n" and not trap.exists()
    # As the model was told before: `<python> -m arcguard` ran the project's package.
    before = subprocess.run(
        [sys.executable, "-m", "arcguard", "arc", "complete", "s-trap"],
        cwd=project,
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert before.returncode == 9 and trap.exists()


def test_completion_command_with_a_space_and_a_quote_in_the_launcher_path(monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin")
    launcher = f"{AWKWARD_DIR}/bin/arcguard"
    command = own_command(launcher, "/usr/bin/python3")
    assert _hint_argv(command, "s") == [launcher, "arc", "complete", "s"]


def test_completion_command_quotes_an_awkward_session_id():
    sid = "it's a session"
    assert _hint_argv("arcguard", sid) == ["arcguard", "arc", "complete", sid]


def test_the_posture_carries_the_quoted_command():
    command = messages.shell_join([f"{AWKWARD_DIR}/python3", "-m", "arcguard"])
    shown = messages.posture_line("demo", "", command, "sid").split("`")[1]
    assert shlex.split(shown)[:3] == [f"{AWKWARD_DIR}/python3", "-m", "arcguard"]


def test_a_block_reason_names_the_command_without_spelling_it_out():
    # Claude Code prints a Stop hook's reason on the screen: no interpreter path, no id there.
    for text in (messages.stop_block_reason("demo", ""), messages.resume_block_reason("demo")):
        assert "`arc complete` command from arcguard's note" in text
        assert "/" not in text.replace("/autonomous", "") and "sid" not in text
