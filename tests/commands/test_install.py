"""`arcguard install` / `uninstall` against settings files on disk, in every scope."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import Result
from testing.cli import invoke

from arcguard.claude_settings import launch_forms
from arcguard.claude_settings import settings_files as cc
from arcguard.claude_settings import slash_command as slash
from arcguard.hooks import BACKGROUND
from arcguard.hooks import EVENTS
from arcguard.storage import paths


arcguard = invoke


# Install and doctor ask the `claude` on PATH for its release.
pytestmark = pytest.mark.usefixtures("claude_on_path")


def settings_file(project: Path, scope: str = "project") -> Path:
    return cc.settings_path(scope, project, os.environ)


def write_json(path: Path, value: object) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(value, indent=2) + "\n"
    path.write_text(text)
    return text


def install(project: Path, *more: str, scope: str = "project") -> Result:
    return arcguard("install", "--scope", scope, "--project", str(project), *more)


def uninstall(project: Path, *more: str, scope: str = "project") -> Result:
    return arcguard("uninstall", "--scope", scope, "--project", str(project), *more)


def command_line(handler: dict[str, object]) -> str:
    """The handler's command as one line: an exec-form entry's program and arguments joined."""
    args = handler.get("args")
    return (
        shlex.join([str(handler["command"]), *map(str, args)])
        if isinstance(args, list)
        else str(handler["command"])
    )


def commands(path: Path) -> dict[str, list[str]]:
    """event -> every command wired for it."""
    hooks = json.loads(path.read_text()).get("hooks", {})
    return {
        event: [command_line(h) for g in groups for h in g["hooks"]]
        for event, groups in hooks.items()
    }


def test_install_into_a_missing_file(project: Path) -> None:
    result = install(project)
    assert result.exit_code == 0, result.output
    path = settings_file(project)
    assert "installed arcguard hooks in" in result.output
    wired = commands(path)
    assert list(wired) == list(EVENTS)
    for event, hook in EVENTS.items():
        [command, *background] = wired[event]
        assert command.endswith(f" hook {hook}")
        assert [c.rsplit(" ", 1)[1] for c in background] == [
            name for name, wired_to in BACKGROUND.items() if wired_to == event
        ]
        assert os.path.isabs(shlex.split(command)[0])
    assert not path.with_name(path.name + cc.BACKUP_SUFFIX).exists()


def test_install_into_an_empty_file(project: Path) -> None:
    path = settings_file(project)
    path.parent.mkdir(parents=True)
    path.write_text("")
    assert install(project).exit_code == 0
    assert list(commands(path)) == list(EVENTS)


def test_installed_commands_run_as_hooks(project: Path, tmp_path: Path) -> None:
    install(project)
    payload = json.dumps(
        {
            "session_id": "s-install",
            "hook_event_name": "SessionStart",
            "source": "startup",
            "cwd": str(project),
        }
    )
    for command in {c for cs in commands(settings_file(project)).values() for c in cs}:
        done = subprocess.run(
            command,
            shell=True,
            input=payload,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )
        assert done.returncode == 0, (command, done.stderr)


def test_install_keeps_other_hooks_and_keys(project: Path) -> None:
    original = {
        "permissions": {"allow": ["Bash(ls)"]},
        "hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "./notify.sh"}]}],
            "Notification": [{"hooks": [{"type": "command", "command": "bell"}]}],
        },
        "model": "opus",
    }
    path = settings_file(project)
    write_json(path, original)
    install(project)
    after = json.loads(path.read_text())
    assert list(after) == ["permissions", "hooks", "model"]
    assert after["permissions"] == original["permissions"]
    assert commands(path)["Stop"][0] == "./notify.sh"
    assert commands(path)["Stop"][1].endswith(" hook stop")
    assert commands(path)["Notification"] == ["bell"]


def test_second_install_changes_nothing(project: Path) -> None:
    install(project)
    path = settings_file(project)
    before = path.read_bytes()
    stamp = path.stat().st_mtime_ns
    result = install(project)
    assert result.exit_code == 0
    assert "arcguard hooks already installed" in result.output
    assert "/autonomous command already installed" in result.output
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == stamp
    assert not path.with_name(path.name + cc.BACKUP_SUFFIX).exists()


def test_install_replaces_an_entry_pointing_to_a_missing_path(project: Path) -> None:
    path = settings_file(project)
    old = "/no/longer/there/venv/bin/arcguard hook stop"
    write_json(path, {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": old}]}]}})
    install(project)
    [command] = commands(path)["Stop"]
    assert command != old
    assert os.path.exists(shlex.split(command)[0])


def test_install_backs_up_the_previous_file_and_keeps_its_mode(project: Path) -> None:
    path = settings_file(project)
    text = write_json(path, {"model": "opus"})
    path.chmod(0o640)
    result = install(project)
    backup = path.with_name(path.name + cc.BACKUP_SUFFIX)
    assert f"previous version saved as {backup}" in result.output
    assert backup.read_text() == text
    assert path.stat().st_mode & 0o777 == 0o640


def test_install_keeps_the_file_indent(project: Path) -> None:
    path = settings_file(project)
    path.parent.mkdir(parents=True)
    path.write_text('{\n    "model": "opus"\n}\n')
    install(project)
    assert path.read_text().startswith('{\n    "model": "opus",\n    "hooks": {\n')


@pytest.mark.parametrize("content", ['{ "hooks": ', "[]", '{"hooks": []}'])
def test_install_refuses_a_file_it_cannot_use(project: Path, content: str) -> None:
    path = settings_file(project)
    path.parent.mkdir(parents=True)
    path.write_text(content)
    result = arcguard("install", "--scope", "project", "--project", str(project))
    assert result.exit_code == 1
    assert "nothing was written" in result.output
    assert path.read_text() == content
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


@pytest.mark.parametrize("scope", cc.SCOPES)
def test_every_scope_writes_its_own_file(project: Path, scope: str) -> None:
    result = install(project, scope=scope)
    assert result.exit_code == 0
    home = Path.home()
    expected = {
        "user": home / ".claude" / "settings.json",
        "project": project / ".claude" / "settings.json",
        "local": project / ".claude" / "settings.local.json",
    }[scope]
    written = list(expected.parent.glob("settings*.json"))
    assert written == [expected]
    assert list(commands(expected)) == list(EVENTS)
    command_dir = (
        home / ".claude" / "commands" if scope == "user" else (project / ".claude" / "commands")
    )
    assert (command_dir / "autonomous.md").read_text() == slash.command_template()
    assert uninstall(project, scope=scope).exit_code == 0
    assert not expected.exists()  # it held only arcguard's hooks
    assert not command_dir.exists()


def test_user_scope_follows_claude_config_dir(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    install(project, scope="user")
    assert list(commands(tmp_path / "cfg" / "settings.json")) == list(EVENTS)
    assert (tmp_path / "cfg" / "commands" / "autonomous.md").exists()


def test_dry_run_prints_the_diff_and_writes_nothing(project: Path) -> None:
    path = settings_file(project)
    text = write_json(path, {"model": "opus"})
    result = install(project, "--dry-run")
    assert result.exit_code == 0
    assert f"--- {path}" in result.output and f"+++ {path}" in result.output
    assert '-  "model": "opus"' in result.output
    assert '+  "hooks": {' in result.output
    assert '"stop"' in result.output
    assert "would install the /autonomous command" in result.output
    assert path.read_text() == text
    assert not os.path.exists(os.path.join(paths.state_dir(os.environ), launch_forms.LAUNCHER_NAME))
    assert not (project / ".claude" / "commands").exists()


def test_uninstall_dry_run_prints_the_diff(project: Path) -> None:
    install(project)
    path = settings_file(project)
    before = path.read_text()
    result = uninstall(project, "--dry-run")
    assert '-  "hooks": {' in result.output
    assert "would remove the /autonomous command" in result.output
    assert path.read_text() == before


def test_round_trip_gives_back_the_original_bytes(project: Path) -> None:
    path = settings_file(project)
    text = write_json(
        path,
        {
            "env": {"X": "1"},
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash",
                        "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}],
                    }
                ]
            },
            "theme": "dark",
        },
    )
    install(project)
    assert path.read_text() != text
    result = uninstall(project)
    assert result.exit_code == 0
    assert "removed arcguard hooks from" in result.output
    assert path.read_text() == text


@pytest.mark.parametrize("scope", ["project", "local"])
def test_install_then_uninstall_from_nothing_leaves_nothing(project: Path, scope: str) -> None:
    assert install(project, scope=scope).exit_code == 0
    assert install(project, "--claude-version", "2.1.100", scope=scope).exit_code == 0  # again
    result = uninstall(project, scope=scope)
    assert result.exit_code == 0, result.output
    assert "it held only arcguard's hooks" in result.output
    # No `{}` file, no backup, no empty commands/ or .claude/ folder.
    assert list(project.iterdir()) == []


def test_uninstall_from_user_scope_leaves_no_file_and_no_commands_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "claude-config"
    config.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    assert arcguard("install").exit_code == 0
    assert arcguard("uninstall").exit_code == 0
    assert list(config.iterdir()) == []
    assert config.is_dir()  # the user's own folder stays


def test_uninstall_keeps_the_switch_arcguard_off_wrote(project: Path) -> None:
    # `arcguard off` is the user's choice, and another project's entries may still run
    # arcguard: switching it back on there would be a surprise. Full removal deletes it.
    switch = Path(paths.switch_path(os.environ["ARCGUARD_HOME"]))
    assert install(project).exit_code == 0
    assert invoke("off").exit_code == 0
    assert uninstall(project).exit_code == 0
    assert json.loads(switch.read_text())["every"] is True


def test_a_settings_file_that_was_an_empty_object_is_given_back(project: Path) -> None:
    path = settings_file(project)
    text = write_json(path, {})
    install(project)
    uninstall(project)
    assert path.read_text() == text


def test_a_symlinked_settings_file_left_empty_is_kept(project: Path, tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "settings.json"
    target.parent.mkdir()
    path = settings_file(project)
    path.parent.mkdir(parents=True)
    path.symlink_to(target)
    install(project)
    uninstall(project)
    assert path.is_symlink() and json.loads(target.read_text()) == {}


def test_a_settings_file_changed_while_being_removed_is_put_back(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arcguard.commands import uninstall as command

    install(project)
    path = settings_file(project)
    real_rename = os.rename

    def rename_then_change(src: object, dst: object) -> None:
        real_rename(src, dst)  # type: ignore[arg-type]
        Path(str(dst)).write_text('{"theme": "dark"}\n')  # Claude Code wrote meanwhile

    monkeypatch.setattr(os, "rename", rename_then_change)
    assert not command._unlink_if_unchanged(path, path.read_text())
    assert path.read_text() == '{"theme": "dark"}\n'
    assert sorted(p.name for p in path.parent.iterdir()) == ["commands", "settings.json"]


def test_uninstall_removes_only_ours_and_the_events_it_empties(project: Path) -> None:
    path = settings_file(project)
    write_json(path, {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bell"}]}]}})
    install(project)
    uninstall(project)
    assert commands(path) == {"Stop": ["bell"]}


def test_uninstall_without_a_file_or_entries(project: Path) -> None:
    result = uninstall(project)
    assert result.exit_code == 0
    assert "no arcguard hooks" in result.output
    path = settings_file(project)
    write_json(path, {"model": "opus"})
    assert "no arcguard hooks in" in uninstall(project).output
    assert not path.with_name(path.name + cc.BACKUP_SUFFIX).exists()


def test_uninstall_refuses_invalid_json(project: Path) -> None:
    path = settings_file(project)
    path.parent.mkdir(parents=True)
    path.write_text("{oops")
    result = uninstall(project)
    assert result.exit_code == 1
    assert path.read_text() == "{oops"


def test_a_foreign_autonomous_command_is_never_touched(project: Path) -> None:
    command = project / ".claude" / "commands" / "autonomous.md"
    command.parent.mkdir(parents=True)
    command.write_text("my own autonomous mode: $ARGUMENTS\n")
    assert "left as it is (not arcguard's)" in install(project).output
    assert "kept (not arcguard's)" in uninstall(project).output
    assert command.read_text() == "my own autonomous mode: $ARGUMENTS\n"


def test_an_edited_autonomous_command_is_kept(project: Path) -> None:
    install(project)
    command = project / ".claude" / "commands" / "autonomous.md"
    command.write_text(command.read_text() + "Also run the linter.\n")
    assert "kept (edited by hand)" in uninstall(project).output
    assert command.exists()


def test_an_older_template_of_ours_is_upgraded(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hashlib

    older = "---\ndescription: older (arcguard)\n---\n$ARGUMENTS\n"
    digest = hashlib.sha256(older.encode()).hexdigest()
    monkeypatch.setattr(slash, "PRIOR_COMMAND_DIGESTS", (digest,))
    command = project / ".claude" / "commands" / "autonomous.md"
    command.parent.mkdir(parents=True)
    command.write_text(older)
    assert "installed the /autonomous command" in install(project).output
    assert command.read_text() == slash.command_template()
    assert [p.name for p in command.parent.iterdir()] == ["autonomous.md"]


def test_hook_help_lists_every_hook() -> None:
    result = arcguard("hook", "--help")
    assert result.exit_code == 0
    for name in (
        "posture",
        "stop",
        "pre-tool",
        "post-tool",
        "post-batch",
        "session-start",
        "stop-failure",
    ):
        assert name in result.output
    assert "PostToolUseFailure" in result.output


@pytest.mark.parametrize("verb", ["install", "uninstall", "doctor", "status", "hook"])
def test_help_has_examples(verb: str) -> None:
    result = arcguard(verb, "--help")
    assert result.exit_code == 0
    assert "Examples:" in result.output


def test_install_keeps_a_command_that_only_mentions_arcguard_and_says_so(project: Path) -> None:
    # It may do more than start arcguard; the user decides, so it is neither replaced nor
    # removed, and install names it.
    mine = {"type": "command", "command": "ARCGUARD_HOOK_BUDGET_MS=500 arcguard hook stop"}
    path = project / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [mine]}]}}))
    result = invoke("install", "--scope", "project", "--project", str(project))
    assert result.exit_code == 0
    assert "left as it is: Stop command" in result.output
    assert "sets environment variables" in result.output
    stop = json.loads(path.read_text())["hooks"]["Stop"]
    assert stop[0] == {"hooks": [mine]} and len(stop) == 2
    assert invoke("uninstall", "--scope", "project", "--project", str(project)).exit_code == 0
    assert json.loads(path.read_text()) == {"hooks": {"Stop": [{"hooks": [mine]}]}}


# --- the installed command as a process -----------------------------------------------------

PRE_TOOL = json.dumps(
    {
        "session_id": "s-launch",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_launch",
    }
)


def installed_pre_tool(project: Path) -> list[str]:
    install(project)
    [command] = commands(settings_file(project))["PreToolUse"]
    return shlex.split(command)


def run_words(words: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        words,
        input=PRE_TOOL,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={**os.environ, **env},
    )


def session_written() -> bool:
    return Path(paths.session_path(os.environ["ARCGUARD_HOME"], "s-launch")).is_file()


def test_the_installed_hook_starts_without_the_site_machinery(
    project: Path, tmp_path: Path
) -> None:
    words = installed_pre_tool(project)
    done = run_words([words[0], "-X", "importtime", *words[1:]], tmp_path)
    assert done.returncode == 0, done.stderr
    loaded = {line.split("|")[-1].strip() for line in done.stderr.splitlines()}
    assert "arcguard.hooks.pre_tool" in loaded
    assert "site" not in loaded
    assert session_written()


def test_the_installed_hook_ignores_a_pythonpath_that_shadows_arcguard(
    project: Path, tmp_path: Path
) -> None:
    shadow = tmp_path / "shadow" / "arcguard"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise SystemExit(2)\n")
    done = run_words(installed_pre_tool(project), tmp_path, PYTHONPATH=str(shadow.parent))
    assert done.returncode == 0, done.stderr
    assert session_written()


def test_the_hook_command_still_finds_arcguard_when_its_folder_is_gone(tmp_path: Path) -> None:
    # An environment rebuilt for another Python moves site-packages: the command falls back
    # to the interpreter's own packages rather than failing every hook.
    prefix = launch_forms.own_prefix(sys.executable, str(tmp_path / "gone"))
    done = run_words(shlex.split(launch_forms.hook_command(prefix, "pre-tool")), tmp_path)
    assert done.returncode == 0, done.stderr
    assert session_written()


def test_the_installed_command_also_runs_the_verbs(project: Path, tmp_path: Path) -> None:
    words = installed_pre_tool(project)[:-2]
    done = subprocess.run(
        [*words, "--version"], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "arcguard, version" in done.stdout
