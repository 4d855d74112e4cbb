"""Replay can run the hooks on the transcript's own clock, so wall-time rules see the gaps."""

from __future__ import annotations

from testing.builders import Transcript

from arcguard.replay.events import EventBuilder


def _events(t: Transcript):
    builder = EventBuilder()
    out = []
    for entry in t.entries:
        out += builder.feed(entry)
    return out + builder.finish()


def test_each_event_carries_the_time_of_the_entry_it_precedes():
    t = Transcript(start=1_780_000_000).prompt("go")
    t.clock += 600
    t.bash("ls", "a")
    events = _events(t)
    pre = next(e for e in events if e.event == "PreToolUse")
    first = next(e for e in events if e.event == "SessionStart")
    assert first.at == 1_780_000_005
    assert pre.at is not None and pre.at - first.at > 600


def test_the_clock_never_runs_backwards():
    t = Transcript(start=1_780_000_000).prompt("go").bash("ls", "a")
    t.entries[-1]["timestamp"] = "2020-01-01T00:00:00.000Z"
    t.entries.append({**t.entries[0], "timestamp": "not a time"})
    times = [e.at for e in _events(t) if e.at is not None]
    assert times == sorted(times)
