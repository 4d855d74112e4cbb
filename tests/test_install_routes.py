"""The recommended ways to put `arcguard` on PATH, followed as the installing page says: pipx
and uv tool, from a path or a git URL; upgrade; and full removal. Each installs into throwaway
folders (its own home, tool folders and Claude Code settings), never the user's."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from testing.builders import REPO

from arcguard import __version__


def _tool(name: str) -> str:
    found = shutil.which(
        name, path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    )
    if found is None:
        message = f"{name} is not installed (it is in the test extra: pip install -e '.[test]')"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return found


@dataclass
class Route:
    """One tool's install, upgrade and removal commands, and where it puts `arcguard`."""

    root: Path
    tool: str
    name: str

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def bin_dir(self) -> Path:
        return self.root / "bin"

    def env(self) -> dict[str, str]:
        drop = ("PIPX_", "UV_", "ARCGUARD_", "XDG_", "CLAUDE", "VIRTUAL_ENV")
        env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
        env.update(
            HOME=str(self.home),
            PATH=f"{self.bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin",
            PIPX_HOME=str(self.root / "pipx"),
            PIPX_BIN_DIR=str(self.bin_dir),
            PIPX_MAN_DIR=str(self.root / "man"),
            UV_TOOL_DIR=str(self.root / "uv-tools"),
            UV_TOOL_BIN_DIR=str(self.bin_dir),
        )
        return env

    def run(self, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            list(argv), input=stdin, capture_output=True, text=True, env=self.env(), timeout=300
        )
        assert done.returncode == 0, f"{argv}: {done.stdout}{done.stderr}"
        return done

    def install(self, source: str) -> None:
        if self.name == "pipx":
            self.run(self.tool, "install", source)
        else:
            self.run(self.tool, "tool", "install", source)

    def upgrade(self) -> None:
        if self.name == "pipx":
            self.run(self.tool, "reinstall", "arcguard")
        else:
            self.run(self.tool, "tool", "upgrade", "arcguard")

    def remove(self) -> None:
        if self.name == "pipx":
            self.run(self.tool, "uninstall", "arcguard")
        else:
            self.run(self.tool, "tool", "uninstall", "arcguard")


@pytest.fixture(params=["pipx", "uv"])
def route(request: pytest.FixtureRequest, tmp_path: Path) -> Route:
    name = str(request.param)
    made = Route(tmp_path, _tool(name), name)
    made.home.mkdir()
    return made


def _clone(tmp_path: Path) -> Path:
    """A clone of the repository's committed state, as a user would have."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: no git URL to install from")
    target = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--no-hardlinks", str(REPO), str(target)], check=True, timeout=120
    )
    return target


def _settings(route: Route) -> dict[str, object]:
    return json.loads((route.home / ".claude" / "settings.json").read_text())


def test_install_from_a_path_wire_upgrade_and_remove_it_all(route: Route):
    route.install(str(REPO))
    arcguard = str(route.bin_dir / "arcguard")
    assert route.run(arcguard, "--version").stdout.strip() == f"arcguard, version {__version__}"
    assert route.run("sh", "-c", "command -v arcguard").stdout.strip() == arcguard

    # Wired from the tool's own environment: the hooks do not depend on a clone or a venv.
    route.run(arcguard, "install", "--claude-version", "2.1.328")
    commands = [
        shlex.join([h["command"], *h.get("args", [])]) if "args" in h else h["command"]
        for groups in _settings(route)["hooks"].values()  # type: ignore[attr-defined]
        for g in groups
        for h in g["hooks"]
    ]
    tool_dirs = (str(route.root / "pipx"), str(route.root / "uv-tools"))
    assert commands and all(c.startswith(tool_dirs) for c in commands), commands
    posture = commands[0]
    payload = json.dumps({"session_id": "s1", "prompt": "/autonomous go", "cwd": "/"})
    out = route.run("sh", "-c", posture, stdin=payload).stdout
    assert "Autonomous arc" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    state = route.home / ".local" / "state" / "arcguard"
    assert (state / "sessions").is_dir()

    # An upgrade keeps the same interpreter path, so the entries stay as they are.
    route.upgrade()
    assert (
        "already installed" in route.run(arcguard, "install", "--claude-version", "2.1.328").stdout
    )
    assert route.run("sh", "-c", posture, stdin=payload).returncode == 0

    # Full removal, as the installing page lists it.
    route.run(arcguard, "uninstall")
    route.remove()
    shutil.rmtree(state)
    assert not (route.bin_dir / "arcguard").exists()
    assert sorted(p.name for p in (route.home / ".claude").iterdir()) == []
    assert not (route.home / ".config" / "arcguard").exists()


def test_install_from_a_git_url(route: Route, tmp_path: Path):
    clone = _clone(tmp_path)
    route.install(f"git+file://{clone}")
    arcguard = str(route.bin_dir / "arcguard")
    assert route.run(arcguard, "--version").stdout.strip() == f"arcguard, version {__version__}"
    # An upgrade fetches the new commit from the same URL.
    init = clone / "src" / "arcguard" / "__init__.py"
    init.write_text(init.read_text().replace(f'"{__version__}"', '"99.0.0"'))
    subprocess.run(
        ["git", "-C", str(clone), "commit", "-qam", "next"],
        check=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
        },
    )
    route.upgrade()
    assert route.run(arcguard, "--version").stdout.strip() == "arcguard, version 99.0.0"


def test_nothing_shipped_says_pip_install_arcguard():
    # No package of that name is on an index: the plugin, the docs and doctor's hints point to
    # pipx or uv from a clone or a git URL instead.
    shipped = [REPO / "README.md", *(REPO / "docs").glob("*.md"), *(REPO / "plugin").rglob("*")]
    shipped += [*(REPO / ".claude-plugin").glob("*"), *(REPO / "src" / "arcguard").rglob("*.py")]
    saying = [
        str(p.relative_to(REPO))
        for p in shipped
        if p.is_file() and "pip install arcguard" in p.read_text(encoding="utf-8")
    ]
    assert saying == []
