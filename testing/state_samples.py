"""State files as a release of arcguard writes them, for the format tests.

    python -m testing.state_samples [OUT_DIR]

Each sample transcript (of the labelled recall suite: loops denied and paused, polls, an arc
sent back to work and released) is replayed through the real hooks, the clock following its
timestamps so that every run writes the same thing, and the session's state file is read
after each hook event. Every distinct state is kept, in order, in `OUT_DIR/NAME.json`
(default `tests/fixtures/state-format/`). Run with an earlier release's code on the path
(`PYTHONPATH=<its src>`) to write what that release wrote: `tests/core/test_state_format.py`
then checks that this version reads those files and, replaying the same transcripts, writes
the very same documents.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "tests" / "fixtures" / "recall"
OUT = REPO / "tests" / "fixtures" / "state-format"
CWD = "/replayed"
# (transcript, replayed as if its first prompt had started an arc)
SAMPLES = (
    ("go-build-failure.jsonl", False),
    ("cycle-narrated.jsonl", False),
    ("subagent-probe.jsonl", False),
    ("repeated-question.jsonl", False),
    ("stall-waiting.jsonl", True),
    ("compound-completion.jsonl", True),
)


def states(path: Path, arc: bool) -> list[object]:
    """The distinct states the session's file held after each event, in order."""
    from arcguard.replay import replay
    from arcguard.replay import replayer
    from arcguard.storage import store

    found: list[object] = []
    reading = replayer._log

    def read_too(home: str, session_id: str) -> object:
        state = store.read_session(home, session_id)
        if state is not None:
            kept = json.loads(json.dumps(state))
            if "cwd" in kept:
                kept["cwd"] = CWD  # a replay runs in a temporary folder of its own
            if not found or found[-1] != kept:
                found.append(kept)
        return reading(home, session_id)

    replayer._log = read_too  # type: ignore[assignment]
    try:
        replay(str(path), arc=arc, recorded_time=True)
    finally:
        replayer._log = reading
    return found


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else OUT
    out.mkdir(parents=True, exist_ok=True)
    for name, arc in SAMPLES:
        written = states(SUITE / name, arc)
        target = out / name.replace(".jsonl", ".json")
        target.write_text(json.dumps({"arc": arc, "states": written}) + "\n")
        print(f"{target}: {len(written)} states")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
