"""Replay can run the hooks on the transcript's own clock, so wall-time rules see the gaps."""

from __future__ import annotations

from testing.builders import Transcript

from arcguard.replay.events import EventBuilder
from arcguard.transcript.records import parse_entry


def _events(t: Transcript):
    builder = EventBuilder.start()
    out = []
    for entry in t.entries:
        out += builder.feed(parse_entry(entry))
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


def test_a_batch_with_a_call_a_hook_denied_still_gets_its_post_tool_batch():
    # Claude Code runs PostToolBatch after a batch whose calls a PreToolUse hook denied
    # (tests/e2e/test_loop_guard.py pins it), with the deny text as the call's response.
    denied = "PreToolUse:Bash hook error: [arcguard] Denied as a repeat"
    t = Transcript().prompt("go")
    t.tools(("Bash", {"command": "ls"}, {"stdout": "a", "stderr": ""}))
    t.tools(("Bash", {"command": "ls"}, denied), error=True)
    events = [e for e in _events(t) if e.event in ("PostToolUse", "PostToolBatch")]
    assert [e.event for e in events] == ["PostToolUse", "PostToolBatch", "PostToolBatch"]
    assert events[-1].fields["tool_calls"][0]["tool_response"] == denied
