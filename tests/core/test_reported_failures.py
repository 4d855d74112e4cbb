"""Failures the harness does not report as a plain non-zero exit: a command the harness killed at
its timeout, and one that printed its own exit status (`; echo "exit=$?"`), so that the shell
exited 0. Each is an attempt that failed, counted with the others, live as in a replay.
"""

from __future__ import annotations

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash

from arcguard.core.loop_guard import exit_status
from arcguard.core.tool_call import ToolCall
from arcguard.core.tool_call import ToolResult


def _killed(command: str, *, seconds: int = 120) -> Call:
    """A silent command the harness killed at its timeout, as the hook is told of it live."""
    return bash(
        command,
        input={"timeout": seconds * 1000},
        error=f"Exit code 143\nCommand timed out after {seconds // 60}m 0s",
        duration_ms=seconds * 1000 + 13,
    )


def _first_word(d: Driver, calls: list[Call]) -> tuple[int, int]:
    """The attempts at which the run was first asked about, then paused (0: never)."""
    worded = paused = 0
    for n, call in enumerate(calls, 1):
        out = d.turn(call)
        worded = worded or (n if out["context"] else 0)
        paused = paused or (n if d.paused is not None else 0)
    return worded, paused


COMMITS = [
    'git commit -m "fix: honour the configured TTL"',
    'GIT_EDITOR=true git commit -m "fix: honour the configured TTL"',
    'git -c core.editor=true commit --no-edit -m "fix: honour the configured TTL" < /dev/null',
    'git commit -q -m "fix: honour the configured TTL"',
    'printf "fix: honour the configured TTL\\n" | git commit -F -',
    'git commit --no-verify -m "fix: honour the configured TTL"',
    'git commit --no-verify --no-edit -m "fix: honour the configured TTL" </dev/null',
    'git commit -m "fix: honour the TTL"',
]


def test_a_command_killed_at_its_timeout_under_new_spellings_is_checked_in_on_then_paused():
    # Live, the harness's timeout is told apart (a longer timeout may recover it once); the
    # staged rules still count it as the failure a transcript shows, so replay agrees.
    d = Driver()
    assert _first_word(d, [_killed(command) for command in COMMITS]) == (4, 7)


def _moved(command: str, task: str) -> Call:
    """A command the harness moved to the background at its timeout, as the hook is told."""
    response = {"stdout": "", "stderr": "", "interrupted": False, "backgroundTaskId": task}
    return Call("Bash", {"command": command, "timeout": 1000}, response=response)


def test_a_command_moved_to_the_background_at_its_timeout_again_and_again_is_one_failure():
    # Each copy is a new task with a new id: no two results alike, but one hang.
    d = Driver()
    calls = [_moved(command, f"b{n}x{n * 7}q") for n, command in enumerate(COMMITS)]
    assert _first_word(d, calls) == (4, 7)


def test_a_hang_cut_short_every_way_is_one_failure():
    d = Driver()
    calls = [
        _killed(COMMITS[0]),
        _moved(COMMITS[1], "b1"),
        Call("Bash", {"command": f"timeout 30 {COMMITS[2]}"}, error="Exit code 124"),
        bash(f'timeout 30 {COMMITS[3]}; echo "exit=$?"', "exit=124"),
        _moved(COMMITS[4], "b2"),
        bash(f"timeout 45 {COMMITS[5]}; echo $?", "124"),
        _killed(COMMITS[6]),
    ]
    assert _first_word(d, calls) == (4, 7)


def test_other_commands_that_each_outlive_their_timeout_are_each_their_own():
    d = Driver()
    long_ones = ["npm run build", "npm test", "docker build .", "cargo build --release"]
    long_ones += ["pytest -x", "go test ./...", "make dist", "gradle assemble"]
    assert _first_word(d, [_moved(c, f"t{n}") for n, c in enumerate(long_ones)]) == (0, 0)


def test_a_command_asked_to_run_in_the_background_did_not_hang():
    d = Driver()
    response = {"stdout": "", "stderr": "", "interrupted": False, "backgroundTaskId": "b1"}
    calls = [
        Call("Bash", {"command": c, "run_in_background": True}, response=response) for c in COMMITS
    ]
    assert _first_word(d, calls) == (0, 0)


def test_a_printed_exit_status_is_the_commands_failure():
    d = Driver()
    calls = [bash(f'timeout 30 {command}; echo "exit=$?"', "exit=124\n") for command in COMMITS]
    assert _first_word(d, calls) == (4, 7)


def test_a_printed_status_reads_as_the_harness_would_have_reported_the_failure():
    # `timeout 30 git commit` failing alone, and with its status printed, are one failure.
    d = Driver()
    calls = []
    for n, command in enumerate(COMMITS):
        if n % 2:
            calls.append(bash(f'timeout 30 {command}; echo "exit: $?"', "exit: 124"))
        else:
            calls.append(Call("Bash", {"command": f"timeout 30 {command}"}, error="Exit code 124"))
    assert _first_word(d, calls) == (4, 7)


def test_a_printed_status_of_zero_is_no_failure():
    d = Driver()
    calls = [
        bash(f'{command}; echo "exit=$?"', "[main 1a2b3c4] fix\nexit=0") for command in COMMITS
    ]
    assert _first_word(d, calls[:3]) == (0, 0)


def test_a_cli_probed_for_its_error_exits_is_no_repeat():
    # Each probe asks something else, and each answer is new: a triage of error paths.
    d = Driver()
    probes = ["fooble", "--version", "sync --dry-run", "sync --target", "push", "pull", "x y"]
    calls = [
        bash(f'./bin/cli {probe} 2>&1; echo "exit=$?"', f"Error: unknown {probe!r}\nexit=1")
        for probe in probes
    ]
    assert _first_word(d, calls) == (0, 0)


def _said(command: str, text: str) -> ToolResult:
    call = ToolCall("Bash", {"command": command}, "t1", None)
    result = ToolResult(response={"stdout": text, "stderr": "", "interrupted": False})
    return exit_status.as_reported(call, result)


@pytest.mark.parametrize(
    ("command", "text", "error"),
    [
        ('make; echo "exit=$?"', "cc -o app\nerror 2\nexit=2\n", "Exit code 2\ncc -o app\nerror 2"),
        (
            "go test ./... 2>&1 | tail -3; echo EXIT: ${PIPESTATUS[0]}",
            "FAIL\nEXIT: 1",
            "Exit code 1\nFAIL",
        ),
        ("npm run build; echo $?", "built\n1\n", "Exit code 1\nbuilt"),
        (
            "timeout 9 npm run dev; echo $?",
            "ready\n124",
            "ready\nDid not finish in time: npm run dev",
        ),
        ("npm run dev; echo $?", "ready\n124", "Exit code 124\nready"),  # not `timeout`'s
        ("npm run build; echo $?; ls dist | wc -l", "1\n3", None),  # not the last line: unsure
        (
            'cargo build || echo "failed with $?"',
            "error[E0425]\nfailed with 101",
            "Exit code 101\nerror[E0425]",
        ),
        ('cargo build; echo "rc=$? at $(date)"', "rc=101 at Sun", None),  # unread: a substitution
        ('tsc --noEmit; echo "exit=$?"', "exit=0", None),
    ],
)
def test_the_status_a_command_prints_of_itself(command: str, text: str, error: str | None):
    result = _said(command, text)
    if error is None:
        assert not result.failed
    else:
        assert result.failed and result.error == error


@pytest.mark.parametrize(
    "command",
    [
        'diff a.txt b.txt; echo "exit=$?"',  # differ: an answer, not a failure
        'grep -c TODO src/app.py; echo "exit=$?"',  # found nothing: an answer
        'test -f dist/app.js; echo "exit=$?"',
        'for f in a b; do ./check "$f"; echo "exit=$?"; done',  # one status per target
        'echo "exit=$?"',  # the status of whatever ran before this call
        'echo "exit=$?"; make all',  # the same, before the command
    ],
)
def test_a_status_that_answers_a_look_is_no_failure(command: str):
    assert not _said(command, "exit=1").failed


def test_a_command_moved_to_the_background_is_a_timeout_to_the_repeat_guard():
    # Run a third time as it was, it is denied; with a longer timeout, it may run once.
    d = Driver()
    slow = "npm run e2e"
    d.turn(_moved(slow, "b1"))
    d.turn(_moved(slow, "b2"))
    assert d.turn(_moved(slow, "b3"))["denied"]
    longer = Call("Bash", {"command": slow, "timeout": 600_000}, response={"stdout": "ok"})
    assert not d.turn(longer)["denied"]


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("rm -f .git/index.lock; timeout 60 git commit -m x", "git commit"),  # under `timeout`
        ("git add -A && git commit -m x", "git commit"),  # the last that runs
        ("timeout 60 git commit -m x; git log -1", "git commit"),
        ("npm test 2>&1 | tail -20", "npm test"),  # not its filter
        ('printf "x" | git -c core.editor=true commit -F -', "git commit"),
        ("cd web && npm run build -- --watch", "npm run build"),  # a runner names what it runs
        ("sh ./scripts/seed.sh --all", "seed.sh"),  # a shell's script
        ("sleep 5", ""),
    ],
)
def test_the_program_that_did_not_finish_is_named(command: str, program: str):
    call = ToolCall("Bash", {"command": command, "timeout": 1000}, "t1", None)
    killed = ToolResult(failed=True, error="Exit code 143\nCommand timed out after 1s")
    result = exit_status.as_reported(call, killed)
    assert result.error == (
        f"Did not finish in time: {program}" if program else "Did not finish in time"
    )


def test_waiting_on_a_command_moved_to_the_background_is_patience():
    # It runs on as a task: reading its output again and again while it runs is no repeat.
    d = Driver()
    d.turn(_moved("npm run e2e", "b7"))
    reads = [d.turn(Call("BashOutput", {"bash_id": "b7"}, response="")) for _ in range(4)]
    assert not any(out["denied"] for out in reads)
