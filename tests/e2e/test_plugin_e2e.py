"""The plugin as a user installs it: the repository is a marketplace for Claude Code's own
`claude plugin` commands, and the plugin's hooks without `arcguard` on PATH say how to install
it instead of failing on every event."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use
from scripts.generate import MISSING
from test_install_e2e import TEMPLATE_LINE
from test_install_e2e import arcguard_argv
from test_install_e2e import status


REPO = Path(__file__).resolve().parents[2]


def claude_plugin(claude_bin: Path, project: Any, *args: str) -> dict[str, Any]:
    # With an API key and no base URL the plugin commands try the real endpoint and wait for
    # it (about 17 s each, offline): point them at the scripted server, which asks nothing.
    with ScriptedAPI([]) as api:
        done = subprocess.run(
            [str(claude_bin), "plugin", *args, "--json"],
            capture_output=True,
            text=True,
            env={**project.base_env(), "ANTHROPIC_BASE_URL": api.base_url},
            cwd=project.path,
            timeout=120,
        )
    assert api.requests == [], "a plugin command made a model call"
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def install_from_the_repository(claude_bin: Path, project: Any) -> None:
    added = claude_plugin(claude_bin, project, "marketplace", "add", str(REPO))
    assert added["outcome"] == "ok" and added["marketplace"] == "arcguard", added
    installed = claude_plugin(claude_bin, project, "install", "arcguard@arcguard")
    assert installed["outcome"] == "ok", installed


def path_without_arcguard() -> str:
    folders = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(f for f in folders if f and not (Path(f) / "arcguard").exists())


def test_the_plugin_installs_from_the_repository_and_its_hooks_run(
    claude_project, run_claude, claude_bin
):
    project = claude_project()
    bin_dir = Path(arcguard_argv()[0]).parent
    if not (bin_dir / "arcguard").is_file():
        import pytest

        pytest.skip("the plugin's hooks call `arcguard` on PATH: no console script here")
    install_from_the_repository(claude_bin, project)
    # Only the plugin's folder is copied into Claude Code's cache, not the clone around it.
    [cached] = (project.home / ".claude" / "plugins" / "cache" / "arcguard").rglob("plugin.json")
    root = cached.parent.parent
    assert sorted(p.name for p in root.iterdir()) == [".claude-plugin", "commands", "hooks"]

    env = {"PATH": f"{bin_dir}{os.pathsep}{path_without_arcguard()}"}
    with ScriptedAPI([text("No response requested."), text("The arc is complete.")]) as api:
        run = run_claude(project, api, "/arcguard:autonomous ship the importer", env=env)
    assert run.returncode == 0, run.describe()
    assert TEMPLATE_LINE in api.request_text(0)
    assert len(api.requests) == 2, run.describe()
    kinds = [entry["kind"] for entry in status(project, run.session_id)["log"]]
    assert kinds == ["arc", "continue", "release"]


def test_without_arcguard_on_path_the_plugin_says_how_to_install_it(
    claude_project, run_claude, claude_bin
):
    project = claude_project()
    install_from_the_repository(claude_bin, project)
    script = [tool_use("Bash", {"command": "echo hi"}), text("No response requested.")]
    with ScriptedAPI(script) as api:
        run = run_claude(
            project,
            api,
            "/arcguard:autonomous ship the importer",
            extra_args=["--output-format", "stream-json", "--verbose"],
            env={"PATH": path_without_arcguard()},
        )
    assert run.returncode == 0, run.describe()
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    shown = [d["content"] for d in lines if d.get("subtype") == "informational"]
    # One line per prompt, where the user looks, and no "gave no usable answer" warning.
    assert shown == [f"UserPromptSubmit says: {MISSING}"], run.describe()
    # Every hook answered exit 0: no failure was recorded, and the model never saw the line.
    attachments = [e.get("attachment", {}) for e in run.transcript_entries()]
    assert not [a for a in attachments if a.get("type", "").startswith("hook_non_blocking")]
    assert [a["hookEvent"] for a in attachments if a.get("type") == "hook_system_message"] == [
        "UserPromptSubmit"
    ]
    assert all(MISSING not in api.request_text(i) for i in range(len(api.requests)))
    assert len(api.requests) == 2  # nothing kept the session going: arcguard was off


def test_on_screen_the_missing_arcguard_is_one_line_per_prompt(claude_project, claude_bin):
    from interactive import interactive_claude
    from interactive import tmux_available
    from interactive import wait_for

    if not tmux_available():
        import pytest

        message = "tmux is not installed (the interactive CLI runs inside it)"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    project = claude_project()
    install_from_the_repository(claude_bin, project)
    # One row of the screen, once per prompt.
    shown = f"UserPromptSubmit says: {MISSING}\n"
    env = {"PATH": path_without_arcguard()}
    with (
        ScriptedAPI([text("Hello."), text("Again.")]) as api,
        interactive_claude(claude_bin, project, api, env) as cli,
    ):
        cli.type("hello")
        wait_for(lambda: "Hello." in cli.screen(), 60, "the first answer", cli)
        cli.type("once more")
        wait_for(lambda: "Again." in cli.screen(), 60, "the second answer", cli)
        screen = cli.screen()
    assert screen.count(shown) == 2, screen
    assert "gave no usable answer" not in screen
    assert "hook error" not in screen and "failed" not in screen.lower()
