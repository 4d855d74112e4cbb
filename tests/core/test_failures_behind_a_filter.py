"""A failure a filter hid (`exit_status.hidden`): `mvn package 2>&1 | tail -3` exits with
`tail`'s status, so the harness reports a completed call whatever the build did. What the
filter let through still says it failed, and the rules on failures read it so; a print cut at
another width, or filtered otherwise, is the same failure."""

from __future__ import annotations

from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import edit

from arcguard.core.loop_guard import exit_status
from arcguard.core.tool_call import ToolCall
from arcguard.core.tool_call import ToolResult


UNRESOLVED = (
    "[ERROR] Failed to execute goal on project api: Could not resolve dependencies for project"
    " com.acme:api:jar:1.4.0: The following artifacts could not be resolved:"
    " com.acme:ledger-client:jar:2.7.0 (absent): com.acme:ledger-client:jar:2.7.0 was not found"
    " in https://repo.acme.internal/releases during a previous attempt."
)
TAIL = (
    f"{UNRESOLVED}\n[ERROR] \n[ERROR] To see the full stack trace of the errors, re-run Maven"
    " with the -e switch."
)
FILTERS = (
    ("mvn -q package 2>&1 | tail -3", TAIL),
    ("mvn -q -U package 2>&1 | grep ERROR | head -1", UNRESOLVED),
    ("mvn -q package -Dmaven.repo.local=/tmp/m2 2>&1 | tail -3 | cut -c1-160", UNRESOLVED[:160]),
)
SETTINGS = "/p/.mvn/settings.xml"


def _reported(command: str, printed: str) -> ToolResult:
    call = ToolCall("Bash", {"command": command})
    result = ToolResult(response={"stdout": printed, "stderr": "", "interrupted": False})
    return exit_status.as_reported(call, result)


def test_a_failure_a_filter_hid_reads_as_failed():
    assert _reported(*FILTERS[0]).failed
    assert _reported("pytest -q 2>&1 | tail -1", "2 failed, 40 passed in 3.10s").failed
    assert _reported("cargo run 2>&1 | tail -2", "thread 'main' panicked\nfatal: x").failed


def test_what_a_filter_let_through_without_a_failure_is_as_reported():
    # A look's print tells of errors; the shell kept the failing member's status; a tally of
    # none; a commit message that names an error.
    assert not _reported("grep -n ERROR logs/api.log | tail -3", TAIL).failed
    assert not _reported(f"set -o pipefail; {FILTERS[0][0]}", TAIL).failed
    assert not _reported("pytest -q 2>&1 | tail -1", "40 passed, 0 failed in 3.10s").failed
    assert not _reported(
        "git commit -qam 'Fix error paths' | tail -1", "[main 1a2b3c4] Fix error paths"
    ).failed
    assert not _reported("mvn -q package | tail -3", "[INFO] BUILD SUCCESS").failed


def _setting(n: int) -> Call:
    old = f"-Dretry.{n}=1" if n else "-T 4"
    return edit(SETTINGS, old, f"{old}\n-Dretry.{n + 1}=1")


def test_a_build_failing_behind_filters_while_settings_are_tried_is_asked_about():
    d = Driver()
    asked = []
    for n in range(6):
        if n:
            d.turn(_setting(n))
        command, printed = FILTERS[n % len(FILTERS)]
        if d.turn(bash(command, printed))["context"]:
            asked.append(n + 1)
    assert asked == [4]


def test_a_filtered_print_without_a_failure_does_not_end_the_count():
    d = Driver()
    asked = []
    for n in range(6):
        if n:
            d.turn(_setting(n))
        command, printed = FILTERS[n % len(FILTERS)]
        if n == 2:
            printed = "[INFO] Downloading from central: https://repo.maven.apache.org/maven2/"
        if d.turn(bash(command, printed))["context"]:
            asked.append(n + 1)
    assert asked == [5]


def test_tests_behind_a_filter_failing_fewer_each_time_are_left_alone():
    d = Driver()
    for n in range(6, 0, -1):
        d.turn(edit(f"/p/src/cart_{n}.py", "total = 0", f"total = sum(items[{n}:])"))
        out = d.turn(bash("pytest -q 2>&1 | tail -1", f"{n} failed, {40 - n} passed in 3.1s"))
        assert not out["context"] and d.paused is None, n


def test_a_status_printed_after_the_filter_is_the_commands():
    assert not exit_status.filtered("go test ./... 2>&1 | tail -3; echo EXIT: ${PIPESTATUS[0]}")
    assert not exit_status.filtered("(make | tail -3) && ./deploy.sh")
    assert exit_status.filtered("make 2>&1 | tail -3")
    assert exit_status.filtered("pnpm -F web typecheck 2>&1 | grep -E 'error|Found'")
    assert exit_status.filtered("make 2>&1 | sed -n '1,5p;$p'")
