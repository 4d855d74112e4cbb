"""The README documents every setting, its environment override, and every command."""

from __future__ import annotations

import pytest
from testing.builders import REPO

from arcguard.commands.group import COMMANDS
from arcguard.core.config import DEFAULTS


README = (REPO / "README.md").read_text()


@pytest.mark.parametrize("key", sorted(DEFAULTS))
def test_every_setting_and_its_override_is_documented(key):
    assert f"`{key}`" in README
    assert f"`ARCGUARD_{key.upper()}`" in README


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_is_documented(command):
    assert f"arcguard {command}" in README
