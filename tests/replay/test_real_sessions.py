"""The real labelled sessions (tests/fixtures/real-sessions/, both folds): arcguard replayed on
each legitimate one, plain and as an arc, neither denies, pauses nor asks for a summary. An
intervention in productive work is the expensive error, and these are real people's sessions."""

from __future__ import annotations

import json

import pytest
from testing.builders import REPO

from arcguard.replay.replayer import replay


REAL = REPO / "tests" / "fixtures" / "real-sessions"
LEGIT = sorted(
    path
    for path in REAL.glob("*/*.jsonl")
    if json.loads(path.with_name(path.stem + ".label.json").read_text("utf-8"))["kind"] == "legit"
)


def test_there_are_legitimate_real_sessions_in_both_folds():
    assert {path.parent.name for path in LEGIT} == {"tuning", "held-out"}


@pytest.mark.parametrize("arc", [False, True], ids=["plain", "arc"])
@pytest.mark.parametrize("path", LEGIT, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_legitimate_real_session_is_left_alone(path, arc, tmp_path):
    config = tmp_path / "none.toml"
    config.write_text("")
    result = replay(str(path), config_path=str(config), arc=arc, recorded_time=True)
    acted = [(d.turn, d.kind) for d in result.decisions if d.kind in ("deny", "pause", "nudge")]
    assert acted == []
