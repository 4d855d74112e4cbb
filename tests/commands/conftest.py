from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory."""
    root = tmp_path / "project"
    root.mkdir()
    return root
