"""Failures that take turns: two fixers undoing each other, so the check fails one way, then
the other, then the first again. Each failure alone comes back only every other attempt; both
together show that nothing moved, and are counted as one run of attempts."""

from __future__ import annotations

from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import fail
from testing.guard_driver import tag

from arcguard.core import render


FORMATTER = "would reformat app/service.py\nOh no!\n1 file would be reformatted."
SORTER = "ERROR: /p/app/service.py Imports are incorrectly sorted and/or formatted."
CHECK = "make lint"
# The check as the model re-spells it, so no sequence of turns repeats as a cycle.
SPELLINGS = (
    CHECK,
    "make -s lint",
    "make lint 2>&1 | tail -20",
    "cd /p && make lint",
    "make --no-print-directory lint",
    "make lint; echo done",
    "make -k lint",
)


def _edit(n: int) -> Call:
    old, new = f"profile = {tag(n)}", f"profile = {tag(n + 1)}"
    change = {"file_path": "/p/pyproject.toml", "old_string": old, "new_string": new}
    patch = [{"lines": [f"-{old}", f"+{new}"]}]
    return Call(
        "Edit", change, response={"filePath": "/p/pyproject.toml", "structuredPatch": patch}
    )


def _ping_pong(d: Driver, attempts: int) -> list[int]:
    """The check failing on the formatter; then, in turn, the formatter and the check failing
    on the sorter, the sorter and the check failing on the formatter: the check's attempts
    that got a request to summarise, until the session is paused."""
    asked = []
    d.turn(fail(CHECK, FORMATTER))
    for attempt in range(2, attempts + 1):
        formatter_turn = attempt % 2 == 0
        fixer = "black ." if formatter_turn else "isort ."
        printed = "reformatted app/service.py" if formatter_turn else "Fixing /p/app/service.py"
        d.turn(bash(fixer, printed))
        check = SPELLINGS[attempt % len(SPELLINGS)]
        out = d.turn(fail(check, SORTER if formatter_turn else FORMATTER))
        if out["context"]:
            asked.append(attempt)
        if d.paused is not None:
            break
    return asked


def test_two_failures_taking_turns_are_asked_about_at_the_4th_attempt_then_paused():
    d = Driver()
    assert _ping_pong(d, 12) == [4]
    assert d.paused is not None and d.paused["kind"] == "stuck"
    assert d.main["stuck"]["fails"] == 7
    assert "7 attempts failed in the same 2 ways, taking turns" in d.paused["reason"]


def test_the_request_says_the_attempts_failed_two_ways():
    d = Driver()
    _ping_pong(d, 4)
    said = [text for out in d.outputs if (text := render.context_text(out))]
    assert (
        "4 attempts failed in the same 2 ways, taking turns (Bash: make --no-print-directory lint"
        in said[0]
    )


def test_two_different_failures_each_seen_once_are_no_run():
    d = Driver()
    for n, (command, text) in enumerate(
        (
            ("make lint", FORMATTER),
            ("make test", "FAILED tests/test_tax.py::test_rounding - assert 3 == 4"),
            ("make docs", "sphinx-build: error: cannot find conf.py"),
            ("make build", "gcc: fatal error: no input files"),
        )
    ):
        out = d.turn(fail(command, text))
        assert not out["context"], n
    assert d.main["stuck"]["fails"] == 1


def test_one_failure_seen_again_beside_others_seen_once_counts_alone():
    # Working down a list of failing checks, one retried once: two attempts, not four.
    d = Driver()
    d.turn(fail("make lint", FORMATTER))
    d.turn(fail("make test", "FAILED tests/test_tax.py::test_rounding - assert 3 == 4"))
    d.turn(fail("make lint", FORMATTER))
    d.turn(fail("make docs", "sphinx-build: error: cannot find conf.py"))
    assert d.main["stuck"]["fails"] == 2


def test_failures_taking_turns_across_edits_to_new_content_are_no_loop():
    # Each edit is a new attempt at the cause: a failure back after it is the next finding.
    d = Driver()
    for n in range(8):
        d.turn(_edit(n))
        out = d.turn(fail(CHECK, SORTER if n % 2 == 0 else FORMATTER))
        assert not out["context"], n
    assert d.paused is None


def test_a_failure_back_after_another_and_its_fixers_goes_on_counting():
    # Another failure is no finding: the first one's run outlasts it and the fixers' output.
    d = Driver()
    d.turn(fail(CHECK, FORMATTER))
    d.turn(Call("Read", {"file_path": "/p/pyproject.toml"}, response={"c": "[tool.black]"}))
    d.turn(bash("black .", "reformatted app/service.py"))
    d.turn(fail("make -s lint", SORTER))
    d.turn(bash("isort .", "Fixing /p/app/service.py"))
    d.turn(fail("make lint 2>&1 | tail -20", FORMATTER))
    assert d.main["stuck"]["fails"] == 2


def test_a_stretch_of_new_findings_ends_failures_taking_turns():
    d = Driver()
    d.turn(fail(CHECK, FORMATTER))
    d.turn(bash("black .", "reformatted app/service.py"))
    d.turn(fail(CHECK, SORTER))
    for n in range(4):
        d.turn(
            Call("Read", {"file_path": f"/p/app/mod{n}.py"}, response={"c": f"code {'abcd'[n]}"})
        )
    d.turn(bash("isort .", "Fixing /p/app/service.py"))
    out = d.turn(fail(CHECK, FORMATTER))
    assert not out["context"]
    assert d.main["stuck"]["fails"] == 1
