"""The settings snippet users (and `install`) wire: valid, complete, nothing extra, and the
published copies generated from the install plan (scripts/generate.py) up to date."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from scripts import generate
from testing.builders import REPO

from arcguard.hooks import BACKGROUND
from arcguard.hooks import EVENTS
from arcguard.hooks import HOOKS
from arcguard.hooks import RESIDENT_COMMANDS


def test_snippet_wires_every_event_to_its_hook_exactly_once():
    snippet = json.loads((REPO / "hooks.settings.json.snippet").read_text())
    wired = {}
    for event, groups in snippet["hooks"].items():
        commands = [h["command"] for g in groups for h in g["hooks"] if not h.get("async")]
        assert len(commands) == 1, event
        wired[event] = commands[0]
    assert wired == {event: f"arcguard hook {hook}" for event, hook in EVENTS.items()}
    assert set(EVENTS.values()) | set(BACKGROUND) | set(RESIDENT_COMMANDS.values()) == set(HOOKS)


def test_generated_files_are_current():
    assert generate.stale() == [], "run: python scripts/generate.py"


def test_a_hand_edit_to_a_generated_file_is_reported_stale(tmp_path: Path):
    for name in generate.artefacts():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, tmp_path / name)
    assert generate.stale(tmp_path) == []
    plugin = tmp_path / "plugin" / "hooks" / "hooks.json"
    plugin.write_text(plugin.read_text().replace("hook stop", "hook stop --verbose"))
    (tmp_path / "plugin" / "commands" / "autonomous.md").unlink()
    assert generate.stale(tmp_path) == ["plugin/hooks/hooks.json", "plugin/commands/autonomous.md"]


def test_snippet_runs_the_limit_waiter_in_the_background_on_stop_failure():
    snippet = json.loads((REPO / "hooks.settings.json.snippet").read_text())
    background = [h for g in snippet["hooks"]["StopFailure"] for h in g["hooks"] if h.get("async")]
    assert background == [
        {
            "type": "command",
            "command": "arcguard hook limit-wait",
            "timeout": 87000,
            "async": True,
            "asyncRewake": True,
        }
    ]


def _plugin_handlers() -> list[tuple[str, dict[str, object]]]:
    plugin = json.loads((REPO / "plugin" / "hooks" / "hooks.json").read_text())
    return [(e, h) for e, groups in plugin["hooks"].items() for g in groups for h in g["hooks"]]


def _run_plugin_command(command: str, path: Path) -> subprocess.CompletedProcess[str]:
    # Claude Code runs a command hook with /bin/sh -c (seen in its hook error lines).
    return subprocess.run(
        ["/bin/sh", "-c", command],
        input="{}",
        capture_output=True,
        text=True,
        env={"PATH": f"{path}{os.pathsep}/usr/bin{os.pathsep}/bin"},
        timeout=30,
    )


def test_plugin_hooks_without_arcguard_exit_0_and_only_the_prompt_hook_says_so(tmp_path: Path):
    said = []
    for event, handler in _plugin_handlers():
        done = _run_plugin_command(str(handler["command"]), tmp_path)
        assert (done.returncode, done.stderr) == (0, ""), event
        if done.stdout:
            said.append((event, json.loads(done.stdout)))
    assert said == [("UserPromptSubmit", {"systemMessage": generate.MISSING})]
    assert "pipx install" in generate.MISSING and "pip install arcguard" not in generate.MISSING


def test_plugin_hooks_with_arcguard_on_path_run_it_in_place_of_the_shell(tmp_path: Path):
    fake = tmp_path / "arcguard"
    fake.write_text('#!/bin/sh\necho "$@"\n')
    fake.chmod(0o755)
    for event, handler in _plugin_handlers():
        # What follows the command line is never reached: the shell became arcguard.
        done = _run_plugin_command(f"{handler['command']}\necho shell-went-on", tmp_path)
        assert (done.returncode, done.stdout) == (
            0,
            f"hook {HOOK_OF[event, bool(handler.get('async'))]}\n",
        )


HOOK_OF = {
    **{(event, False): hook for event, hook in EVENTS.items()},
    **{(event, True): hook for hook, event in BACKGROUND.items()},
}
