"""The settings snippet users (and `install`) wire: valid, complete, nothing extra, and the
published copies generated from the install plan (scripts/generate.py) up to date."""

from __future__ import annotations

import json
import shutil
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
    plugin = tmp_path / "hooks" / "hooks.json"
    plugin.write_text(plugin.read_text().replace("hook stop", "hook stop --verbose"))
    (tmp_path / "commands" / "autonomous.md").unlink()
    assert generate.stale(tmp_path) == ["hooks/hooks.json", "commands/autonomous.md"]


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
