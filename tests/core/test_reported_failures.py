"""Failures the harness does not report as a plain non-zero exit: a command the harness killed at
its timeout, and one that printed its own exit status (`; echo "exit=$?"`), so that the shell
exited 0. Each is an attempt that failed, counted with the others, live as in a replay.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import edit

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
    assert _first_word(d, [_killed(command) for command in COMMITS]) == (4, 6)


def _moved(command: str, task: str) -> Call:
    """A command the harness moved to the background at its timeout, as the hook is told."""
    response = {"stdout": "", "stderr": "", "interrupted": False, "backgroundTaskId": task}
    return Call("Bash", {"command": command, "timeout": 1000}, response=response)


def test_a_command_moved_to_the_background_at_its_timeout_again_and_again_is_one_failure():
    # Each copy is a new task with a new id: no two results alike, but one hang.
    d = Driver()
    calls = [_moved(command, f"b{n}x{n * 7}q") for n, command in enumerate(COMMITS)]
    assert _first_word(d, calls) == (4, 6)


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
    assert _first_word(d, calls) == (4, 6)


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
    assert _first_word(d, calls) == (4, 6)


def test_a_printed_status_reads_as_the_harness_would_have_reported_the_failure():
    # `timeout 30 git commit` failing alone, and with its status printed, are one failure.
    d = Driver()
    calls = []
    for n, command in enumerate(COMMITS):
        if n % 2:
            calls.append(bash(f'timeout 30 {command}; echo "exit: $?"', "exit: 124"))
        else:
            calls.append(Call("Bash", {"command": f"timeout 30 {command}"}, error="Exit code 124"))
    assert _first_word(d, calls) == (4, 6)


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


def _said(command: str, text: str | dict[str, str]) -> ToolResult:
    call = ToolCall("Bash", {"command": command}, "t1", None)
    output = text if isinstance(text, dict) else {"stdout": text, "stderr": ""}
    return exit_status.as_reported(call, ToolResult(response=output))


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
        ("make; echo $?", {"stdout": "0\n", "stderr": "1 warning generated."}, None),
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
        # A substitution that only reads is part of what the status line prints; one that
        # acts leaves the command unread.
        ('cargo build; echo "rc=$? at $(date)"', "rc=101 at Sun", "Exit code 101"),
        ('cargo build; echo "rc=$? at $(touch x)"', "rc=101 at Sun", None),
        ('tsc --noEmit; echo "exit=$?"', "exit=0", None),
        # Kept in a variable first, printed by printf, or inside a shell's script.
        ('git commit -m x; rc=$?; echo "rc=$rc"', "hook failed\nrc=1", "Exit code 1\nhook failed"),
        (
            'npm test; code="${PIPESTATUS[0]}"; echo "code ${code}"',
            "FAIL\ncode 1",
            "Exit code 1\nFAIL",
        ),
        ('make; printf "exit=%s\\n" $?', "err\nexit=2\n", "Exit code 2\nerr"),
        ('make; printf "%d\\n" $?', "err\n2\n", "Exit code 2\nerr"),
        ('make; printf "%s %s\\n" $? done', "err\n2 done", None),  # two conversions: unsure
        ("bash -c 'make; echo exit=$?'", "err\nexit=2", "Exit code 2\nerr"),
        # In double quotes the calling shell's own `$?` is printed, not make's.
        ('bash -c "make; echo exit=$?"', "err\nexit=2", None),
        ('make; rc=$?; echo "exit=$RC"', "err\nexit=2", None),  # another variable
        ('make; rc=$?; echo "rcfile=$rcfile"', "err\nrcfile=7", None),  # a longer name
        ("make; echo --status=$?", "err\n--status=2", None),  # read as an option: unsure
        ("make; echo $?", "\n\n", None),  # printed nothing to read
        ('rc=$?; make; echo "prev=$rc"', "err\nprev=1", None),  # kept before make ran
        ('cargo test; code=$?; echo "codegen=${code}x"', "err\ncodegen=12x", None),
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
        "bash -c 'grep -q TODO src/app.py; echo exit=$?'",  # a look, inside a shell's script
        'diff a.txt b.txt; rc=$?; echo "exit=$rc"',
        # A look's status after a change: the look's answer, not the change's failure.
        'npm ci --silent; npm ls left-pad; rc=$?; echo "exit=$rc"',
        'git fetch origin; git diff --quiet origin/main; echo "exit=$?"',
    ],
)
def test_a_status_that_answers_a_look_is_no_failure(command: str):
    assert not _said(command, "exit=1").failed


def test_a_command_moved_to_the_background_is_no_repeat_to_deny():
    # It may still finish: run again as it was (after an install, say), it runs.
    d = Driver()
    outs = [d.turn(_moved("npm run e2e", f"b{n}")) for n in range(3)]
    assert not any(out["denied"] for out in outs)


def test_a_command_the_user_moved_to_the_background_did_not_hang():
    d = Driver()
    response = {"stdout": "", "stderr": "", "backgroundTaskId": "b1", "backgroundedByUser": True}
    calls = [Call("Bash", {"command": c}, response=dict(response)) for c in COMMITS]
    assert _first_word(d, calls) == (0, 0)


def test_a_command_moved_to_the_background_and_waited_on_until_it_ends_is_no_hang():
    # Commits behind a slow hook: each is moved, each is waited on and ends; the next is new.
    d = Driver()
    worded = 0
    for n, command in enumerate(COMMITS):
        task = f"b{n}"
        outs = [d.turn(_moved(command, task))]
        status = {"task": {"task_id": task, "status": "completed"}, "output": "[main 1a2b] x"}
        outs.append(d.turn(Call("TaskOutput", {"task_id": task}, response=status)))
        worded = worded or (n + 1 if any(out["context"] for out in outs) else 0)
    assert worded == 0 and d.paused is None


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
        ("python manage.py migrate --noinput", "manage.py migrate"),  # the script, then its own
        ("docker compose -p shop up -d", "docker compose up"),  # past the runner's options
        ("docker compose up -d", "docker compose up"),
        ("pnpm -F web dev", "pnpm web"),  # the package it runs in: a target
        ("kubectl exec -n shop api-0 -- ls", "kubectl exec"),  # not the pod it runs in
        ("npm i --no-audit", "npm install"),  # an alias, as its command
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


@pytest.mark.parametrize("stop", ["TaskStop", "killed"])
def test_an_install_that_stalls_read_and_stopped_each_time_is_still_one_hang(stop: str):
    # Stopping a stalled copy is no news of it finishing: the next copy is the same attempt.
    d = Driver()
    spellings = ["npm install", "npm install --no-audit", "npm install --prefer-offline"]
    spellings += ["npm install --verbose", "npm install --no-fund", "npm install --force"]
    spellings += ["npm install --legacy-peer-deps"]
    worded = paused = 0
    for n, command in enumerate(spellings, 1):
        task = f"b{n}"
        stalled = {"task": {"task_id": task, "status": "running"}, "output": "ETIMEDOUT"}
        outs = [d.turn(_moved(command, task))]
        outs.append(d.turn(Call("TaskOutput", {"task_id": task}, response=stalled)))
        if stop == "TaskStop":
            stopped = {"message": f"Successfully stopped task: {task}"}
            outs.append(d.turn(Call("TaskStop", {"task_id": task}, response=stopped)))
        else:  # stopped elsewhere, and a status says so
            killed = {"task": {"task_id": task, "status": "killed"}, "output": "ETIMEDOUT"}
            outs.append(d.turn(Call("TaskOutput", {"task_id": task, "n": 2}, response=killed)))
        worded = worded or (n if any(out["context"] for out in outs) else 0)
        paused = paused or (n if d.paused is not None else 0)
    assert (worded, paused) == (4, 6)


@pytest.mark.parametrize(("tool", "key"), [("TaskStop", "task_id"), ("KillShell", "shell_id")])
def test_a_dev_server_stopped_and_started_again_after_each_settings_edit_is_no_hang(tool, key):
    # Moved to the background each time, read, stopped by the model: each copy ended.
    d = Driver()
    worded = 0
    for n, name in enumerate(["API_URL", "LOG_LEVEL", "FEATURE_X", "CACHE_TTL", "PORT", "TTL"]):
        task = f"b{n}"
        outs = [d.turn(edit(".env", f"# {name}", f"{name}=v{n}"))]
        outs.append(d.turn(_moved("npm run dev", task)))
        stopped = {"message": f"Successfully stopped task: {task}"}
        outs.append(d.turn(Call(tool, {key: task}, response=stopped)))
        worded = worded or (n + 1 if any(out["context"] for out in outs) else 0)
    assert worded == 0 and d.paused is None


def test_a_stopped_task_is_no_work_still_running_to_wait_on():
    # Once stopped, reading its output again and again waits on nothing: a repeat.
    d = Driver()
    d.turn(_moved("npm run e2e", "b7"))
    d.turn(Call("TaskStop", {"task_id": "b7"}, response={"message": "stopped b7"}))
    reads = [d.turn(Call("BashOutput", {"bash_id": "b7"}, response="")) for _ in range(3)]
    assert [bool(out["denied"]) for out in reads] == [False, False, True]


@pytest.mark.parametrize(
    "ended", [{"status": "failed", "exit_code": 1}, {"status": "completed", "exitCode": 1}]
)
def test_a_slow_suite_that_fails_the_same_way_in_the_background_each_time_is_one_hang(ended):
    # Each copy is moved, waited on and fails alike: its end brings nothing new.
    d = Driver()
    failed = "FAIL src/cart.test.ts\n  ● total › adds tax\nTests: 1 failed, 41 passed"
    spellings = ["npm test", "npm test -- --ci", "npm test 2>&1", "npm test -- --runInBand"]
    spellings += ["npm test --silent", "npm test -- --bail", "npm test -- --no-cache"]
    worded = paused = 0
    for n, command in enumerate(spellings, 1):
        task = f"b{n}"
        status = {"task": {"task_id": task, **ended, "output": failed}}
        outs = [d.turn(_moved(command, task))]
        outs.append(d.turn(Call("TaskOutput", {"task_id": task}, response=status)))
        worded = worded or (n if any(out["context"] for out in outs) else 0)
        paused = paused or (n if d.paused is not None else 0)
    assert (worded, paused) == (4, 6)


# Shell words a status print is made of, in any order: no command crashes the reading.
SHELL_WORDS = [
    *("make", "echo", "printf", "'%s\\n'", '"exit=%d\\n"', "$?", "${?}", "${PIPESTATUS[0]}"),
    *("rc=$?", "$rc", "${rc}", ";", "&&", "||", "|", "tail", "bash", "-c", "'make; echo $?'"),
    *('"x $?"', "--status=$?", "for", "do", "done", "timeout", "5", "grep", "-q", "'", '"', "("),
    *("`", "$", "=", "%", "%%", "exit="),
]


@settings(max_examples=200, deadline=None)
@given(
    words=st.lists(st.sampled_from(SHELL_WORDS), min_size=1, max_size=10),
    out=st.sampled_from(["", "1", "exit=1", "x\n2", "--status=3", "\n\n", "exit=999", "124"]),
)
def test_no_command_and_output_crash_the_reading_of_how_it_ended(words, out):
    call = ToolCall("Bash", {"command": " ".join(words)}, "t1", None)
    exit_status.as_reported(call, ToolResult(response={"stdout": out, "stderr": ""}))
    exit_status.as_reported(call, ToolResult(failed=True, error=f"Exit code 124\n{out}"))
