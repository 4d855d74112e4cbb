"""Shape fingerprints and the staged rules on them: values that change every time, the same
failure under new spellings, returning a file to an earlier content, patient polls."""

from __future__ import annotations

import json

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import fail
from testing.guard_driver import tag
from testing.guard_driver import ticking

from arcguard.core.loop_guard import answers
from arcguard.core.loop_guard import shape
from arcguard.core.tool_call import ToolCall


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("time: 2026-08-06T07:06:45.123Z", "time: 2026-08-07T11:59:02.004Z"),
        ("at 1786000000 (1786000000123 ms)", "at 1786000042 (1786000042999 ms)"),
        ("done in 1.23s, 12ms per item", "done in 10.5s, 7ms per item"),
        (" 10:42:01 up 3 days,  4:12,  load 0.10", " 10:43:17 up 3 days,  4:13,  load 0.25"),
        ("requests=1042 pid=48211 port :8080", "requests=1107 pid=50321 port :41231"),
        ("id 550e8400-e29b-41d4-a716-446655440000", "id 9f1c2a77-0b3e-4d5f-8a9b-1c2d3e4f5a6b"),
        ("commit 3f2a1b9c0d", "commit 77e0aa14f1"),
        # An address in a repr or a crash, where a run loads the same code at another place.
        ("<Broker object at 0x7f3a9c21d0b8>", "<Broker object at 0x7fe6209888e1>"),
        (
            "goroutine 1 [running]: main.f(0xc000012345)",
            "goroutine 1 [running]: main.f(0xC0000A9F10)",
        ),
        ("wrote /tmp/tmp.Xa8fQ2/out.json", "wrote /tmp/tmp.Pq01zz/out.json"),
        ("uptime_s   9", "uptime_s 1234"),
        # An age that crosses a unit boundary is still an age.
        (
            "api-7d9 0/1 CrashLoopBackOff 5 (51s ago) 3m",
            "api-7d9 0/1 CrashLoopBackOff 6 (2m1s ago) 4m12s",
        ),
        ("build took 850ms", "build took 1m2s"),
        ("idle 2h", "idle 3d4h"),
    ],
)
def test_volatile_values_share_a_shape(a, b):
    assert a != b
    assert shape.of_text(a) == shape.of_text(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("status: ok", "status: failed"),
        ("3 passed", "3 failed"),
        ("src/parser.py", "src/writer.py"),
    ],
)
def test_different_words_are_different_shapes(a, b):
    assert shape.of_text(a) != shape.of_text(b)


def test_output_filters_do_not_change_what_a_command_observes():
    probe = "curl -s localhost:8080/status"
    assert shape.observed_command(f"{probe} | tail -n 3 | jq .status") == probe
    assert shape.observed_command(f"{probe} | sed -i s/a/b/ f") != probe
    assert shape.observed_command(f"{probe} || echo down") == f"{probe} || echo down"
    assert shape.call_shape(
        ToolCall("Bash", {"command": f'echo "check 4"; {probe} | tail -n 2'})
    ) == (shape.call_shape(ToolCall("Bash", {"command": f'echo "check 9"; {probe} | head -5'})))


def probe(n: int) -> Call:
    body = json.dumps({"status": "ok", "time": f"2026-08-06T07:{n % 60:02d}:00Z", "n": n})
    return bash("curl -s localhost:8080/health", response=body)


def nudges(result: dict[str, object]) -> list[str]:
    return [str(c) for c in result["context"]]  # type: ignore[attr-defined]


# The cycle rule would pause these loops first; the shape rule is looked at on its own.
NO_CYCLES = {"cycle_repeats_identical": 1000, "cycle_repeats": 1000}


def test_a_probe_whose_output_changes_every_time_is_checked_in_on_then_paused():
    d = Driver(**NO_CYCLES)
    asked = paused = None
    for n in range(40):
        result = d.turn(probe(n), text="Checking again." if n % 2 else "")
        assert not result["denied"]  # not an exact repeat: never denied
        if asked is None and nudges(result):
            asked = n
        if result["paused"]:
            paused = n
            break
    # The first probe is new; each later one repeats its shape.
    assert asked == 8
    assert paused == 12  # a few repeats after the request, as a failure's pause comes
    assert d.paused is not None and d.paused["kind"] == "stuck"


def test_real_progress_resets_the_shape_count():
    d = Driver(**NO_CYCLES)
    for n in range(30):
        if n % 6 == 5:
            d.turn(bash(f"touch out-{tag(n)}"))  # may have changed the world, a new call
        result = d.turn(probe(n), text="Still up.")
        assert not nudges(result) and not result["paused"]


def test_a_benchmark_rerun_five_times_is_left_alone():
    d = Driver()
    for n in range(5):
        timing = f"mean {1.5 + n / 10:.2f} s"
        result = d.turn(bash("python bench.py", response=timing), text="Once more.")
        assert not result["denied"] and not nudges(result) and not result["paused"]


FAILURE = "Exit code 1\nFAIL tests/retry.test.js ({ms} ms)\n  Expected: 3\n  Received: 4\n"
SPELLINGS = ("npx jest", "npm test", "npx jest --ci", "npm run test -- --runInBand")


def failing(n: int) -> Call:
    command = SPELLINGS[n % len(SPELLINGS)]
    return bash(command, error=FAILURE.format(ms=10 + n))


def test_the_same_failure_under_new_spellings_is_checked_in_on_then_paused():
    d = Driver()
    seen = []
    for n in range(12):
        result = d.turn(failing(n))
        seen.append(("nudge" if nudges(result) else "") + ("pause" if result["paused"] else ""))
        if result["paused"]:
            break
    assert seen.index("nudge") == 3  # the 4th failure of that shape
    assert seen.index("pause") == 5  # the 6th
    assert d.paused is not None and d.paused["kind"] == "stuck"


def test_parallel_calls_failing_alike_are_one_attempt():
    d = Driver()
    for n in range(3):
        result = d.turn(failing(4 * n), failing(4 * n + 1), failing(4 * n + 2), failing(4 * n + 3))
        assert not nudges(result)


def test_parallel_calls_failing_alike_with_another_failure_between_are_one_attempt():
    # A lint and a check failing alike, a test failing otherwise between them: each turn is one
    # attempt at each failure.
    d = Driver()
    lint = "would reformat app/service.py\nOh no!\n1 file would be reformatted."
    redis = "E   redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379."
    asked = []
    for n in range(4):
        calls = (f"make lint # {tag(n)}", f"pytest -q # {tag(n)}", f"make check # {tag(n)}")
        out = d.turn(fail(calls[0], lint), fail(calls[1], redis), fail(calls[2], lint))
        asked.extend(n + 1 for _ in out["context"])
        d.turn(bash(f"black . # {tag(n)}", f"ok {tag(n)}"))
    assert asked == [4]


def test_an_edit_that_moved_the_failure_starts_the_count_again():
    # Each edit changes the value the test receives: what it prints moved, so it was progress.
    d = Driver()
    received = 4
    for n in range(12):
        if n % 3 == 2:
            d.turn(edit_to(f"v{tag(n)}", before=f"v{tag(n - 1)}"))
            received += 10
        command = SPELLINGS[n % len(SPELLINGS)]
        text = FAILURE.format(ms=10 + n).replace("Received: 4", f"Received: {received}")
        result = d.turn(bash(command, error=text))
        assert not nudges(result) and not result["paused"]


def edit_to(after: str, *, before: str, path: str = "/p/config.py") -> Call:
    response = {
        "filePath": path,
        "oldString": before,
        "newString": after,
        "originalFile": before,
        "structuredPatch": [{"lines": [f"-{before}", f"+{after}"]}],
        "userModified": False,
        "replaceAll": False,
    }
    return Call(
        "Edit", {"file_path": path, "old_string": before, "new_string": after}, response=response
    )


def test_returning_a_file_to_an_earlier_content_is_not_progress():
    d = Driver()
    d.turn(edit_to("RETRIES = 2", before="RETRIES = 3"))
    fresh = d.main["turn"]
    assert d.state["guard"]["edit_seq"] == 1
    d.turn(edit_to("RETRIES = 3", before="RETRIES = 2"), text="That did not help; reverting.")
    assert d.state["guard"]["edit_seq"] == 1  # back where it was: no new content
    d.turn(edit_to("RETRIES = 5", before="RETRIES = 3"))
    assert d.state["guard"]["edit_seq"] == 2
    assert fresh is not None


def test_an_edit_revert_oscillation_is_paused_within_four_round_trips():
    d = Driver()
    turns = 0
    values = ("RETRIES = 3", "RETRIES = 2")
    for n in range(8):
        before, after = values[n % 2], values[(n + 1) % 2]
        say = "Lowering the retries." if n % 2 == 0 else "Reverting."
        d.turn(edit_to(after, before=before), text=say)
        d.turn(bash("npx jest tests/retry.test.js", error=FAILURE.format(ms=n)))
        turns += 2
        if d.paused:
            break
    assert d.paused is not None
    assert turns <= 4 * 4


POLL = "sleep 50; gh run list --limit 1 --json status"


def poll(status: str) -> Call:
    return bash(POLL, response=json.dumps([{"status": status, "updatedAt": "12:01:07"}]))


def test_a_sleeping_poll_is_never_denied_and_waits_ten_minutes_at_least():
    d = Driver()
    for _ in range(13):  # twelve minutes of "in progress", then done
        d.wait(60)
        result = d.turn(poll("in_progress"))
        assert not result["denied"] and not nudges(result) and not result["paused"]
    result = d.turn(poll("completed"))
    assert not result["denied"] and not nudges(result) and not result["paused"]


def test_a_poll_that_never_moves_is_checked_in_on_then_paused_by_wall_time():
    d = Driver()
    asked = None
    for minute in range(1, 60):
        d.wait(60)
        result = d.turn(poll("queued"))
        assert not result["denied"]
        if nudges(result) and asked is None:
            asked = minute
        if result["paused"]:
            break
    assert asked is not None and 10 <= asked <= 16
    assert d.paused is not None and d.paused["kind"] == "poll"
    assert 30 <= minute <= 32


def test_a_poll_whose_result_changes_has_made_progress():
    d = Driver()
    for minute in range(40):
        d.wait(60)
        stage = ("queued", "checkout", "install", "build", "test", "package", "upload", "deploy")
        result = d.turn(poll(stage[minute // 5]))  # a new answer every 5 minutes
        assert not nudges(result) and not result["paused"]


@pytest.mark.parametrize("remote", [False, True])
def test_a_poll_whose_counts_move_has_made_progress(remote):
    # A training run's log: the same shape every time, its step and loss moving. Run through
    # `ssh`, the poll may act, and is read the same.
    command = "sleep 540; " + ("ssh box 'tail -n 1 train.log'" if remote else "tail -n 1 train.log")
    d = Driver()
    for n in range(12):
        d.wait(540)
        line = f"07:{n:02d}:31 | epoch 1/3 | step {1368 + 1500 * n}/14436 | loss 0.{6117 - 300 * n}"
        result = d.turn(bash(command, response=line))
        assert not nudges(result) and not result["paused"]


def _progress_view(blocks: int, restarts: int) -> str:
    """A `psql` answer from a progress view: how far the job went is in its columns."""
    pct = 100 * blocks / 52733120
    return (
        "     phase      | blocks_done | blocks_total | pct  | restarts\n"
        "----------------+-------------+--------------+------+---------\n"
        f" scanning table | {blocks:>11} |     52733120 | {pct:4.1f} | {restarts}\n"
        "(1 row)"
    )


def test_a_table_shows_progress_by_its_column_names():
    assert answers.progress(_progress_view(4983110, 2)) == "4983110/52733120 9.4%"
    # No column says how far anything went: a count alone (restarts) is none.
    assert answers.progress("  name  | restarts\n--------+---------\n api    | 7") == ""
    assert answers.progress("| task | done |\n| build | yes |") == ""
    assert answers.progress("| task | done |\n| build | 3 |") == ""  # done of no total
    assert answers.progress("| relname | pct |\n| events | 45.5 |") == "45.5%"  # a border
    # Shares of something else, and counts in progress, are metrics, not how far a job went.
    assert answers.progress("| relname | dead_pct | in_progress |\n| events | 12.5 | 13 |") == ""
    vacuum = " phase | heap_blks_scanned | heap_blks_total\n scanning heap | 10 | 200"
    assert answers.progress(vacuum) == "10/200"
    # A row whose last cell is empty (NULL) is a row, not the names of the next.
    assert answers.progress(" a | pct | c\n x | 5 | ") == "5%"
    # A table's marks come first: a moving line after a wide table is kept.
    workers = "| worker | pct |\n" + "".join(f"| w{n} | 100 |\n" for n in range(8))
    assert answers.progress(workers + "step 3400/200000 (1.7%)").endswith("3400/200000 1.7%")


def test_a_poll_of_a_table_whose_progress_columns_move_has_made_progress():
    d = Driver()
    command = 'sleep 540; psql -X -c "select * from pg_stat_progress_create_index"'
    for n in range(12):
        d.wait(540)
        result = d.turn(bash(command, response=_progress_view(311204 + 4_800_000 * n, 0)))
        assert not nudges(result) and not result["paused"], n


def test_a_poll_of_a_table_whose_other_count_alone_moves_is_still_bounded():
    d = Driver()
    command = 'sleep 540; psql -X -c "select * from pg_stat_progress_create_index"'
    for n in range(12):
        d.wait(540)
        d.turn(bash(command, response=_progress_view(311204, n)))
        if d.paused:
            break
    assert d.paused is not None and d.paused["kind"] == "poll"


def test_a_poll_whose_count_alone_moves_is_still_bounded():
    # A crash loop: the restarts count up and readiness flaps; nothing moves toward an end.
    d = Driver()
    for n in range(1, 60):
        d.wait(60)
        ready = "1/1" if n % 3 == 0 else "0/1"
        row = f"api-7d9f8c6b5-xkqpz {ready} CrashLoopBackOff {n + 3} ({n % 5 + 1}m ago)"
        d.turn(bash("sleep 60; kubectl get pods -l app=api", response=row))
        if d.paused:
            break
    assert d.paused is not None and d.paused["kind"] == "poll"


def test_a_poll_whose_elapsed_time_alone_moves_is_still_bounded():
    d = Driver()
    for minute in range(1, 60):
        d.wait(60)
        result = d.turn(bash(POLL, response=f"status: queued, waiting {minute} minutes"))
        if result["paused"]:
            break
    assert d.paused is not None and d.paused["kind"] == "poll"


def test_a_spin_without_a_wait_keeps_the_repeat_rule():
    d = Driver()
    results = [d.turn(bash("tail -n 5 build.log", response="compiling 7/9")) for _ in range(3)]
    assert results[2]["denied"]


def test_narration_that_only_repeats_itself_does_not_end_a_cycle():
    d = Driver()
    say = ("Checking again.", "Still fine, checking again.", "Checking once more.")
    for n in range(12):
        call = ticking("git status --short" if n % 2 else "cat service.log")
        d.turn(call, text=say[n % 3] if n % 2 else "")
        if d.paused:
            break
    assert d.paused is not None and d.paused["kind"] == "cycle"


def test_narration_that_says_something_new_still_ends_a_cycle():
    d = Driver()
    say = (
        "The log shows the worker started.",
        "Status is clean; nothing to commit.",
        "Now the queue drains as expected.",
        "Config reload picked up the new port.",
        "Metrics endpoint answers on the right path.",
        "The retry counter stayed at zero.",
    )
    for n in range(12):
        call = ticking("git status --short" if n % 2 else "cat service.log")
        d.turn(call, text=say[n // 2] if n % 2 else "")
    assert d.paused is None


def test_reading_something_new_between_failures_does_not_reset_the_failure_count():
    d = Driver()
    seen = []
    for n in range(8):
        d.turn(Call("Read", {"file_path": f"/p/{tag(n)}.py"}, response=f"def {tag(n)}(): ..."))
        result = d.turn(failing(n))
        seen.append(bool(nudges(result)))
    assert seen.index(True) == 3


@pytest.mark.parametrize(
    "corrupt",
    [
        {"stuck": "x"},
        {"stuck": {"runs": 3}},
        {"stuck": {"look_words": {"completed:x": ["not a list"]}}},
        {"stuck": {"poll": {"call": "c"}}},
        {"narrations": [1]},
    ],
)
def test_a_corrupt_shape_record_is_caught_on_load(corrupt):
    from arcguard.core import schema

    d = Driver()
    d.turn(probe(1))
    d.main.update(corrupt)
    assert schema.problem(d.state) is not None
