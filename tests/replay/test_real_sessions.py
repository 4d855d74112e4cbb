"""The real labelled sessions (tests/fixtures/real-sessions/, both folds): arcguard replayed on
each legitimate one, plain and as an arc, neither denies, pauses nor asks for a summary (an
intervention in productive work is the expensive error, and these are real people's sessions),
each real stall, replayed as an arc, is sent back to work at the turn its label names, and each
real loop gets a word by its label's turn and is stopped by its last looping turn."""

from __future__ import annotations

import pytest
from testing.real_sessions import labelled

from arcguard.replay.replayer import replay


LEGIT = [path for path, label in labelled() if label["kind"] == "legit"]
STALLS = [(path, label["by_turn"]) for path, label in labelled() if label["kind"] == "stall"]
LOOPS = [(path, label) for path, label in labelled() if label["kind"] == "loop"]
# Loops no rule sees yet (docs/loop-guard.md says why): strict, so a catch is noticed.
MISSED = {
    "cc-backend-edit-tab-probing": "each probe prints something new while saying nothing new",
    "skills-search-without-remote": "two alike failures, then the shell's, then the user's",
}


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


@pytest.mark.parametrize(
    ("path", "turn"), STALLS, ids=[f"{p.parent.name}/{p.stem}" for p, _ in STALLS]
)
def test_a_real_stall_is_sent_back_at_its_turn_and_nothing_is_denied_or_paused(
    path, turn, tmp_path
):
    # The window is replayed as one arc from its first prompt, which was not written as a task:
    # an earlier question of the model's may be continued too, and is not judged here.
    config = tmp_path / "none.toml"
    config.write_text("")
    result = replay(str(path), config_path=str(config), arc=True, recorded_time=True)
    kinds = {(d.turn, d.kind) for d in result.decisions}
    assert (turn, "continue") in kinds
    assert not {kind for _, kind in kinds} & {"deny", "pause", "nudge"}


@pytest.mark.parametrize(
    ("path", "label"),
    [
        pytest.param(
            path,
            label,
            marks=[pytest.mark.xfail(strict=True, reason=MISSED[path.stem])]
            if path.stem in MISSED
            else [],
        )
        for path, label in LOOPS
    ],
    ids=[f"{p.parent.name}/{p.stem}" for p, _ in LOOPS],
)
def test_a_real_loop_gets_a_word_by_its_turn_and_is_stopped_by_its_last_looping_turn(
    path, label, tmp_path
):
    config = tmp_path / "none.toml"
    config.write_text("")
    result = replay(str(path), config_path=str(config), recorded_time=True)
    words = [d.turn for d in result.decisions if d.kind in ("nudge", "deny", "pause")]
    stops = [d.turn for d in result.decisions if d.kind in ("deny", "pause")]
    assert words and words[0] <= label["by_turn"]
    assert stops and stops[0] <= label["stop_by"]
