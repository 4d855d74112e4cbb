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
from arcguard.core.loop_guard import failure_lines
from arcguard.core.loop_guard import persisting
from arcguard.core.schema import StateFile
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


def _asked_at(*, quiet_at: int | None = None) -> list[int]:
    """The attempts asked about, of six: the build through the filters in turn, a setting added
    before each but the first; attempt `quiet_at` prints Maven's download chatter only."""
    d = Driver()
    asked = []
    for n in range(6):
        if n:
            d.turn(_setting(n))
        command, printed = FILTERS[n % len(FILTERS)]
        if n + 1 == quiet_at:
            printed = "[INFO] Downloading from central: https://repo.maven.apache.org/maven2/"
        if d.turn(bash(command, printed))["context"]:
            asked.append(n + 1)
    return asked


def test_a_build_failing_behind_filters_while_settings_are_tried_is_asked_about():
    assert _asked_at() == [4]


def test_a_filtered_print_without_a_failure_does_not_end_the_count():
    assert _asked_at(quiet_at=3) == [5]


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


def test_an_error_code_kept_in_lower_case_is_a_failing_line_and_a_value_alone_is_not():
    # A print's lines are kept in lower case: pnpm's code still opens a failing line, and
    # the `undefined` a `config get` prints for a key not set says nothing went wrong.
    code = "err_pnpm_no_matching_version no matching version found for @acme/ui@^4.2.0"
    assert failure_lines.failing_heads([code]).startswith("1 ")
    assert failure_lines.failing_heads(["err_rate: 0.5 over the last minute"]) == "0"
    assert failure_lines.says_wrong(code)
    assert failure_lines.says_wrong("npm error code err_module_not_found")
    assert not failure_lines.says_wrong("err_rate: 0.5 over the last minute")
    assert not failure_lines.says_wrong("undefined")
    assert failure_lines.says_wrong("typeerror: x is undefined")


def test_a_failure_whose_message_opens_with_no_is_a_failure():
    assert failure_lines.failure_line('App.xcodeproj: error: No Account for Team "7QX2M4K9LP".')
    assert failure_lines.failure_line("fatal: No such remote 'upstream'")
    assert not failure_lines.failure_line("Errors: none")


SIGNING = [
    "> Task :app:validateSigningRelease FAILED",
    "",
    "FAILURE: Build failed with an exception.",
    "",
    "* What went wrong:",
    "Execution failed for task ':app:validateSigningRelease'.",
    "> Keystore file '/home/ci/keys/upload.jks' not found for signing config 'release'.",
    "",
    "* Try:",
    "> Run with --stacktrace option to get the stack trace.",
    "",
    "BUILD FAILED in 6s",
]
CLEANED_FIRST = (
    ("flutter build apk --release 2>&1 | tail -12", SIGNING),
    (
        "flutter clean >/dev/null && flutter pub get -q && flutter build apk 2>&1 | tail -6",
        SIGNING[-6:],
    ),
    (
        "cd android && ./gradlew --stop; cd .. && flutter build apk --release 2>&1 | tail -8",
        SIGNING[-8:],
    ),
    (
        "flutter build apk --release -v 2>&1 | grep -E 'FAILED|found'",
        [SIGNING[0], SIGNING[6], SIGNING[-1]],
    ),
)


def test_the_same_failure_through_other_filters_after_a_step_first_counts_each_attempt():
    # A clean, the daemon stopped, verbose: what the filter shows of the same failure differs
    # each time, the failure does not.
    d = Driver()
    for command, lines in CLEANED_FIRST:
        d.turn(bash(command, "\n".join(lines)))
    persist = StateFile.view(d.state).guard.tracks["main"].stuck
    assert persisting.attempts(persist) == len(CLEANED_FIRST)
    assert failure_lines.failure_line("BUILD FAILED in 6s")
    assert failure_lines.failure_line("    ** ARCHIVE FAILED **")
    assert not failure_lines.failure_line("FAILED: 0")


NO_VERSION = [
    "Scope: all 9 workspace projects",
    "Progress: resolved 1184, reused 1156, downloaded 0, added 0",
    "\u2009ERR_PNPM_NO_MATCHING_VERSION\u2009 No matching version found for @acme/ui@^4.2.0"
    " while fetching it from https://npm.example.dev/",
    "",
    "This error happened while installing a direct dependency of /home/lee/web/apps/dashboard",
    "",
    'The latest release of @acme/ui is "4.1.3".',
]
INSTALLS = (
    ("pnpm install --force 2>&1 | grep -A4 ERR_PNPM", NO_VERSION[2:]),
    ("pnpm store prune && pnpm install 2>&1 | tail -7", NO_VERSION),
    ("pnpm install --no-frozen-lockfile 2>&1 | grep -A2 ERR_", NO_VERSION[2:5]),
    ("pnpm install --prefer-offline 2>&1 | tail -5", NO_VERSION[2:]),
)


def test_every_word_read_as_a_failure_holds_a_stem():
    # `may_report` passes over the lines that cannot be one: it must let every kind through.
    words = [
        *failure_lines.OPENINGS,
        *failure_lines.LABELLED,
        *failure_lines.SHOUTED,
        *failure_lines.TALLIES,
        *failure_lines.LOCATED,
        failure_lines.NPM_ERROR,
        failure_lines.CODE_OPENING,
    ]
    assert all(failure_lines.may_report(word) for word in words)
    assert not failure_lines.may_report("3 passed in 0.2s")


def test_an_error_code_opening_a_line_is_a_failure():
    # pnpm opens its errors with their code alone, as Node's are named (`ERR_MODULE_NOT_FOUND`).
    assert failure_lines.failure_line(NO_VERSION[2])
    assert failure_lines.failure_line("ERR_MODULE_NOT_FOUND Cannot find package 'zod'")
    assert not failure_lines.failure_line("ERRORS_ALLOWED=0 in the settings")
    # A name or a measure that opens with the letters is none, nor is a code alone.
    for line in ("err_rate: 0.00%", "err_count: 3", "err_msg = 'x'", "ERR_OK", "Err_total 0"):
        assert not failure_lines.failure_line(line), line


def test_an_error_after_the_place_a_compiler_reports_is_a_failure():
    # tsc and MSBuild name the error after its place, with no colon after the word.
    typecheck = "pnpm -F admin typecheck 2>&1 | grep TS2307"
    found = "src/layout/Shell.tsx(2,32): error TS2307: Cannot find module '@acme/ui'."
    assert _reported(typecheck, found).failed
    assert failure_lines.failure_line("Cart.cs(11,22): error CS0618: 'ISystemClock' is obsolete")
    assert failure_lines.failure_line("docs/index.md:44:121 error MD013/line-length Line length")
    # A line of source that `grep -n` found is no report.
    assert not failure_lines.failure_line("app/jobs.py:12: error = compute(batch)")
    assert not failure_lines.failure_line("notes.txt: error budget for the quarter")
    assert not failure_lines.failure_line("README.md:12: error codes are listed below")


def test_an_install_failing_on_its_error_code_through_other_filters_counts_each_attempt():
    # Only the code says it failed where a `grep` cut the print to the error itself.
    d = Driver()
    asked = [
        n
        for n, (command, lines) in enumerate(INSTALLS, 1)
        if d.turn(bash(command, "\n".join(lines)))["context"]
    ]
    assert asked == [len(INSTALLS)]


def test_what_a_print_says_in_passing_is_no_failure():
    for line in (
        "Failed requests:        0",
        "Error count: 0",
        "errors=0 warnings=2",
        " errors.go | 12 ++++--",
        "[main 9f8e7d6] Retry payments left in FAILED state",
        "  ✓ returns 404 error for an unknown id (12 ms)",
        "Test error: 1.2%",
        "failover complete",
    ):
        assert not failure_lines.failure_line(line), line
    assert failure_lines.failure_line("Found 41 errors in 13 files.")
    assert failure_lines.failure_line("✖ 3 problems (1 error, 2 warnings)")


def test_a_look_at_logs_over_ssh_is_a_look():
    print_ = "2026-03-02T10:01:12Z ERROR payment declined: card_expired"
    assert not _reported(
        "ssh prod 'tail -200 /var/log/app.log' | grep ERROR | tail -2", print_
    ).failed
    assert not _reported("heroku logs -a shop | grep ERROR | tail -1", print_).failed


MAVEN_TRAILER = (
    "[ERROR] \n[ERROR] For more information about the errors and possible solutions, please"
    " read the following articles:\n[ERROR] [Help 1] http://cwiki.apache.org/confluence/display"
    "/MAVEN/MojoFailureException"
)


def test_fixes_from_the_shell_are_fixes_to_code_the_record_never_pauses_for():
    # Each `sed` fixes one error; the build's last lines are Maven's trailer every time. (The
    # run of one failure printed word for word still pauses at its 6th, filtered or not.)
    d = Driver()
    for n in range(6):
        if n:
            d.turn(bash(f"sed -i 's/getFoo{n}()/foo{n}()/' src/main/java/com/acme/A{n}.java", ""))
        d.turn(bash("mvn -q compile 2>&1 | tail -3", MAVEN_TRAILER))
    stuck = StateFile.view(d.state).guard.tracks["main"].stuck
    assert stuck.persist is not None and stuck.persist.coded == 5
    assert not persisting.pause_due(stuck, 4)


def test_a_filtered_run_that_says_it_passed_ends_the_count():
    d = Driver()
    for n in range(10):
        d.turn(edit(f"/p/app/cart_{n}.py", "total = 0", f"total = {n}"))
        printed = "1 failed, 40 passed in 3.1s" if n % 2 else "41 passed in 3.0s"
        assert not d.turn(bash("pytest -q 2>&1 | tail -1", printed))["context"], n


def test_a_tally_of_errors_going_down_behind_a_filter_is_progress():
    d = Driver()
    spellings = (
        "npx tsc --noEmit 2>&1 | tail -1",
        "npx tsc --noEmit -p tsconfig.json 2>&1 | tail -1",
    )
    for n, errors in enumerate((41, 30, 22, 15, 9, 5, 3)):
        if n:
            d.turn(edit("/p/tsconfig.json", f'"target": "es20{n}"', f'"target": "es20{n + 1}"'))
        out = d.turn(bash(spellings[n % 2], f"Found {errors} errors in {errors // 3 + 1} files."))
        assert not out["context"] and d.paused is None, errors


def test_one_failure_fewer_among_many_is_progress():
    d = Driver()
    for fixed in range(6):
        d.turn(edit(f"/p/tests/test_{fixed}.py", "assert x", "assert y"))
        failing = "\n".join(
            f"FAILED tests/test_{n}.py::test_case - assert 1 == 2" for n in range(fixed, 18)
        )
        out = d.turn(bash("pytest -q 2>&1 | grep FAILED", failing))
        assert not out["context"], fixed
