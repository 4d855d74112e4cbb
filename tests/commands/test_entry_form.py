"""The entries install writes are short and readable: exec form where the release runs it,
one shell line otherwise, both starting a launcher file in the state directory that keeps
the one-liner's isolated start; old one-liner entries are still arcguard's."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from testing.cli import invoke

from arcguard import hook_image
from arcguard.claude_settings import launch_forms
from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import releases
from arcguard.claude_settings import settings_files as cc
from arcguard.hooks import EVENTS
from arcguard.storage import paths


# A user's install: a pipx interpreter and the default state directory.
PYTHON = "/home/alice/.local/share/pipx/venvs/arcguard/bin/python"
LAUNCHER = "/home/alice/.local/state/arcguard/hook.py"
# What differs between entries (interpreter, launcher file, hook) stays within MOST characters;
# the fixed code that checks and runs the launcher, the same in every entry, within STUB_MOST.
MOST = 130
STUB_MOST = 250


def handlers(settings: dict[str, Any]) -> list[dict[str, Any]]:
    return [h for groups in settings["hooks"].values() for g in groups for h in g["hooks"]]


def line(handler: dict[str, Any]) -> str:
    if "args" not in handler:
        return str(handler["command"])
    return shlex.join([handler["command"], *handler["args"]])


def besides_the_stub(handler: dict[str, Any]) -> str:
    return line(handler).replace(shlex.quote(launch_forms.LAUNCH_STUB), "")


def with_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    bin_dir = tmp_path / f"bin-{version}"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text(f"#!/bin/sh\necho '{version} (Claude Code)'\n")
    (bin_dir / "claude").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))


def install(project: Path, scope: str) -> dict[str, Any]:
    result = invoke("install", "--scope", scope, "--project", str(project))
    assert result.exit_code == 0, result.output
    loaded: dict[str, Any] = json.loads(cc.settings_path(scope, project, os.environ).read_text())
    return loaded


@pytest.mark.parametrize("exec_form", [True, False])
def test_every_entry_names_arcguard_and_its_hook_within_the_bound(exec_form: bool) -> None:
    words = launch_forms.short_prefix(PYTHON, LAUNCHER)
    assert words is not None
    prefix = words if exec_form else shlex.join(words)
    settings = plan.plan_install({}, prefix)
    assert len(launch_forms.LAUNCH_STUB) <= STUB_MOST
    for handler in handlers(settings):
        assert ("args" in handler) is exec_form
        assert len(besides_the_stub(handler)) <= MOST, line(handler)
        assert "arcguard" in line(handler) and f"hook {plan.hook_name(handler)}" in line(handler)
        assert plan.is_ours(handler)


@pytest.mark.parametrize("scope", ["user", "project", "local"])
def test_install_writes_the_exec_form_on_a_release_that_runs_it(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scope: str
) -> None:
    with_claude(tmp_path, monkeypatch, "2.1.332")
    for handler in handlers(install(project, scope)):
        assert handler["command"] == os.path.abspath(sys.executable)
        assert handler["args"][:4] == ["-I", "-S", "-c", launch_forms.LAUNCH_STUB]
        assert handler["args"][4] == os.path.join(paths.state_dir(os.environ), "hook.py")
        assert len(besides_the_stub(handler)) <= MOST + len(handler["args"][4]) - len(LAUNCHER)


def test_install_writes_one_short_shell_line_on_an_older_release(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_claude(tmp_path, monkeypatch, "2.1.78")
    assert not releases.runs_exec_form((2, 1, 78))
    for handler in handlers(install(project, "project")):
        assert "args" not in handler
        words = shlex.split(handler["command"])
        assert words[1:5] == ["-I", "-S", "-c", launch_forms.LAUNCH_STUB] and plan.is_ours(handler)


def test_the_launcher_is_private_and_runs_the_hook(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_claude(tmp_path, monkeypatch, "2.1.332")
    [handler, *_] = handlers(install(project, "project"))
    launcher = Path(handler["args"][4])
    assert launcher.stat().st_mode & 0o777 == 0o600
    assert launcher.parent.stat().st_mode & 0o777 == 0o700
    done = run(handler, tmp_path, b"{}")
    assert done.returncode == 0 and b"Traceback" not in done.stderr


def run(handler: dict[str, Any], cwd: Path, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [handler["command"], *handler["args"]],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )


def test_a_missing_launcher_or_package_exits_0(tmp_path: Path) -> None:
    words = launch_forms.short_prefix(sys.executable, str(tmp_path / "gone" / "hook.py"))
    assert words is not None
    handler: dict[str, Any] = {"command": words[0], "args": [*words[1:], "hook", "pre-tool"]}
    done = run(handler, tmp_path, b"{}")
    assert done.returncode == 0 and not done.stdout and not done.stderr
    launcher = tmp_path / "hook.py"
    launcher.write_text(launch_forms.launcher_text(str(tmp_path / "no-package-here")))
    handler["args"][4] = str(launcher)
    # An interpreter without arcguard among its own packages either: `site` cannot find it.
    done = run({**handler, "command": sys.base_prefix + "/bin/python3"}, tmp_path, b"{}")
    assert done.returncode == 0 and b"arcguard: not installed any more" in done.stderr


@pytest.mark.parametrize(
    ("package_main", "output"),
    [
        # The package's own `leave` ends the process...
        (
            "def main():\n    return 3\ndef leave(code):\n    print('left', code)\n"
            "    raise SystemExit(code)\n",
            b"left 3\n",
        ),
        # ...and a package older than the launcher, without one, ends it as before.
        ("def main():\n    return 3\n", b""),
    ],
)
def test_the_launcher_ends_the_process_through_the_packages_leave(
    tmp_path: Path, package_main: str, output: bytes
) -> None:
    package = tmp_path / "lib" / "arcguard"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "main.py").write_text(package_main)
    launcher = tmp_path / "state" / "hook.py"
    launcher.parent.mkdir(mode=0o700)
    launcher.write_text(launch_forms.launcher_text(str(package.parent)))
    words = launch_forms.short_prefix(sys.executable, str(launcher))
    assert words is not None
    done = run({"command": words[0], "args": [*words[1:], "hook", "stop"]}, tmp_path, b"{}")
    assert (done.returncode, done.stdout) == (3, output), done.stderr


def test_leave_skips_the_teardown_and_keeps_the_exit_code_and_what_was_buffered() -> None:
    code = (
        "import atexit, sys\n"
        "from arcguard.main import leave\n"
        "atexit.register(lambda: print('torn down'))\n"
        "sys.stdout.write('buffered out')\n"
        "sys.stderr.write('buffered err')\n"
        "leave(2)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (2, b"buffered out", b"buffered err")


def test_the_launcher_imports_nothing_from_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "arcguard").mkdir()
    (tmp_path / "arcguard" / "__init__.py").write_text("raise SystemExit(9)\n")
    (tmp_path / "os.py").write_text("raise SystemExit(9)\n")
    launcher = tmp_path / "state" / "hook.py"
    launcher.parent.mkdir()
    import arcguard

    launcher.write_text(launch_forms.launcher_text(str(Path(arcguard.__file__).parents[1])))
    words = launch_forms.short_prefix(sys.executable, str(launcher))
    assert words is not None
    done = run({"command": words[0], "args": [*words[1:], "hook", "stop"]}, tmp_path, b"{}")
    assert done.returncode == 0, done.stderr


def test_old_one_liner_entries_are_still_ours_and_replaced(project: Path) -> None:
    old = plan.plan_install({}, launch_forms.own_prefix("/venv/bin/python3", "/venv/lib"))
    assert all(plan.is_ours(h) for h in handlers(old))
    words = launch_forms.short_prefix(PYTHON, LAUNCHER)
    assert words is not None
    new = plan.plan_install(old, words)
    assert new == plan.plan_install({}, words)
    assert plan.remove_ours(new) == {}


@pytest.mark.parametrize(
    "change",
    [
        lambda h: {**h, "args": [*h["args"][:3], h["args"][3] + ";print(1)", *h["args"][4:]]},
        lambda h: {**h, "args": [*h["args"][:4], "relative/hook.py", *h["args"][5:]]},
        lambda h: {**h, "args": [*h["args"][:4], "/tmp/other.py", *h["args"][5:]]},
        lambda h: {**h, "command": "/bin/sh"},
        lambda h: {**h, "args": [*h["args"][:-1], "nope"]},
        lambda h: {**h, "command": shlex.join([h["command"], *h["args"]]) + " #"},
    ],
)
def test_a_changed_short_entry_is_not_ours(change: Any) -> None:
    words = launch_forms.short_prefix(PYTHON, LAUNCHER)
    assert words is not None
    handler = plan.desired_group("Stop", words)["hooks"][0]
    assert plan.is_ours(handler)
    assert not plan.is_ours(change(handler))


def test_doctor_shows_the_interpreter_and_the_launcher() -> None:
    words = launch_forms.short_prefix(PYTHON, LAUNCHER)
    assert words is not None
    handler = plan.desired_group("Stop", words)["hooks"][0]
    assert plan.shown(handler) == f"{PYTHON} {LAUNCHER}"
    assert plan.code_location(handler) == LAUNCHER


def test_every_event_is_written_in_the_short_form() -> None:
    words = launch_forms.short_prefix(PYTHON, LAUNCHER)
    assert words is not None
    assert {e for e, h in plan.our_entries(plan.plan_install({}, words))} == set(EVENTS)


def test_uninstall_keeps_the_launcher_another_scope_still_runs(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_claude(tmp_path, monkeypatch, "2.1.332")
    install(project, "project")
    install(project, "local")
    launcher = Path(paths.state_dir(os.environ)) / launch_forms.LAUNCHER_NAME
    image = launcher.with_name(hook_image.IMAGE_NAME)
    assert invoke("uninstall", "--scope", "local", "--project", str(project)).exit_code == 0
    assert launcher.is_file() and image.is_file()
    assert invoke("uninstall", "--scope", "project", "--project", str(project)).exit_code == 0
    assert not launcher.exists() and not launcher.parent.exists()


def test_install_writes_the_code_image_the_launcher_loads(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_claude(tmp_path, monkeypatch, "2.1.332")
    install(project, "project")
    launcher = Path(paths.state_dir(os.environ)) / launch_forms.LAUNCHER_NAME
    image = launcher.with_name(hook_image.IMAGE_NAME)
    assert image.stat().st_mode & 0o777 == 0o600
    assert hook_image.stale(str(image)) is None
    assert f"i = {json.dumps(str(image))}\n" in launcher.read_text()
    image.write_bytes(b"")
    install(project, "project")  # a second install makes it anew
    assert hook_image.stale(str(image)) is None


# --- the stub runs a launcher only when it is this user's alone ----------------------------


def planted(tmp_path: Path) -> tuple[dict[str, Any], Path, Path]:
    """A short entry for a launcher that would leave a marker behind (and a decision)."""
    marker = tmp_path / "ran"
    launcher = tmp_path / "state" / launch_forms.LAUNCHER_NAME
    launcher.parent.mkdir(mode=0o700)
    launcher.write_text(
        f"open({str(marker)!r}, 'w').close()\n"
        'print(\'{"decision": "block", "reason": "planted"}\')\n'
    )
    launcher.chmod(0o600)
    words = launch_forms.short_prefix(sys.executable, str(launcher))
    assert words is not None
    return {"command": words[0], "args": [*words[1:], "hook", "stop"]}, launcher, marker


def test_the_stub_runs_a_launcher_that_is_yours_alone(tmp_path: Path) -> None:
    handler, _, marker = planted(tmp_path)
    done = run(handler, tmp_path, b"{}")
    assert done.returncode == 0 and b"planted" in done.stdout and marker.exists()


@pytest.mark.parametrize(
    ("which", "mode"),
    [("file", 0o620), ("file", 0o602), ("folder", 0o770), ("folder", 0o703)],
    ids=["file-group", "file-others", "folder-group", "folder-others"],
)
def test_the_stub_refuses_a_launcher_others_can_write(
    tmp_path: Path, which: str, mode: int
) -> None:
    # Someone who can write the file or its folder could have put their own code there.
    handler, launcher, marker = planted(tmp_path)
    (launcher if which == "file" else launcher.parent).chmod(mode)
    done = run(handler, tmp_path, b"{}")
    assert done.returncode == 0 and not done.stdout and not marker.exists()
    assert done.stderr.decode() == f"arcguard: unsafe, not run: {launcher}\n"


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="giving the launcher to a second user needs root (the suite runs as another user)",
)
@pytest.mark.parametrize("which", ["file", "folder"])
def test_the_stub_refuses_a_launcher_of_another_user(tmp_path: Path, which: str) -> None:
    # ARCGUARD_HOME under a shared folder: after it was cleaned, another user recreated it with
    # a hook.py of theirs. Run as root, the hooks would run their code as root.
    handler, launcher, marker = planted(tmp_path)
    os.chown(launcher if which == "file" else launcher.parent, 65534, 65534)
    done = run(handler, tmp_path, b"{}")
    assert done.returncode == 0 and not done.stdout and not marker.exists()
    assert b"arcguard: unsafe, not run:" in done.stderr


def test_an_earlier_releases_stub_is_still_ours_and_replaced() -> None:
    words = launch_forms.short_prefix(PYTHON, LAUNCHER)
    old = launch_forms.short_prefix(PYTHON, LAUNCHER, launch_forms.UNCHECKED_STUB)
    assert words is not None and old is not None
    for prefix in (old, shlex.join(old)):
        earlier = plan.plan_install({}, prefix)
        assert all(plan.is_ours(h) for h in handlers(earlier))
        assert plan.code_location(handlers(earlier)[0]) == LAUNCHER
        assert plan.plan_install(earlier, words) == plan.plan_install({}, words)
        assert plan.remove_ours(earlier) == {}
