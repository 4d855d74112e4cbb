"""The settings snippet users (and `install`) wire: valid, complete, nothing extra."""

from __future__ import annotations

import json

from testing.builders import REPO

from arcguard.hooks import EVENTS
from arcguard.hooks import HOOKS


def test_snippet_wires_every_event_to_its_hook_exactly_once():
    snippet = json.loads((REPO / "hooks.settings.json.snippet").read_text())
    wired = {}
    for event, groups in snippet["hooks"].items():
        commands = [h["command"] for g in groups for h in g["hooks"]]
        assert len(commands) == 1, event
        wired[event] = commands[0]
    assert wired == {event: f"arcguard hook {hook}" for event, hook in EVENTS.items()}
    assert set(EVENTS.values()) == set(HOOKS)
