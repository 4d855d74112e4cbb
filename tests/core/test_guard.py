"""The loop guard's rules, driven through whole turns of the pure core.

Cycles, the check-in nudge and the operator backstop, then the progress-aware repeat guard.
"""

from __future__ import annotations

import itertools

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import tag
from testing.guard_driver import ticking

from arcguard.core import render
from arcguard.core.config import default_config
from arcguard.core.loop_guard import finished
from arcguard.core.loop_guard import guard
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import repeat
from arcguard.core.tool_call import ToolCall
from arcguard.core.tool_call import ToolResult


_fresh = itertools.count()


def fresh(command: str) -> Call:
    """A call whose output differs every time: never a repeat by outcome."""
    return bash(command, response=f"{command} @{tag(next(_fresh))}")


def idle(tag: object) -> Call:
    """A call that shows no progress: read-only, printing nothing."""
    return bash(f"true # {tag}", response="")


def edit(path: str = "/p/a.py", *, changed: bool = True) -> Call:
    response = {
        "filePath": path,
        "oldString": "a",
        "newString": "b",
        "originalFile": "a",
        "structuredPatch": [{"lines": ["-a", "+b"]}] if changed else [],
        "userModified": False,
        "replaceAll": False,
    }
    return Call(
        "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, response=response
    )


def timeout_call(command: str, timeout: int, *, timed_out: bool = True) -> Call:
    if timed_out:
        return bash(
            command,
            input={"timeout": timeout},
            error=f"Exit code 143\nCommand timed out after {timeout // 1000}s",
            duration_ms=timeout + 13,
        )
    return bash(command, input={"timeout": timeout})


# --- cycles ----------------------------------------------------------------------------------


def test_five_identical_tool_only_turns_pause_as_the_same_call():
    d = Driver()
    for n in range(1, 6):
        result = d.turn(ticking("poll"))
        assert (result["paused"] is not None) == (n == 5)
    assert d.paused["kind"] == "cycle"
    assert "the same call 5 times" in d.paused["reason"]
    assert "Send a message to resume" in d.paused["reason"]


RUN_FIELDS = ("fingerprints", "fresh", "streak", "checkin_done", "labels")


def _run(driver):
    return {key: driver.main.get(key) for key in RUN_FIELDS}


@pytest.mark.parametrize(
    ("text", "meaning"),
    [("Checking the other module.", "narrated"), ("", "tool-only"), (None, "unreadable")],
)
def test_a_turn_settled_late_ends_as_if_its_message_had_been_known(text, meaning):
    # The message of a quick turn is often not on disk when its batch runs: the turn is kept
    # pending, and settled at a later batch. Settled, it leaves the run as knowing the
    # message at once would have.
    known, late = Driver(), Driver()
    for d in (known, late):
        d.turn(idle("a"))
        d.turn(idle("b"))
    known.turn(idle("c"), text=text)
    before = _run(late)
    late.turn(idle("c"), late=True)
    assert len(late.main["pending"]) == 1 and _run(late) == before
    late.settle(text)
    assert "pending" not in late.main
    assert _run(late) == _run(known), meaning


def test_turns_settled_several_at_once_end_as_if_each_had_been_known():
    texts = ["", "Now the tests.", "", "", "Now the tests.", None]
    known, late = Driver(), Driver()
    for n, text in enumerate(texts):
        known.turn(idle("ab"[n % 2]), text=text)
        late.turn(idle("ab"[n % 2]), late=True)
    assert len(late.main["pending"]) == len(texts)
    late.settle(*texts[:2])
    assert len(late.main["pending"]) == len(texts) - 2
    late.settle(*texts[2:])
    assert _run(late) == _run(known)
    assert late.main["narrations"] == known.main["narrations"]


def test_a_late_turns_decision_takes_every_pending_turn_as_tool_only():
    d = Driver()
    for n in range(5):
        result = d.turn(idle("ab"[n % 2]), late=n >= 3)
        assert result["paused"] is None
    result = d.turn(idle("b"), late=True)
    # The core reports the pause the guesses lead to; the hook then waits for the messages
    # rather than act on a guess (tests/hooks/test_turn_fallback.py).
    assert result["paused"] is not None and len(d.main["pending"]) == 3


def test_a_turn_read_at_its_batch_settles_every_earlier_one_still_missing_as_unknown():
    d = Driver()
    d.turn(idle("a"))
    d.turn(idle("b"), late=True)
    d.turn(idle("a"), text="")
    assert "pending" not in d.main
    assert d.main["streak"] == 2 and len(d.main["fingerprints"]) == 2


def test_turns_whose_message_cannot_be_read_count_toward_no_cycle_or_run():
    d = Driver(checkin_turns=3)
    for _ in range(12):
        result = d.turn(fresh("poll"), text=None)
        assert result["context"] == []
    assert d.paused is None
    assert d.main["streak"] == 0 and d.main["fingerprints"] == []


def test_an_unreadable_turn_does_not_end_a_run_either():
    d = Driver()
    for _ in range(4):
        d.turn(ticking("poll"))
    d.turn(ticking("poll"), text=None)
    assert d.paused is None
    d.turn(ticking("poll"))
    assert d.paused["kind"] == "cycle"


def test_a_cycle_with_changing_results_is_never_called_without_progress():
    # Two answers in turn: the second pass brings one never seen, the later ones do not.
    d = Driver()
    for n in range(5):
        d.turn(bash("poll", response=f"poll {tag(n % 2)}"))
    assert d.paused["kind"] == "cycle"
    assert "without progress" not in d.paused["reason"]
    assert "changing results" in d.paused["reason"]


def test_a_probe_showing_a_new_pid_each_time_still_pauses_as_a_cycle():
    # A look's new answer alone is no news for the cycle rule: `ps` prints a new pid.
    d = Driver()
    for n in range(5):
        d.turn(bash("ps aux | grep worker", response=f"dev {48001 + 2 * n} python worker.py"))
    assert d.paused is not None and d.paused["kind"] == "cycle"


def test_a_cycle_with_the_same_results_says_without_progress():
    d = Driver(repeat_limit=100)
    for _ in range(5):
        d.turn(bash("poll", response="same"))
    assert d.paused["kind"] == "cycle"
    assert "without progress" in d.paused["reason"]


def test_four_identical_polls_then_varied_work_never_pause():
    d = Driver()
    for _ in range(4):
        d.turn(fresh("poll"))
    for n in range(30):
        d.turn(fresh(f"work {n}"))
    assert d.paused is None


def test_alternating_pair_pauses_at_turn_six_with_cycle_wording():
    d = Driver()
    for n in range(1, 201):
        d.turn(ticking("A") if n % 2 else ticking("B"))
        if d.paused:
            break
    assert n == 6
    assert "a 2-call cycle 3 times" in d.paused["reason"]


def test_a_cycle_and_blocked_rounds_due_on_one_turn_pause_once_as_the_cycle():
    # A,B with the same results: the sixth turn completes the cycle and, with a threshold of
    # two, its second round with a denial; one pause, named for what looped.
    d = Driver(blocked_rounds_pause=2)
    for n in range(1, 13):
        d.turn(bash("echo A" if n % 2 else "echo B", response="same"))
        if d.paused:
            break
    assert n == 6 and d.paused["kind"] == "cycle"
    assert [e["kind"] for e in d.state["log"]].count("pause") == 1


def test_three_call_rotation_pauses_by_turn_nine():
    d = Driver()
    for n in range(1, 13):
        d.turn(ticking("ABC"[n % 3]))
        if d.paused:
            break
    assert n == 9
    assert "a 3-call cycle 3 times" in d.paused["reason"]


@pytest.mark.parametrize(
    "pattern",
    [
        [f"r{i}" for i in range(9)],  # a 9-rotation: beyond the longest period
        ["a", "b", "a", "b", None],  # phase broken by a unique call every fifth turn
    ],
)
def test_long_or_broken_cycles_are_left_to_the_backstop(pattern):
    d = Driver(repeat_limit=10_000)
    for n in range(1, 201):
        name = pattern[(n - 1) % len(pattern)] or f"unique {n}"
        result = d.turn(idle(name))
        if n < 200:
            assert result["paused"] is None, n
        if n == 100:
            assert any("progress summary" in c for c in result["context"])
    assert d.paused["kind"] == "backstop"
    assert "cycle" not in d.paused["reason"]


def test_a_long_varied_productive_streak_is_not_paused():
    d = Driver()
    for n in range(99):
        assert d.turn(fresh(f"step {n}"))["paused"] is None
    assert d.paused is None


def test_history_holds_at_most_forty_fingerprints_and_still_detects():
    d = Driver()
    for n in range(60):
        d.turn(fresh(f"u{n}"))
    assert len(d.main["fingerprints"]) == 40
    for n in range(6):
        d.turn(ticking("AB"[n % 2]))
    assert d.paused["kind"] == "cycle"


def test_narration_clears_the_cycle_history_but_not_the_backstop():
    d = Driver()
    for _ in range(4):
        d.turn(fresh("poll"))
    d.turn(fresh("poll"), text="Still waiting for the build.")
    for _ in range(4):
        d.turn(fresh("poll"))
    assert d.paused is None
    assert d.main["turns"] == 9


def test_narration_does_not_reset_the_backstop():
    d = Driver()
    nudged = paused = None
    for n in range(1, 260):
        result = d.turn(idle(n), text="note" if n % 55 == 0 else "")
        if result["context"] and nudged is None and "progress summary" in result["context"][0]:
            nudged = n
        if result["paused"]:
            paused = n
            break
    assert (nudged, paused) == (100, 200)


# --- check-in nudge and backstop ---------------------------------------------------------------


def test_check_in_nudge_fires_once_at_twenty_five_and_never_pauses():
    d = Driver()
    contexts = [d.turn(idle(f"s{n}"))["context"] for n in range(1, 61)]
    fired = [n for n, c in enumerate(contexts, 1) if c]
    assert fired == [25]
    assert "summarise" in contexts[24][0]
    assert d.paused is None


def test_backstop_nudges_at_one_hundred_and_pauses_at_two_hundred():
    d = Driver()  # narration keeps every tool-only run short of a check-in
    seen = {}
    for n in range(1, 201):
        result = d.turn(idle(n), text="progress note" if n % 3 == 0 else "")
        if result["context"]:
            seen.setdefault("nudge", n)
        if result["paused"]:
            seen["pause"] = n
    assert seen == {"nudge": 100, "pause": 200}
    assert "200 turns without a message from you" in d.paused["reason"]


def test_an_active_arc_raises_the_backstop_pause_to_its_own_threshold():
    d = Driver()  # narration keeps every tool-only run short of a check-in
    for n in range(1, 601):
        result = d.turn(idle(n), text="note" if n % 2 else "", arc_active=True)
        if n < 600:
            assert result["paused"] is None, n
    assert d.paused["kind"] == "backstop"


def test_operator_message_resets_backstop_pause_and_history():
    d = Driver(checkin_turns=10_000)
    for round_ in range(5):
        for n in range(80):
            d.turn(fresh(f"r{round_} w{n}"), text="x" if n % 2 else "")
        d.operator()
    assert d.paused is None
    for _ in range(5):
        d.turn(ticking("poll"))
    assert d.paused["kind"] == "cycle"
    d.operator()
    assert d.paused is None
    assert d.main["fingerprints"] == [] and d.main["turns"] == 0


# --- the repeat guard (outcome-aware) ---------------------------------------------------------


def test_third_identical_call_with_the_same_outcome_is_denied():
    d = Driver()
    assert not d.turn(bash("cat f"))["denied"]
    assert not d.turn(bash("cat f"))["denied"]
    result = d.turn(bash("cat f"))
    assert result["denied"]
    reason = result["outputs"][0][0].text
    assert "[arcguard] Denied as a repeat" in reason and "Bash: cat f" in reason
    assert "ran 2 times" in reason


READINGS = (
    "First look at the clock.",
    "The clock moved on.",
    "A new minute already.",
    "Still changing, as expected.",
    "Different again.",
    "Once more it moved.",
    "Another reading arrived.",
    "That is the last one.",
)


def test_a_changed_outcome_lets_the_call_run_again():
    d = Driver()
    for n in range(8):
        assert not d.turn(fresh("date"), text=READINGS[n])["denied"], n


def test_edit_then_retest_is_allowed_once():
    d = Driver()
    d.turn(bash("pytest", response="1 failed"))
    d.turn(bash("pytest", response="1 failed"))
    assert d.turn(bash("pytest", response="1 failed"))["denied"]
    d.turn(edit())
    assert not d.turn(bash("pytest", response="1 failed"))["denied"]
    assert d.turn(bash("pytest", response="1 failed"))["denied"]
    d.turn(edit("/p/b.py"))  # another edit renews the permission
    assert not d.turn(bash("pytest", response="1 failed"))["denied"]


def test_a_file_written_from_the_shell_lets_a_test_check_it_once():
    d = Driver()
    d.turn(bash("pytest", response="1 failed"))
    d.turn(bash("pytest", response="1 failed"))
    for n in range(3):
        d.turn(bash(f"sed -i 's/TTL = {n}/TTL = {n + 1}/' app/cache.py"))
        assert not d.turn(bash("pytest", response="1 failed"))["denied"], n
    assert d.turn(bash("pytest", response="1 failed"))["denied"]  # no write since


def test_a_command_that_only_may_change_things_lets_no_test_run_again():
    d = Driver()
    d.turn(bash("pytest", response="1 failed"))
    d.turn(bash("pytest", response="1 failed"))
    d.turn(bash("pip install -e ."))
    assert d.turn(bash("pytest", response="1 failed"))["denied"]


def test_writes_from_the_shell_excuse_no_other_write_from_the_shell():
    d = Driver()
    calls = [bash("echo A >> runs.txt"), bash("echo B >> runs.txt")] * 2
    for call in calls:
        d.turn(call)
    assert d.turn(bash("echo A >> runs.txt"))["denied"]
    d.turn(edit())  # an edit tool's edit may be checked by any command, a writer too
    assert not d.turn(bash("echo A >> runs.txt"))["denied"]


def test_an_identical_content_overwrite_earns_nothing():
    d = Driver()
    for _ in range(2):
        d.turn(Call("Read", {"file_path": "/p/a"}, response={"file": "same"}))
    same = Call(
        "Write",
        {"file_path": "/p/a", "content": "x"},
        response={
            "type": "update",
            "filePath": "/p/a",
            "content": "x",
            "originalFile": "x",
            "structuredPatch": [],
        },
    )
    d.turn(same)
    assert d.state["guard"]["edit_seq"] == 0
    assert d.turn(Call("Read", {"file_path": "/p/a"}, response={"file": "same"}))["denied"]


def test_write_tools_and_other_tools_get_no_validation():
    d = Driver()
    fetch = Call("WebFetch", {"url": "https://e.example/x"}, response="page")
    d.turn(fetch)
    d.turn(fetch)
    d.turn(edit())
    assert d.turn(fetch)["denied"]


def test_timeout_drift_shares_one_identity():
    d = Driver()
    assert not d.turn(bash("make", input={"timeout": 10_000}, response="ok"))["denied"]
    assert not d.turn(bash("make", input={"timeout": 11_000}, response="ok"))["denied"]
    assert d.turn(bash("make", input={"timeout": 12_000}, response="ok"))["denied"]


def test_two_real_timeouts_allow_one_larger_attempt_and_no_more():
    d = Driver()
    d.turn(timeout_call("slow", 1000))
    d.turn(timeout_call("slow", 2000))
    assert d.turn(timeout_call("slow", 2000))["denied"]  # not larger: no recovery
    assert not d.turn(timeout_call("slow", 5000))["denied"]  # the one recovery
    assert d.turn(timeout_call("slow", 9000))["denied"]  # spent


def test_a_timeout_claimed_by_the_command_is_not_a_timeout():
    d = Driver()
    fake = dict(
        input={"timeout": 60_000},
        error="Exit code 124\nCommand timed out after 60s",
        duration_ms=40,
    )
    d.turn(bash("fake", **fake))
    d.turn(bash("fake", **fake))
    assert d.turn(bash("fake", input={"timeout": 120_000}, error=fake["error"], duration_ms=40))[
        "denied"
    ]


@pytest.mark.parametrize(
    "error",
    [
        "Exit code 1\nCommand timed out after 60s",  # the command's own words and exit code
        "Exit code 143\nCommand timed out after 60s\nretrying",  # not the last line
        "Exit code 143\nCommand timed out after 60s; giving up",
        "Exit code 1\nbuild log\nCommand timed out after 60s\nExit code 143",
        "Command timed out after 60s",
    ],
)
def test_timeout_words_printed_by_the_command_earn_no_timeout_recovery(error):
    d = Driver()
    slow = dict(input={"timeout": 60_000}, error=error, duration_ms=60_013)
    d.turn(bash("fake", **slow))
    d.turn(bash("fake", **slow))
    assert d.turn(bash("fake", input={"timeout": 120_000}))["denied"]


@pytest.mark.parametrize(
    "error",
    [
        "Exit code 143\nCommand timed out after 1s",
        "Exit code 143\npartial output\nCommand timed out after 2m 30s",
    ],
)
def test_the_harness_timeout_shape_is_recognised(error):
    assert opkey.is_harness_timeout(error)


def test_a_timeout_above_the_bash_maximum_buys_nothing():  # 4.3 #7
    d = Driver()
    d.turn(timeout_call("slow", 600_000))
    d.turn(timeout_call("slow", 600_000))
    assert d.turn(bash("slow", input={"timeout": 900_000}))["denied"]


@pytest.mark.parametrize("name", ["bash", "mcp__shell__Bash", "Shell"])
def test_a_tool_named_like_bash_keeps_its_timeout_in_its_identity(name):
    d = Driver()
    for timeout in (10, 11, 12):
        call = Call(name, {"command": "make", "timeout": timeout}, response="ok")
        assert not d.turn(call)["denied"]


def test_quoting_keeps_commands_distinct():
    d = Driver()
    for command in ["echo '$X'", 'echo "$X"', "echo '$X'", 'echo "$X"']:
        assert not d.turn(bash(command, response="same"))["denied"]


def test_three_blocked_turns_pause_even_with_fresh_noop_calls():
    d = Driver()
    d.turn(bash("probe"))
    d.turn(bash("probe"))
    for n in range(1, 4):
        result = d.turn(bash("probe"), bash("probe"), bash(f"true # {n}", response=""))
        assert d.main["blocked_rounds"] == n or result["paused"]
    assert d.paused["kind"] == "blocked"
    assert "3 turns in a row" in d.paused["reason"]


def test_a_fresh_result_each_turn_keeps_the_blocked_count_at_zero():
    d = Driver()
    d.turn(bash("probe"))
    d.turn(bash("probe"))
    for n in range(6):
        d.turn(
            bash("probe"),
            Call("Read", {"file_path": "/log", "offset": n * 100}, response={"page": tag(n)}),
        )
        assert d.main["blocked_rounds"] == 0
    assert d.paused is None


def test_parallel_identical_calls_in_one_turn_run_twice_at_most():
    d = Driver()
    result = d.turn(bash("ls"), bash("ls"), bash("ls"))
    assert len(result["denied"]) == 1


def test_a_late_or_duplicate_result_changes_nothing():
    d = Driver()
    cfg, now = d.cfg, d.now
    before = d.state
    call = ToolCall("Bash", {"command": "x"}, "toolu_never_reserved")
    _, after = finished.decide_post_tool(
        before, cfg, now, call, ToolResult(response={"stdout": "x"})
    )
    assert after["guard"]["tracks"]["main"]["ops"] == {}
    d.turn(bash("ls"))
    op = next(iter(d.main["ops"].values()))
    owner = op["runs"][-1]["owner"]
    _, again = finished.decide_post_tool(
        d.state,
        cfg,
        now,
        ToolCall("Bash", {"command": "ls"}, owner),
        ToolResult(response={"stdout": "different"}),
    )
    assert again["guard"]["tracks"]["main"]["ops"] == d.main["ops"]


def test_operation_records_stay_bounded_and_evict_resolved_ones_first():
    d = Driver(max_operations=5)
    for n in range(12):
        d.turn(fresh(f"op {n}"))
    assert len(d.main["ops"]) == 5


def test_calls_inside_a_subagent_are_tracked_on_their_own():
    d = Driver()
    for n in range(6):
        d.turn(fresh("A"), agent_id="agent1" if n % 2 else None)
    assert d.paused is None
    assert set(d.state["guard"]["tracks"]) == {"main", "agent:agent1"}


def test_allow_listed_polls_are_never_denied_nor_form_cycles():
    d = Driver(allow=("Bash(gh run view *)",))
    for _ in range(10):
        assert not d.turn(bash("gh run view 42"))["denied"]
    assert d.paused is None


def test_a_paused_session_denies_and_stops_at_the_next_call():
    d = Driver()
    for _ in range(5):
        d.turn(ticking("poll"))
    out, after = repeat.decide_pre_tool(
        d.state, d.cfg, d.now, ToolCall("Bash", {"command": "new"}, "t")
    )
    assert out is not None and {type(d) for d in out} == {render.Deny, render.Pause}
    assert after["guard"]["paused"]["denied_since"] == 1


def test_the_core_never_mutates_the_state_it_was_given():
    d = Driver()
    d.turn(bash("ls"))
    import copy

    before = copy.deepcopy(d.state)
    repeat.decide_pre_tool(
        d.state, default_config(), d.now, ToolCall("Bash", {"command": "ls"}, "x")
    )
    turn = guard.TurnEnd(True, calls=[ToolCall("Bash", {})])
    guard.decide_post_batch(d.state, default_config(), d.now, turn, arc_active=False)
    assert d.state == before


def test_after_a_compaction_each_operation_may_run_once_more():
    from arcguard.core.arc_keeper.lifecycle import decide_session_start

    d = Driver()
    read = Call("Read", {"file_path": "/p/a"}, response={"file": "same"})
    d.turn(read)
    d.turn(read)
    assert d.turn(read)["denied"]
    turns_before = d.main["turns"]
    _, d.state = decide_session_start(d.state, "compact", d.cfg, d.now, command="arcguard")
    assert d.main["turns"] == turns_before  # compaction resets nothing
    assert not d.turn(read)["denied"]  # but what the model saw is gone: one re-read
    assert d.turn(read)["denied"]


def test_a_change_that_answers_as_before_between_denied_retries_keeps_the_blocked_count():
    # Reformatting that reformats nothing, between retries of a denied failing lint, moved
    # nothing: the rounds of denials add up to a pause. Without it, each reformat looked like
    # progress and the denials went on for ever.
    d = Driver()
    d.turn(bash("make fmt", response="0 files reformatted"))
    lint = Call("Bash", {"command": "make lint"}, error="Exit code 1\napp.go:3:2: undefined: foo")
    d.turn(lint)
    d.turn(lint)
    for spelling in ("make format", "gofmt -l -w ."):
        assert d.turn(lint)["denied"]
        d.turn(bash(spelling, response="0 files reformatted"))
    d.turn(lint)
    assert d.paused is not None and d.paused["kind"] == "blocked"


def test_a_change_that_prints_something_new_between_denied_retries_resets_the_count():
    d = Driver()
    lint = Call("Bash", {"command": "make lint"}, error="Exit code 1\napp.go:3:2: undefined: foo")
    d.turn(lint)
    d.turn(lint)
    for n in range(3):  # the rounds that would add up to a pause (the 6th attempt pauses anyway)
        assert d.turn(lint)["denied"]
        d.turn(bash(f"go get example.com/dep@v1.{n}", response=f"go: added example.com/dep v1.{n}"))
        assert d.main["blocked_rounds"] == 0
    assert d.paused is None
