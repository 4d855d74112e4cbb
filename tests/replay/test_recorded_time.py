"""Replay can run the hooks on the transcript's own clock, so wall-time rules see the gaps."""

from __future__ import annotations

import json

from testing.builders import Transcript
from testing.cli import invoke

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


def _never_ending_poll(polls: int = 40) -> Transcript:
    """A CI poll that sleeps a minute and gets the same answer every time, for 40 minutes."""
    t = Transcript(start=1_780_000_000).prompt("wait for CI, then merge")
    for _ in range(polls):
        t.clock += 60
        t.bash("sleep 60; gh run view 4242 --json status", '{"status":"in_progress"}')
    return t


def test_the_replay_command_runs_on_the_recorded_clock(tmp_path):
    path = _never_ending_poll().write(tmp_path / "poll.jsonl")
    out = invoke("replay", "--json", str(path))
    doc = json.loads(out.output)
    kinds = [d["kind"] for d in doc["decisions"]]
    # The check-in after 15 minutes of the same answer, the pause 30 minutes in; on the wall
    # clock the whole replay takes a second and neither fires.
    assert kinds == ["nudge", "pause"], kinds
    checkin, pause = (d["reason"] for d in doc["decisions"])
    assert "has shown the same result for 1" in checkin  # 15 minutes or a little more
    assert "a poll" in pause and "same result for 3" in pause  # 30 minutes or a little more
    assert doc["paused_at_turn"] is not None and doc["paused_at_turn"] < 40
    assert doc["clock"] == "recorded"


def test_the_wall_clock_is_still_there_when_asked(tmp_path):
    path = _never_ending_poll().write(tmp_path / "poll.jsonl")
    doc = json.loads(invoke("replay", "--json", "--wall-clock", str(path)).output)
    assert doc["decisions"] == []
    assert doc["clock"] == "wall"


def test_a_rollout_timing_out_again_and_again_is_asked_about_then_paused_on_replay(tmp_path):
    # A wait on a failure: the same timeout, word for word, every four minutes.
    timed_out = (
        'Exit code 1\nWaiting for deployment "api" rollout to finish: 1 out of 3 new replicas '
        "have been updated...\nerror: timed out waiting for the condition"
    )
    t = Transcript(start=1_780_000_000).prompt("roll out v2 to staging and wait until healthy")
    for _ in range(10):
        t.clock += 120
        t.tools(("Bash", {"command": "kubectl rollout status deploy/api --timeout=120s"},
                 timed_out), error=True)  # fmt: skip
        t.clock += 120
        t.bash("sleep 120; kubectl get pvc data", "data Pending gp3")
    doc = json.loads(invoke("replay", "--json", str(t.write(tmp_path / "rollout.jsonl"))).output)
    checkin, pause = (d["reason"] for d in doc["decisions"])
    assert "has been failing the same way for" in checkin
    assert "failed the same way for 3" in pause  # 30 minutes or a little more
