"""The completion command shown to the model must survive a shell, whatever the install path."""

from __future__ import annotations

import shlex

import pytest

from arcguard.core import messages
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
    command = own_command("-c", python)
    assert _hint_argv(command, "sid-1") == [python, "-m", "arcguard", "arc", "complete", "sid-1"]


def test_completion_command_with_a_space_and_a_quote_in_the_launcher_path(monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin")
    launcher = f"{AWKWARD_DIR}/bin/arcguard"
    command = own_command(launcher, "/usr/bin/python3")
    assert _hint_argv(command, "s") == [launcher, "arc", "complete", "s"]


def test_completion_command_quotes_an_awkward_session_id():
    sid = "it's a session"
    assert _hint_argv("arcguard", sid) == ["arcguard", "arc", "complete", sid]


def test_block_reason_and_posture_carry_the_quoted_command():
    command = messages.shell_join([f"{AWKWARD_DIR}/python3", "-m", "arcguard"])
    for text in (
        messages.stop_block_reason("demo", "", command, "sid"),
        messages.posture_line("demo", "", command, "sid"),
    ):
        shown = text.split("`")[1]
        assert shlex.split(shown)[:3] == [f"{AWKWARD_DIR}/python3", "-m", "arcguard"]
