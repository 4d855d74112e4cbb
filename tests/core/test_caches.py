"""Commands that only clear a cache (`caches`): the look after them asks the question again."""

from __future__ import annotations

import pytest

from arcguard.core.loop_guard import caches
from arcguard.core.tool_call import ToolCall


def _bash(command: str) -> ToolCall:
    return ToolCall("Bash", {"command": command})


@pytest.mark.parametrize(
    "command",
    [
        "npm cache clean --force",
        "npm cache clean --force && npm view @acme/sdk version",
        "pnpm store prune && rm -rf ~/.cache/pnpm/metadata*",
        "pip cache purge",
        "go clean -modcache",
        "docker builder prune -f",
        "rm -rf node_modules/.cache .next/cache",
        "rm -rf ~/Library/Developer/Xcode/DerivedData/Ledgerly-*",
        "find . -name __pycache__ -prune; rm -rf migrations/__pycache__ .pytest_cache",
        "yarn cache clean && yarn info @acme/sdk version",
    ],
)
def test_what_only_clears_a_cache(command):
    assert caches.clears_only(_bash(command))


@pytest.mark.parametrize(
    "command",
    [
        "npm view @acme/sdk version",  # only reads
        "npm cache clean --force && npm install",  # installs too
        "pnpm store prune && pnpm install 2>&1 | tail -12",
        "rm -rf node_modules",  # packages, not a cache
        "rm -rf dist .next/cache",  # a build's output too
        "go clean",  # the package's own objects
        "docker system prune -f",  # containers and networks too
        "rm src/services/cache_service.py",  # a source file named for a cache
        "rm /etc/nginx/conf.d/cache.conf",
        "npm cache clean --force > /tmp/out.txt",  # writes a file
    ],
)
def test_what_does_more_than_clear_a_cache(command):
    assert not caches.clears_only(_bash(command))


def test_other_tools_clear_no_cache():
    assert not caches.clears_only(ToolCall("Read", {"file_path": "/p/.cache/x"}))
