"""On a system without POSIX file locks or O_NOFOLLOW (Windows outside WSL, simulated by
taking both away), arcguard says so in one line and changes nothing; the supported systems
are stated where a user looks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from testing.builders import REPO
from testing.cli import invoke

from arcguard.storage import support


# Taken away before arcguard is imported, as on a system that never had them.
WITHOUT_POSIX = (
    "import os, sys; sys.modules['fcntl'] = None; del os.O_NOFOLLOW; "
    "from arcguard.main import main; sys.exit(main(sys.argv[1:]))"
)


@pytest.fixture
def no_posix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "fcntl", None)
    monkeypatch.delattr(os, "O_NOFOLLOW")


def test_this_system_is_supported():
    assert support.missing() is None
    assert support.unsupported() is None


@pytest.mark.usefixtures("no_posix")
def test_what_is_missing_is_named():
    assert support.missing() == "no POSIX file locks (fcntl)"
    assert support.unsupported() == (
        f"arcguard runs on Linux and macOS (on Windows, inside WSL); this system "
        f"({sys.platform}) has no POSIX file locks (fcntl)"
    )


@pytest.mark.usefixtures("no_posix")
def test_install_says_so_in_one_line_and_writes_nothing(tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    result = invoke("install", "--scope", "project", "--project", str(project))
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"Error: {support.unsupported()}: nothing was written",
    ]
    assert list(project.iterdir()) == []


@pytest.mark.usefixtures("no_posix")
@pytest.mark.parametrize("as_json", [False, True])
def test_doctor_says_so_in_one_line(tmp_path: Path, as_json: bool):
    result = invoke("doctor", "--project", str(tmp_path), *(["--json"] if as_json else []))
    assert result.exit_code == 1
    line = f"{support.unsupported()}: nothing was checked"
    if as_json:
        report = json.loads(result.output)
        assert report["ok"] is False
        assert report["checks"] == [
            {"name": "platform", "status": "gap", "detail": line, "hint": ""}
        ]
    else:
        assert result.output.splitlines() == [f"gap   platform: {line}"]


def _without_posix(args: list[str], home: Path, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_POSIX, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "ARCGUARD_HOME": str(home)},
        timeout=60,
    )


@pytest.mark.parametrize("hook", ["posture", "pre-tool", "stop", "limit-wait"])
def test_a_hook_exits_0_with_one_line_and_writes_nothing(tmp_path: Path, hook: str):
    home = tmp_path / "state"
    payload = {"session_id": "s1", "prompt": "/autonomous go", "tool_name": "Bash"}
    done = _without_posix(["hook", hook], home, json.dumps(payload))
    assert (done.returncode, done.stdout) == (0, "")
    [line] = done.stderr.splitlines()
    assert line.startswith("arcguard: hook not run: arcguard runs on Linux and macOS")
    assert line.endswith("has no POSIX file locks (fcntl)")
    assert not home.exists()


def test_the_status_line_stays_empty(tmp_path: Path):
    done = _without_posix(["statusline"], tmp_path / "state", "{}")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_supported_systems_are_stated():
    readme = (REPO / "README.md").read_text()
    assert "Linux and macOS; on Windows, inside WSL" in readme
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert {
        "Operating System :: POSIX :: Linux",
        "Operating System :: MacOS",
    } <= set(project["classifiers"])
    assert not [c for c in project["classifiers"] if "Windows" in c]
