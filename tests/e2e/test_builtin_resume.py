"""Exploration: the built-in resume at a usage limit, with a claude.ai login."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from interactive import claude_ai_login
from interactive import interactive_claude
from interactive import wait_for
from scripted_api import ScriptedAPI
from scripted_api import api_error
from scripted_api import text
from test_limit_wait import installed_project
from test_limit_wait import kinds
from test_limit_wait import prompts
from test_limit_wait import state


def usage_limit(reset: int, count: int = 2) -> list[Any]:
    headers = {
        "retry-after": "0",
        "anthropic-ratelimit-unified-status": "rejected",
        "anthropic-ratelimit-unified-reset": str(reset),
        "anthropic-ratelimit-unified-representative-claim": "five_hour",
    }
    return [api_error(429, "rate_limit_error", "usage limit", headers=headers)] * count


def test_explore(claude_bin: Path, claude_project: Any) -> None:
    project = installed_project(claude_project)
    claude_ai_login(project)
    env = {"ARCGUARD_LIMIT_WAIT_MAX_SECONDS": "300"}
    with (
        ScriptedAPI() as api,
        interactive_claude(claude_bin, project, api, env, unset=("ANTHROPIC_API_KEY",)) as cli,
    ):
        reset = int(time.time()) + 5
        api.add(usage_limit(reset, 1), text("Back on it."), text("again"), text("third"))
        cli.type("/autonomous ship the importer")
        start = time.time()
        wait_for(lambda: "api-error" in kinds(project), 60, "the limit", cli)
        wait_for(lambda: "continuing automatically" in cli.screen(), 30, "armed", cli)
        time.sleep(1)
        cli._tmux("send-keys", "-t", "cli", "Escape")
        time.sleep(2)
        print("SCREEN1", cli.screen())
        time.sleep(100)
        print("SCREEN2", cli.screen())
        print("KINDS", kinds(project), state(project).get("limit_wait"))
        print("PROMPTS", [p[-300:] for p in prompts(api)])
        print("REQ", len(api.requests), time.time() - start)
        for path in project.transcripts():
            for line in path.read_text().splitlines():
                e = json.loads(line)
                if e.get("type") in ("system", "user") or "limit" in line.lower()[:3000]:
                    if e.get("type") == "assistant":
                        continue
                    print(
                        "T",
                        e.get("timestamp"),
                        e.get("type"),
                        e.get("subtype"),
                        e.get("isMeta"),
                        json.dumps(e.get("content") or (e.get("message") or {}).get("content"))[
                            :300
                        ],
                    )
