from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory."""
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def claude_on_path(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `claude` on PATH reporting the release arcguard is tested with."""
    bin_dir = tmp_path_factory.mktemp("claude-bin")
    program = bin_dir / "claude"
    program.write_text("#!/bin/sh\necho '2.1.328 (Claude Code)'\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
