"""Failures that take turns: two fixers undoing each other, so the check fails one way, then
the other, then the first again. Each failure alone comes back only every other attempt; both
together show that nothing moved, and are counted as one run of attempts."""

from __future__ import annotations

import pytest
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
    assert d.main["stuck"]["fails"] == 6
    assert "6 attempts failed in the same 2 ways, taking turns" in d.paused["reason"]


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


@pytest.mark.parametrize(
    ("between", "fails"),
    [
        (bash("isort .", "Fixing /p/app/service.py"), 3),
        # A file written from the shell: the failure back after it is a new attempt's.
        (bash("printf '[tool.isort]\\nprofile = \"black\"\\n' >> pyproject.toml", ""), 2),
    ],
)
def test_a_failure_back_after_another_of_its_check_counts_from_both(between, fails):
    # Its own run lapsed under the look and the fixers' output; the two together did not.
    d = Driver()
    d.turn(fail(CHECK, FORMATTER))
    d.turn(Call("Read", {"file_path": "/p/pyproject.toml"}, response={"c": "[tool.black]"}))
    d.turn(bash("black .", "reformatted app/service.py"))
    d.turn(fail("make -s lint", SORTER))
    d.turn(between)
    d.turn(fail("make lint 2>&1 | tail -20", FORMATTER))
    assert d.main["stuck"]["fails"] == fails


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


def test_failures_fixed_one_after_another_do_not_take_turns():
    # Bringing a test environment up: each failure is narrowed, fixed from the shell, and gone.
    d = Driver()
    for n, fix in enumerate(("cp .env.example .env", "docker compose up -d db", "alembic upgrade")):
        cause = f"E   RuntimeError: setup step {tag(n)} missing\n1 failed, 40 passed in 3.2s"
        d.turn(fail(SPELLINGS[n].replace(CHECK, "pytest -q"), cause))
        d.turn(fail(f"pytest -q tests/test_{tag(n)}.py -x", cause))
        d.turn(bash(fix, f"done {tag(n)}"))
    assert d.main["stuck"]["fails"] == 2
    assert d.paused is None and not [o for o in d.outputs if render.context_text(o)]


def test_a_sweep_run_again_takes_no_turns():
    # A branch-protection check over four repositories, run again after refreshing the login:
    # each target's answer is a finding, and each is counted at its own target.
    d = Driver()
    for sweep in range(2):
        for repo in ("api", "web", "docs", "infra"):
            command = f"gh api repos/acme/{repo}/branches/main/protection"
            d.turn(fail(command, "gh: Branch not protected (HTTP 404)"))
        if not sweep:
            d.turn(bash("gh auth refresh -s admin:org", "✓ Authentication complete."))
    assert not any("taking turns" in (render.context_text(o) or "") for o in d.outputs)
    assert d.paused is None


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # A test and a type check after each dependency added: two checks.
        (
            fail("pytest -q", "E   ModuleNotFoundError: No module named 'httpx'"),
            fail("mypy src", "src/app.py:3: error: Cannot find implementation or library stub"),
        ),
        # The whole suite and one file of it: one check, failing two ways at once.
        (fail("pytest -q", FORMATTER), fail("pytest -q tests/test_b.py", SORTER)),
    ],
)
def test_two_failures_side_by_side_each_turn_are_counted_apart(first: Call, second: Call):
    # Neither comes back after the other: each is counted in its own run, as before.
    d = Driver()
    asked = []
    for n in range(5):
        if d.turn(first, second)["context"]:
            asked.append(n + 1)
        d.turn(bash(f"pip install plugin-{tag(n)}", f"Successfully installed plugin-{tag(n)}"))
    assert asked == [4]


def test_a_request_about_one_run_leaves_the_next_its_own():
    # The formatters' ping-pong is asked about and settled from the shell; the test failing
    # later on a service that is down gets its own request before any pause.
    d = Driver()
    _ping_pong(d, 4)
    d.turn(bash("printf '[tool.isort]\\nprofile = \"black\"\\n' >> pyproject.toml", ""))
    d.turn(bash("isort . && black .", "Fixing /p/app/service.py\nAll done!"))
    refused = "E   redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379."
    asked = []
    for n in range(7):
        d.turn(bash(f"docker compose restart redis -t {n}", f"Restarted {tag(n)}"))
        out = d.turn(fail(SPELLINGS[n].replace(CHECK, "make test"), refused))
        asked.extend(n + 1 for text in out["context"] if "make test" in text)
        if d.paused:
            break
    assert asked == [4]
    assert d.paused is not None and d.paused["kind"] == "stuck"


def test_a_failure_that_failed_beside_another_does_not_come_back_after_it():
    # Both in one turn, then the other fixed: the one left is counted alone, from its first.
    d = Driver()
    d.turn(fail("pytest -q", FORMATTER), fail("pytest -q tests/test_b.py", SORTER))
    asked = []
    for n in range(4):
        d.turn(bash(f"pip install plugin-{tag(n)}", f"Successfully installed plugin-{tag(n)}"))
        if d.turn(fail(SPELLINGS[n].replace(CHECK, "pytest -q"), FORMATTER))["context"]:
            asked.append(n + 2)
    assert asked == [4]
    assert not [r for r in d.main["stuck"]["runs"] if "+" in r]


def test_a_failure_standing_through_others_fixed_one_by_one_takes_no_turns():
    # The whole suite shows a known failure each time, while a narrowed test fails a new way
    # after each fix: the standing failure pairs with each new one, and no pair goes on.
    d = Driver()
    standing = "FAILED tests/test_legacy.py::test_old_api - DeprecationError: v1 removed"
    for n in range(6):
        d.turn(fail(SPELLINGS[n].replace(CHECK, "pytest -q"), standing))
        narrowed = f"FAILED tests/test_v2.py::test_items - KeyError: 'step_{tag(n)}'"
        d.turn(fail(SPELLINGS[n].replace(CHECK, "pytest -q tests/test_v2.py"), narrowed))
        d.turn(bash(f"export STEP_{tag(n).upper()}=1", ""))
    assert not any("taking turns" in (render.context_text(o) or "") for o in d.outputs)


def test_failures_taking_turns_beside_another_in_one_turn_take_no_turn():
    # The check run twice in one turn, beside a test: nothing alternates from turn to turn,
    # so the request and the pause come from each failure's own run, two attempts apart.
    d = Driver()
    _ping_pong(d, 3)
    redis = "E   redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379."
    asked = paused = 0
    for n in range(6):
        out = d.turn(
            fail(f"{SPELLINGS[n]} # {tag(2 * n)}", FORMATTER),
            fail(SPELLINGS[n].replace(CHECK, "pytest -q"), redis),
            fail(f"{SPELLINGS[n]} # {tag(2 * n + 1)}", SORTER),
        )
        asked = asked or (d.turns if out["context"] else 0)
        if d.paused:
            paused = d.turns
            break
        d.turn(bash(f"isort . && black . # {tag(n)}", f"ok {tag(n)}"))
    assert asked and paused, (asked, paused)
    assert d.paused is not None and "taking turns" not in d.paused["reason"]


def test_the_two_failures_beside_each_other_in_one_turn_take_one_turn_at_most():
    d = Driver()
    _ping_pong(d, 3)  # the formatter's, the sorter's, the formatter's: their run is at 3
    d.turn(bash("black . -q", "reformatted app/service.py"))
    d.turn(fail("make -k lint", FORMATTER), fail("make lint; echo done", SORTER))
    assert [n for r, n in d.main["stuck"]["runs"].items() if "+" in r] == [3]


def test_a_failure_back_in_the_turn_another_failed_in_takes_no_turn():
    d = Driver()
    d.turn(fail(CHECK, FORMATTER))
    d.turn(bash("black .", "reformatted app/service.py"))
    d.turn(fail("make -s lint", SORTER), fail("make lint 2>&1 | tail -20", FORMATTER))
    assert not [r for r in d.main["stuck"]["runs"] if "+" in r]
