"""What `arcguard install` writes and says, decided from what it read (no files, no click)."""

from __future__ import annotations

from pathlib import Path

from arcguard.commands import install_plan
from arcguard.hooks import EVENTS


def test_it_names_a_lookalike_then_the_notes_then_an_event_a_users_entry_still_names() -> None:
    lookalike = {"type": "command", "command": "X=1 arcguard hook stop"}
    mine = {"type": "command", "command": "notify-send batch"}
    settings: dict[str, object] = {
        "hooks": {"Stop": [{"hooks": [lookalike]}], "PostToolBatch": [{"hooks": [mine]}]}
    }
    events = [e for e in EVENTS if e != "PostToolBatch"]
    wiring = install_plan.wire(settings, "/opt/arcguard", events, None)
    assert wiring.lookalikes == (("Stop", lookalike),)
    assert wiring.still == ("PostToolBatch",)
    lines = install_plan.notices(Path("/s.json"), wiring, ["a note"])
    assert lines[0].startswith(
        "left as it is: Stop command 'X=1 arcguard hook stop' "
        "(sets environment variables before the program)"
    )
    assert lines[1] == "a note"
    assert lines[2].startswith("warning: /s.json still names PostToolBatch in an entry")
    assert len(lines) == 3


def test_a_release_without_an_event_gets_a_line_per_event_left_out() -> None:
    events, notes = install_plan.known_events((2, 1, 0), "")
    left_out = [e for e in EVENTS if e not in events]
    assert left_out
    assert notes == [
        f"{event} left out: Claude Code 2.1.0 does not know it; run `arcguard install` again "
        "after upgrading"
        for event in left_out
    ]
