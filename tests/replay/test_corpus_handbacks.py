"""On the calibration corpus replayed with `--arc` under the default stop policy, every stop
that asked the operator for permission or a choice and got only a bare yes is continued.

The stops are found with forensics' handback classification (how the final message handed
the turn back, how the operator answered) and checked against replay's decisions. Only the
files holding such a stop are replayed, to keep the check well under a minute. The per-arc
cap is lifted: it bounds continuations over an arc whatever their class, and a whole
interactive session replayed as one arc spends it early, which would hide what the
classifier recognises; a question after a completion is not judged, the replayed arc being
over. What the cap costs at its default is measured by
`benchmarks/stall_policies.py` and stated in docs/design-decisions.md.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from pathlib import Path

import orjson
import pytest

from arcguard.forensics import lines
from arcguard.replay import replay
from arcguard.replay.events import EventBuilder
from arcguard.replay.events import HookEvent


REPO = Path(__file__).resolve().parents[2]
# The benchmark that states the corpus figures pairs stops with answers; the check uses the
# same code, loaded by path as the script is run.
_spec = importlib.util.spec_from_file_location(
    "stall_policies", REPO / "benchmarks" / "stall_policies.py"
)
assert _spec is not None and _spec.loader is not None
stall_policies = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(stall_policies)
affirmed_questions = stall_policies.affirmed_questions
handbacks = stall_policies.handbacks
steps_of = stall_policies.steps_of


CORPUS = Path(os.environ.get("CALIBRATION_CORPUS") or "/nonexistent")
SHM = Path("/dev/shm")
pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(
        not CORPUS.is_dir(),
        reason="no calibration corpus: set CALIBRATION_CORPUS to a folder of transcripts",
    ),
]


def events_of(path: Path) -> list[HookEvent]:
    """The hook events of a recorded session, without running any hook."""
    builder = EventBuilder.start(arc=True)
    events: list[HookEvent] = []
    with path.open("rb") as handle:
        for raw in lines.read_lines(handle):
            for entry in lines.judge(raw, orjson.loads).entries:
                events += builder.feed(entry)
    return events + builder.finish()


def files_with_affirmed_questions() -> list[Path]:
    return [
        p
        for p in sorted(CORPUS.glob("*.jsonl"))
        if affirmed_questions(handbacks([(e, []) for e in events_of(p)]))
    ]


def test_every_affirmed_permission_question_is_continued(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if SHM.is_dir():
        # The replay's scratch state fsyncs on every hook call; in memory the check runs
        # several times faster on a busy disk, and decides the same.
        monkeypatch.setattr(tempfile, "tempdir", str(SHM))
    config = tmp_path / "config.toml"
    config.write_text('stop_policy = "ask"\nmax_continuations_per_arc = 1000\n')
    files = files_with_affirmed_questions()
    missed, seen = [], 0
    for path in files:
        result = replay(str(path), config_path=str(config), arc=True)
        stops = affirmed_questions(handbacks(steps_of(result)))
        # A completion ends the replayed arc, as it ends a real one: the session's later tasks
        # would each be an arc of their own.
        released = min((d.turn for d in result.decisions if d.kind == "release"), default=None)
        stops = [s for s in stops if released is None or s["turn"] < released]
        seen += len(stops)
        missed += [
            f"{path.name} turn {s['turn']}: {s['kinds']}"
            for s in stops
            if "continue" not in s["kinds"]
        ]
    assert seen >= 15  # the corpus holds 17, 15 of them before a completion: not vacuous
    assert missed == []
