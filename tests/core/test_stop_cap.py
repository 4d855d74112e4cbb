"""Claude Code's Stop-hook cap next to arcguard's: clamped to, and its overrides recorded."""

from __future__ import annotations

import json
import os

import pytest
from testing.builders import Transcript
from testing.builders import assistant_entries
from testing.builders import hook_output
from testing.builders import run_hook
from testing.builders import text
from testing.builders import write_transcript

from arcguard.core.arc_keeper.stop import Final
from arcguard.core.arc_keeper.stop import Harness
from arcguard.core.arc_keeper.stop import Signals
from arcguard.core.arc_keeper.stop import claude_stop_cap
from arcguard.core.arc_keeper.stop import consecutive_cap
from arcguard.core.arc_keeper.stop import decide_stop
from arcguard.core.config import default_config
from arcguard.core.display import notices
from arcguard.core.schema import LogEntry
from arcguard.forensics import scan_paths
from tests.core.test_stop import NOW
from tests.core.test_stop import with_arc
from tests.hooks.test_hook_commands import SID
from tests.hooks.test_hook_commands import start_arc
from tests.hooks.test_hook_commands import stop_payload
from tests.reliability import support


CFG = default_config()
NOOP = "No response requested."
OVERRIDE = (
    "A hook blocked the turn from ending 9 consecutive times\u2014overriding and ending turn."
    " For Stop/SubagentStop hooks, check stop_hook_active in the input and return success"
    " while it's true. Set CLAUDE_CODE_STOP_HOOK_BLOCK_CAP to raise this limit."
)


@pytest.mark.parametrize(
    ("raw", "cap"), [(None, 8), ("3", 3), (" 0 ", 0), ("-1", 8), ("x", 8), ("", 8)]
)
def test_claude_codes_cap_as_its_variable_sets_it(raw, cap):
    assert claude_stop_cap(raw) == cap


def test_arcguard_stops_short_of_claude_codes_cap():
    assert consecutive_cap(2, 8) == 2
    assert consecutive_cap(2, 1) == 1
    assert consecutive_cap(2, 0) == 2  # no cap


def _stops(harness, n=3):
    state, outs = with_arc(), []
    for i in range(n):
        out, new = decide_stop(
            state,
            Signals(Final.from_text(NOOP), stop_hook_active=i > 0, harness=harness),
            CFG,
            NOW,
        )
        outs.append(out)
        state = new or state
    return outs, state


def test_a_lower_claude_cap_clamps_the_run_of_continuations():
    outs, state = _stops(Harness(stop_cap=1))
    assert [o is not None for o in outs] == [True, False, False]
    assert "Claude Code's Stop-hook cap (1 in a row) reached" in state["log"][1]["reason"]


def test_an_override_in_the_transcript_is_logged_once_as_not_a_completion():
    _, state = _stops(Harness(overrides=["w2", "w1"]), n=2)
    kinds = [e["kind"] for e in state["log"]]
    assert kinds.count("overridden") == 2 and state["seen"]["overrides"] == ["w1", "w2"]
    assert "it did not complete" in state["log"][0]["reason"]
    assert _user_line([state["log"][0]], CFG) is None  # recorded, not an action


def test_the_stop_hook_reads_the_cap_from_the_environment(tmp_path):
    start_arc()
    path = write_transcript(tmp_path / "t.jsonl", assistant_entries(text(NOOP), version="2.1.328"))
    env = {"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "1"}
    first = hook_output(run_hook("stop", stop_payload(path, NOOP), env=env))
    second = hook_output(run_hook("stop", stop_payload(path, NOOP, active=True), env=env))
    assert first is not None and "hookSpecificOutput" in first
    assert second is None or "hookSpecificOutput" not in second


def test_a_release_without_the_cap_is_not_clamped(tmp_path):
    start_arc()
    path = write_transcript(tmp_path / "t.jsonl", assistant_entries(text(NOOP), version="2.1.142"))
    env = {"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "1"}
    hook_output(run_hook("stop", stop_payload(path, NOOP), env=env))
    second = hook_output(run_hook("stop", stop_payload(path, NOOP, active=True), env=env))
    assert second is not None and second["decision"] == "block"


def test_the_stop_hook_records_an_override_it_finds(tmp_path):
    start_arc()
    warning = {
        "type": "system",
        "subtype": "informational",
        "level": "warning",
        "content": OVERRIDE,
        "uuid": "warn-1",
    }
    path = write_transcript(
        tmp_path / "t.jsonl", [warning, *assistant_entries(text(NOOP), version="2.1.328")]
    )
    run_hook("stop", stop_payload(path, NOOP))
    run_hook("stop", stop_payload(path, NOOP, active=True))

    log = support.read_state(os.environ["ARCGUARD_HOME"], SID)["log"]
    assert [e["kind"] for e in log].count("overridden") == 1


def test_forensics_counts_turns_the_cap_ended(tmp_path):
    t = Transcript().prompt("ship it").text(NOOP)
    t.other("system", subtype="informational", level="warning", content=OVERRIDE)
    report = scan_paths([str(t.write(tmp_path / "a.jsonl"))], CFG)
    assert report.stop_cap_overrides == 1
    assert json.loads(json.dumps(report.as_dict()))["stop_cap_overrides"] == 1


def _user_line(entries, cfg):
    """`notices.user_line` on log entries as the state file holds them."""
    return notices.user_line([LogEntry.view(entry) for entry in entries], cfg)
