"""Each peer's loop rule, re-implemented in benchmarks/, fires on a tiny hand-made session
where that peer's rule says, and not one call before."""

from __future__ import annotations

import sys

from testing.builders import REPO


sys.path.insert(0, str(REPO / "benchmarks"))
import peer_counters
import peer_rules
from peer_sessions import Call
from peer_sessions import Prompt
from peer_sessions import Reply


def bash(turn, command, output="ok", *, error=False, first=True, thought=""):
    return Call(turn, "Bash", {"command": command}, output, error, first, thought)


def same(n, command="make test", output="FAIL", start=1, **kw):
    return [bash(start + i, command, output, **kw) for i in range(n)]


def firsts(hits):
    """(kind, turn) of each hit."""
    return [(h.kind, h.turn) for h in hits]


# --- gemini-cli ----------------------------------------------------------------------------


def test_gemini_warns_at_the_fifth_identical_call_and_halts_at_the_next():
    assert peer_rules.gemini(same(4)) == []
    assert firsts(peer_rules.gemini(same(5))) == [("warn", 5)]
    assert firsts(peer_rules.gemini(same(8))) == [("warn", 5), ("stop", 6)]


def test_gemini_sees_a_two_call_cycle_at_ten_calls():
    cycle = [bash(n + 1, "make" if n % 2 else "make test") for n in range(10)]
    assert peer_rules.gemini(cycle[:9]) == []
    assert firsts(peer_rules.gemini(cycle)) == [("warn", 10)]


def test_gemini_forgets_on_a_new_prompt():
    items = [*same(4), Prompt(5), *same(4, start=6)]
    assert peer_rules.gemini(items) == []


def test_gemini_hears_chanting_in_a_reply():
    sentence = "I will now check the build output again to be sure. "
    assert peer_rules.gemini([Reply(1, sentence * 3)]) == []
    assert firsts(peer_rules.gemini([Reply(1, sentence * 12)])) == [("warn", 1)]


def test_gemini_does_not_count_chanting_inside_a_code_block():
    sentence = "I will now check the build output again to be sure. "
    assert peer_rules.gemini([Reply(1, "```\n" + (sentence + "\n") * 12 + "```\n")]) == []


# --- OpenHands -----------------------------------------------------------------------------


def test_openhands_v1_stops_at_four_equal_actions_and_observations():
    assert peer_rules.openhands_v1(same(3)) == []
    assert firsts(peer_rules.openhands_v1(same(4))) == [("stop", 4)]


def test_openhands_v1_counts_the_narration_as_part_of_the_action():
    calls = [bash(n + 1, "make test", "FAIL", thought=f"Attempt {n}.") for n in range(6)]
    assert peer_rules.openhands_v1(calls) == []


def test_openhands_v1_nudges_at_three_errors_of_one_action_and_stops_at_four():
    def miss(turn):
        return Call(turn, "Edit", {"file_path": "a.py"}, f"<tool_use_error>miss {turn}", True, True)

    assert peer_rules.openhands_v1([miss(1), miss(2)]) == []
    assert firsts(peer_rules.openhands_v1([miss(1), miss(2), miss(3)])) == [("warn", 3)]
    hits = peer_rules.openhands_v1([miss(1), miss(2), miss(3), miss(4)])
    assert firsts(hits) == [("warn", 3), ("stop", 4)]


def test_openhands_v1_stops_a_monologue_of_three_messages():
    items = [Prompt(0), Reply(1, "a"), Reply(2, "b")]
    assert peer_rules.openhands_v1(items) == []
    assert firsts(peer_rules.openhands_v1([*items, Reply(3, "c")])) == [("stop", 3)]


def test_openhands_v0_compares_a_command_by_its_exit_code_only():
    calls = [bash(n + 1, "make test", f"Exit code 2\nrun {n}", error=True) for n in range(4)]
    assert peer_rules.openhands_v0(calls[:3]) == []
    assert firsts(peer_rules.openhands_v0(calls)) == [("stop", 4)]
    assert peer_rules.openhands_v1(calls) == []  # V1 compares the whole output


def test_openhands_v0_stops_an_alternation_at_the_sixth_call():
    calls = [bash(n + 1, "a" if n % 2 else "b", f"{n % 2}") for n in range(6)]
    assert peer_rules.openhands_v0(calls[:5]) == []
    assert firsts(peer_rules.openhands_v0(calls)) == [("stop", 6)]


# --- opencode, crush, Cline, Roo Code, OpenClaw ---------------------------------------------


def test_opencode_sees_only_three_identical_calls_in_one_message():
    one_message = [bash(1, "ls", first=n == 0) for n in range(3)]
    assert peer_counters.opencode(one_message[:2]) == []
    assert firsts(peer_counters.opencode(one_message)) == [("stop", 1)]
    assert peer_counters.opencode(same(10)) == []


def test_opencode_as_documented_stops_the_third_identical_call_in_a_row():
    assert peer_counters.opencode_docs(same(2)) == []
    assert firsts(peer_counters.opencode_docs(same(3))) == [("stop", 3)]


def test_crush_stops_at_the_tenth_step_when_one_step_recurs_six_times():
    assert peer_counters.crush(same(9)) == []
    assert firsts(peer_counters.crush(same(10))) == [("stop", 10)]
    with_reply = [*same(5), Reply(6, "done"), *same(9, start=7)]
    assert peer_counters.crush(with_reply) == []


def test_cline_warns_at_three_identical_calls_and_stops_at_five_across_prompts():
    items = [*same(3), Prompt(4), *same(2, start=5)]
    assert firsts(peer_counters.cline(items[:3])) == [("warn", 3)]
    assert firsts(peer_counters.cline(items[:5])) == [("warn", 3)]
    assert firsts(peer_counters.cline(items)) == [("warn", 3), ("stop", 6)]


def test_cline_stops_at_three_turns_whose_calls_all_failed_validation():
    def bad(turn):
        return Call(turn, "Read", {"n": turn}, "<tool_use_error>InputValidationError", True, True)

    assert peer_counters.cline([bad(1), bad(2)]) == []
    assert firsts(peer_counters.cline([bad(1), bad(2), bad(3)])) == [("stop", 3)]
    failing_commands = same(3, output="Exit code 1\nFAIL", error=True, command="x")
    assert firsts(peer_counters.cline(failing_commands)) == [("warn", 3)]


def test_roo_refuses_the_fourth_identical_call_even_after_a_prompt():
    assert peer_counters.roo(same(3)) == []
    items = [*same(2), Prompt(3), *same(2, start=4)]
    assert firsts(peer_counters.roo(items)) == [("stop", 5)]


def test_openclaw_warns_after_ten_identical_calls_and_blocks_at_twenty_unchanged():
    assert peer_counters.openclaw(same(10)) == []
    assert firsts(peer_counters.openclaw(same(11))) == [("warn", 11)]
    hits = peer_counters.openclaw(same(22))
    assert firsts(hits) == [("warn", 11), ("stop", 21), ("stop", 22)]
    assert not hits[-1].halts  # a block refuses the call; the run goes on


def test_openclaw_does_not_block_calls_whose_outcome_moves():
    moving = [bash(n + 1, "curl /health", f"uptime {n}") for n in range(25)]
    assert all(h.kind == "warn" for h in peer_counters.openclaw(moving))


def test_until_halt_keeps_the_hits_up_to_the_first_that_ends_the_run():
    hits = [peer_rules.warn(1, "a"), peer_rules.stop(2, "b"), peer_rules.stop(3, "c")]
    assert peer_rules.until_halt(hits) == hits[:2]
