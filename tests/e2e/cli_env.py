"""The environment the real Claude Code CLI runs in against the scripted API: offline, with a
home of its own, and nothing of the outer environment that could reach a real endpoint."""

from __future__ import annotations

import os
from pathlib import Path


# Variables of the outer environment that must not reach the CLI under test (credentials, a
# parent Claude Code session, proxies to a real endpoint, arcguard settings of whoever runs
# it, and CI, which the CLI would take as a reason to behave differently).
SCRUB_PREFIXES = ("ANTHROPIC_", "CLAUDE", "AWS_BEARER_TOKEN_BEDROCK", "ARCGUARD_")
SCRUB_EXACT = frozenset(
    {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "CI"}
)


def offline_env(home: Path, arcguard_home: Path) -> dict[str, str]:
    """The outer environment, scrubbed, with the CLI's home, arcguard's state directory and
    the switches that keep the CLI from calling anything but the scripted API."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(SCRUB_PREFIXES) and k not in SCRUB_EXACT
    }
    env.update(
        HOME=str(home),
        ARCGUARD_HOME=str(arcguard_home),
        IS_SANDBOX="1",
        ANTHROPIC_API_KEY="test",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
        CLAUDE_CODE_MAX_RETRIES="1",
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
    )
    return env
