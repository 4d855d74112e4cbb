"""A failure that outlives what was tried against it is one loop (`loop_guard.persisting`).

Settings turned one after another (timeouts raised, retries added, a rule switched off in one
config file after another) while the command is respelt (a flag, a cache cleared first) and the
build prints the same failure each time: the fourth attempt gets a request, and a pause comes
two attempts later than for plain retries, since a setting tried after the request may be the
one. Fixes to code count too when the failure comes back printed as before: none of them
touched what fails. The user's words, the failing program answering otherwise, files written
from the shell, or the failure itself moving start it again; a failure seen right after an edit
back to a content the file had neither counts nor moves it."""

from __future__ import annotations

from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import edit
from testing.guard_driver import fail

from arcguard.core import render
from arcguard.core.loop_guard import persisting
from arcguard.core.loop_records import Stuck
from arcguard.core.schema import StateFile


UNAUTHORIZED = (
    "> Task :compileJava FAILED\n\nFAILURE: Build failed with an exception.\n\n"
    "* What went wrong:\nExecution failed for task ':compileJava'.\n"
    "> Could not resolve com.acme:commons:2.3.1.\n"
    "   > Could not GET 'https://nexus.acme.internal/repository/maven-releases/com/acme/"
    "commons/2.3.1/commons-2.3.1.pom'. Received status code 401 from server: Unauthorized\n\n"
    "BUILD FAILED in 3s\n1 actionable task: 1 executed"
)
BANNER = "Starting a Gradle Daemon (subsequent builds will be faster)\n"
SPELLINGS = ("./gradlew build", "./gradlew build --no-build-cache", "./gradlew build --no-parallel")
PROPERTIES = "/p/gradle.properties"


def _setting(n: int) -> Call:
    """A setting added under the last one: lines put in, so no knob turned in place."""
    old = f"systemProp.timeout.{n}=1" if n else "org.gradle.caching=true"
    return edit(PROPERTIES, old, f"{old}\nsystemProp.timeout.{n + 1}=1")


def _build(n: int, text: str = UNAUTHORIZED) -> Call:
    return fail(SPELLINGS[n % len(SPELLINGS)], text)


def _three_attempts() -> Driver:
    """A session three attempts into the failure, a setting added before the second and third,
    the build respelt each time."""
    d = Driver()
    for n in range(3):
        if n:
            d.turn(_setting(n))
        d.turn(_build(n))
    return d


def _words(d: Driver, attempts: int, *, between: Call | None = None) -> list[str]:
    """Attempts with a setting added before each (and `between` after each): the first turn
    of each request ('ask') and of the pause ('pause'), as `attempt:word`."""
    found = []
    for n in range(attempts):
        if n:
            d.turn(_setting(n))
        out = d.turn(_build(n))
        if between is not None:
            d.turn(between)
        if out["context"]:
            found.append(f"{n + 1}:ask")
        if d.paused is not None:
            found.append(f"{n + 1}:pause")
            break
    return found


def test_settings_turned_while_the_build_is_respelt_is_asked_about_at_the_4th_then_paused():
    assert _words(Driver(), 12) == ["4:ask", "6:pause"]


def test_a_look_between_the_attempts_does_not_end_their_run():
    look = bash("curl -s -o /dev/null -w '%{http_code}' https://nexus.acme.internal/", "200")
    assert _words(Driver(), 12, between=look) == ["4:ask", "6:pause"]


def test_one_request_for_the_failure_whichever_count_reaches_it():
    d = Driver()
    _words(d, 8)
    assert sum(bool(render.context_text(o)) for o in d.outputs) == 1


def test_the_same_build_run_word_for_word_after_each_setting_is_left_alone():
    # Each setting's own test: the build as it always runs, after each edit.
    d = Driver()
    for n in range(10):
        if n:
            d.turn(_setting(n))
        assert not d.turn(fail(SPELLINGS[0], UNAUTHORIZED))["context"], n
    assert d.paused is None


def test_the_failure_printed_with_a_banner_the_first_time_is_that_failure():
    d = Driver()
    d.turn(_build(0, BANNER + UNAUTHORIZED))
    for n in range(1, 4):
        d.turn(_setting(n))
        out = d.turn(_build(n))
    assert out["context"]


VALIDATION = (
    "tests/test_carts.py F\n\n=================================== FAILURES ===\n"
    "E       assert 422 == 201\n"
    "E        +  where 422 = <Response [422]>.status_code\n"
    "FAILED tests/test_carts.py::test_add_item - assert 422 == 201\n"
    "1 failed in 0.41s"
)
SUSPECTS = ("app/services/carts.py", "tests/conftest.py", "app/routers/carts.py", "app/main.py")


def _fix(n: int, suspects: tuple[str, ...] = SUSPECTS) -> Call:
    """A fix tried in another file each time: a new content, code, not a value turned."""
    path = f"/p/{suspects[n % len(suspects)]}"
    return edit(path, f"step_{n} = lookup(a)", f"step_{n} = lookup(a, fresh=True)")


def _asked_then_paused(suspects: tuple[str, ...], failure: str = VALIDATION) -> list[str]:
    """The test run after each fix (in `suspects` in turn), failing as `failure` prints:
    the attempts asked about and paused at, as `attempt:word`."""
    d, found = Driver(), []
    for n in range(10):
        if n:
            d.turn(_fix(n, suspects))
        out = d.turn(fail("pytest tests/test_carts.py", failure.replace("0.41", f"0.4{n}")))
        found += [f"{n + 1}:ask"] * bool(out["context"]) + [f"{n + 1}:pause"] * bool(d.paused)
        if d.paused:
            break
    return found


def test_fixes_kept_to_two_files_that_leave_the_failure_as_printed_are_paused_at_the_6th():
    # A service and its router rewritten in turn, the 422 as before each time: the fixes went
    # at the failure and missed it.
    assert _asked_then_paused(SUSPECTS[::2]) == ["4:ask", "6:pause"]


def test_fixes_spread_wide_before_the_failure_moved_do_not_spare_the_fixes_after_it():
    # Fixes in four files while one failure stood (asked about at its 4th attempt); then the
    # failure moves (another status) and fixes in one file leave that one as printed: only
    # those count, and they went at it. The one request stands for both.
    d, found = Driver(), []
    for n in range(5):
        d.turn(_fix(n))
        out = d.turn(fail("pytest tests/test_carts.py", VALIDATION))
        found += [f"{n + 1}:ask"] * bool(out["context"])
    moved = VALIDATION.replace("422", "500")
    for n in range(5, 15):
        d.turn(_fix(n, SUSPECTS[:1]))
        d.turn(fail("pytest tests/test_carts.py", moved))
        if d.paused:
            found.append(f"{n - 4}:pause")  # the attempt of the moved failure
            break
    assert found == ["4:ask", "6:pause"]


def test_fixes_in_code_that_leave_the_failure_as_printed_are_asked_about_not_paused():
    # The same test run word for word after each fix (in four files in turn), the failure
    # printed as before each time: none of the fixes touched what fails. The request says so;
    # no pause, as the failure may be one beside the work on the code.
    d = Driver()
    found, said = [], ""
    for n in range(10):
        if n:
            d.turn(_fix(n))
        out = d.turn(fail("pytest tests/test_carts.py", VALIDATION.replace("0.41", f"0.4{n}")))
        said += str(out["context"] or "")
        found += [f"{n + 1}:ask"] * bool(out["context"]) + [f"{n + 1}:pause"] * bool(d.paused)
        if d.paused:
            break
    assert found == ["4:ask"]
    assert "the 3 edits to code among them left the failure as it was" in said


DUPLICATE = (
    "INFO  [alembic.runtime.migration] Running upgrade 3f9a -> 8d21, add archived_at\n"
    'psycopg2.errors.DuplicateColumn: column "archived_at" of relation "projects" already '
    "exists\n"
    'sqlalchemy.exc.ProgrammingError: (psycopg2.errors.DuplicateColumn) column "archived_at" '
    'of relation "projects" already exists\n'
    "[SQL: ALTER TABLE projects ADD COLUMN archived_at TIMESTAMP WITH TIME ZONE]\n"
    "(Background on this error at: https://sqlalche.me/e/20/f405)"
)
FILTERS = ("| tail -3", "| grep -E 'Error|SQL:'", "| tail -4")


def _slice(spelling: str) -> str:
    """What each filter lets through of the same failing print."""
    lines = DUPLICATE.splitlines()
    if "grep" in spelling:
        return "\n".join(line for line in lines if "Error" in line or "SQL:" in line)
    return "\n".join(lines[-int(spelling[-1]) :])


def test_fixes_in_code_then_the_failure_through_other_filters_are_asked_about_not_paused():
    # Each fix, then the migration run again through another filter: each gives the cause the
    # first print gave, and no line saying what went wrong that an attempt had not printed, so
    # none of the fixes reached what fails.
    d = Driver()
    found = []
    for n in range(8):
        if n:
            d.turn(_fix(n))
        spelling = FILTERS[n % len(FILTERS)]
        out = d.turn(bash(f"alembic upgrade head 2>&1 {spelling}", _slice(spelling)))
        found += [f"{n + 1}:ask"] * bool(out["context"]) + [f"{n + 1}:pause"] * bool(d.paused)
    assert found == ["4:ask"]


USECOLS = (
    "E   ValueError: Usecols do not match columns, columns expected but not found: ['order_id']"
)
SUMMARY = "FAILED tests/test_etl.py::test_daily - ValueError: Usecols do not match columns"


def _etl_attempts(counted: tuple[str, ...]) -> list[Call]:
    """One cause printed four ways: the whole run, its summary through `tail`, the run again
    through `python -m`, and the function called on its own, which prints the error alone."""
    return [
        fail("pytest tests/test_etl.py", f"{USECOLS}\n{SUMMARY}\n{counted[0]} passed"),
        fail("pytest tests/test_etl.py 2>&1 | tail -2", f"{SUMMARY}\n{counted[1]} passed in 2s"),
        fail("python -m pytest tests/test_etl.py", f"{USECOLS}\n{SUMMARY}\n{counted[2]} passed"),
        fail("python -c 'from etl import run; run()'", USECOLS[4:]),
    ]


def test_one_cause_printed_by_other_commands_and_filters_after_fixes_is_asked_about():
    # Fixes in one file after another; the run cut by other filters, then the function run on
    # its own: each print gives the cause the first gave and nothing else that went wrong.
    d = Driver()
    found = []
    for n, attempt in enumerate(_etl_attempts(("1 failed, 5",) * 3)):
        if n:
            d.turn(_fix(n))
        found += [f"{n + 1}:ask"] * bool(d.turn(attempt)["context"])
    assert found == ["4:ask"]
    assert d.paused is None


def test_one_cause_printed_while_the_count_of_failures_falls_is_the_fixes_work():
    d = Driver()
    for n, attempt in enumerate(_etl_attempts(("3 failed, 3", "2 failed, 4", "1 failed, 5"))):
        if n:
            d.turn(_fix(n))
        assert not d.turn(attempt)["context"], n


def test_one_cause_met_by_tests_of_one_file_after_another_is_a_finding_per_file():
    # A fix, then the next file's tests: each file failing on the shared cause is a finding.
    d = Driver()
    for n, name in enumerate(("orders", "refunds", "invoices", "payouts", "ledger")):
        if n:
            d.turn(_fix(n))
        out = d.turn(fail(f"pytest tests/test_{name}.py 2>&1 | tail -1", USECOLS))
        assert not out["context"], name


def test_fewer_failures_after_each_fix_seen_through_other_filters_is_progress():
    # Each fix makes one more test pass; each run is read through another grep.
    d = Driver()
    greps = ("| grep FAILED", "| grep -E '^FAILED'", "| grep -e FAILED")
    for n in range(8):
        if n:
            d.turn(_fix(n))
        failing = "\n".join(
            f"FAILED tests/test_carts.py::test_{k} - assert 422 == 201" for k in range(8 - n)
        )
        out = d.turn(bash(f"pytest tests/test_carts.py {greps[n % 3]}", failing))
        assert not out["context"], n


def test_fixes_tried_and_taken_back_one_after_another_are_still_fixes_that_missed():
    # A line added, the failure as before, the line taken out again: each is a fix that did
    # not reach what fails, not a suspect ruled out (that takes a line out first).
    d = Driver()
    main, original = "/p/app/main.py", "app = App()\n"
    d.turn(fail("pytest tests/test_carts.py", VALIDATION))
    for n in range(5):
        fixed = f"app = App()\napp.add_middleware(Fix{n})\n"
        d.turn(edit(main, original, fixed, original=original))
        d.turn(fail("pytest tests/test_carts.py", VALIDATION))
        d.turn(edit(main, fixed, original, original=fixed))  # back to what the file had
    assert persisting.attempts(_stuck(d)) == 6


def test_a_debug_print_reworded_between_runs_moves_what_the_run_prints():
    # Only the quoted text of a print changes, but the run shows it: each run told something.
    d = Driver()
    checks = ("pytest -q tests/test_cart.py", "pytest -s -q tests/test_cart.py")
    shown = ("subtotal", "items", "shipping", "rates")
    for n in range(8):
        if n:
            old, new = shown[(n - 1) % 4], shown[n % 4]
            d.turn(edit("/p/cart.py", f'print(f"DEBUG {{{old}=}}")', f'print(f"DEBUG {{{new}=}}")'))
        captured = f"----- Captured stdout call -----\nDEBUG {shown[n % 4]}={n}\n"
        assert not d.turn(fail(checks[n % 2], captured + VALIDATION))["context"], n
    assert d.paused is None


def test_a_value_walked_in_code_under_the_same_check_is_left_alone():
    # A number stepped in place, the check as it always runs after each step: a search along
    # one value, whose failure stands until the value is reached.
    d = Driver()
    for n in range(10):
        if n:
            d.turn(edit("/p/app/cache.py", f"TTL = {n}", f"TTL = {n + 1}"))
        assert not d.turn(fail("pytest tests/test_cache.py -q", VALIDATION))["context"], n
    assert d.paused is None


def test_an_edit_to_code_that_moved_the_failure_starts_the_count_again():
    d = _three_attempts()
    d.turn(edit("/p/src/main/java/Money.java", "int cents;", "long cents;"))
    d.turn(_build(3, f"{UNAUTHORIZED}\nFAILED: 2 of 9 modules"))
    assert persisting.attempts(_stuck(d)) == 1


def test_the_failing_program_answering_otherwise_starts_the_count_again():
    d = _three_attempts()
    d.turn(
        bash(
            "./gradlew build --offline", "BUILD SUCCESSFUL in 4s\n5 actionable tasks: 5 up-to-date"
        )
    )
    for n in range(3, 6):
        d.turn(_setting(n))
        assert not d.turn(_build(n))["context"], n


def test_the_users_words_start_the_count_again():
    d = _three_attempts()
    answer = (
        "The user doesn't want to proceed with this tool use. The tool use was rejected. To "
        "tell you how to proceed, the user said:\nuse the public mirror instead"
    )
    d.turn(Call("Bash", {"command": "./gradlew publish"}, error=answer))
    assert persisting.attempts(_stuck(d)) == 0


def test_a_failure_whose_failing_lines_moved_is_news():
    # One test fewer failing each time: the edits are getting somewhere.
    d = Driver()
    for n in range(6):
        if n:
            d.turn(_setting(n))
        tally = f"FAILED tests/test_api.py - {6 - n} failed, {n} passed"
        assert not d.turn(_build(n, f"{UNAUTHORIZED}\n{tally}"))["context"], n


def test_a_failure_right_after_an_edit_back_neither_counts_nor_moves():
    # Suspects ruled out one at a time, each put back: the failure after a put-back is what
    # the session expected; the one after each suspect ruled out is an attempt.
    suspects = [f"org.gradle.{name}=true" for name in ("parallel", "caching", "daemon", "vfs")]
    original = "".join(f"{line}\n" for line in suspects)
    d = Driver()
    d.turn(_build(0))
    for n, line in enumerate(suspects, start=1):
        d.turn(_shown(original, line, f"#{line}"))
        d.turn(_build(n))
        d.turn(_shown(original.replace(line, f"#{line}"), f"#{line}", line))
        d.turn(_build(n + 1))
    assert persisting.attempts(_stuck(d)) == 5


def _shown(original: str, old: str, new: str) -> Call:
    """An edit whose response shows the file's content, so going back to it is a revisit."""
    return edit(PROPERTIES, old, new, original=original)


def test_a_change_that_answered_then_another_failure_starts_the_count_again():
    d = _three_attempts()
    d.turn(bash("./gradlew --stop", "Stopping Daemon(s)\n1 Daemon stopped"))
    d.turn(_build(3, UNAUTHORIZED.replace("401", "403").replace("Unauthorized", "Forbidden")))
    assert persisting.attempts(_stuck(d)) == 1


def test_a_refused_repeat_is_one_more_attempt():
    d = _three_attempts()
    counts = []
    for _ in range(3):  # the same spelling again, nothing edited: the guard refuses the third
        d.turn(_build(0))
        counts.append(persisting.attempts(_stuck(d)))
    assert d.denied and counts == [4, 5, 6]


def test_failures_not_seen_for_a_while_are_forgotten():
    d = _three_attempts()
    for n in range(persisting.WINDOW + 1):
        d.turn(bash(f"cat notes/{n}.md", f"note {n}"))
    d.turn(_build(3))
    assert persisting.attempts(_stuck(d)) == 1


def _stuck(d: Driver) -> Stuck:
    return StateFile.view(d.state).guard.tracks["main"].stuck


def test_a_file_written_from_the_shell_is_a_change_the_failure_as_before_shows_moved_nothing():
    d = _three_attempts()
    d.turn(bash("sed -i 's/caching=true/caching=false/' gradle.properties", ""))
    d.turn(_build(3))
    assert persisting.attempts(_stuck(d)) == 4
    d.turn(bash("rm -rf ~/.gradle/caches/modules-2", ""))
    d.turn(_build(4, f"{UNAUTHORIZED}\nFAILED: 2 of 9 modules"))
    assert persisting.attempts(_stuck(d)) == 1  # what the write changed moved the failure


def test_other_code_checked_out_starts_the_count_again():
    d = _three_attempts()
    d.turn(bash("git checkout 3f2a9c1", "HEAD is now at 3f2a9c1 Pin commons to 2.3.0"))
    assert persisting.attempts(_stuck(d)) == 0


def test_a_failure_that_moved_then_stays_counts_from_where_it_moved():
    d = _three_attempts()
    fewer = f"{UNAUTHORIZED}\nFAILED: 2 of 9 modules"
    for n in range(3, 6):
        d.turn(_setting(n))
        assert not d.turn(_build(n, fewer))["context"], n


def test_a_sweep_over_named_targets_failing_alike_is_a_finding_per_target():
    d = Driver()
    for n, repo in enumerate(("api", "web", "docs", "infra", "cli")):
        if n:
            d.turn(_setting(n))
        command = f"gh api repos/acme/{repo}/branches/main/protection"
        assert not d.turn(fail(command, "gh: Not Found (HTTP 404)"))["context"], repo


def test_a_matrix_whose_header_names_each_version_asked_for_is_a_finding_per_version():
    # The user asked which Pythons fail: each run names its version in its header.
    d = Driver()
    for version in ("3.8.19", "3.9.19", "3.10.14", "3.11.9", "3.12.4", "3.13.0"):
        header = f"Using CPython {version}\nplatform linux -- Python {version}, pytest-8.2.1\n"
        failure = header + "E       AssertionError: assert '02:30-08:00' == '03:30-07:00'\n1 failed"
        short = version.rpartition(".")[0]
        out = d.turn(fail(f"uv run --python {short} pytest tests/test_dates.py", failure))
        assert not out["context"], version
    assert d.paused is None


def test_a_test_given_longer_each_time_fails_the_same_way():
    # `-timeout 60s` after `30s` is the same test given longer, not another target: the 4th
    # attempt timing out is asked about.
    d, asked = Driver(), []
    for n, limit in enumerate(("30s", "60s", "2m", "5m")):
        command = f"go test ./internal/pool/ -run TestPoolDrains -timeout {limit}"
        text = (
            f"panic: test timed out after {limit}\n\trunning tests:\n\t\tTestPoolDrains ({limit})"
            f"\n\ngoroutine 10 [chan send]:\nFAIL\tgithub.com/acme/ingest/internal/pool\t{n}.01s"
        )
        asked.append(bool(d.turn(fail(command, text))["context"]))
    assert asked == [False, False, False, True]


NO_MATCH = (
    " ERR_PNPM_NO_MATCHING_VERSION  No matching version found for @acme/ui@^4.2.0 while fetching"
    " it from https://npm.pkg.example.dev/\n\nThis error happened while installing a direct"
    ' dependency of /w/apps/dashboard\n\nThe latest release of @acme/ui is "4.1.3".'
)


def test_an_install_behind_file_chores_and_a_look_is_the_same_install():
    # The command is judged by the install, not by the chores or the look before it.
    d, asked = Driver(), []
    for command, text in (
        ("pnpm install", NO_MATCH),
        ("rm -rf node_modules apps/*/node_modules && pnpm install", NO_MATCH),
        ("cp pnpm-lock.yaml /tmp/lock.bak && rm pnpm-lock.yaml && pnpm install", NO_MATCH),
        (
            "pnpm config get resolution-mode; pnpm install --resolution-mode=highest 2>&1"
            " | grep -E 'ERR_PNPM|latest release'",
            "undefined\n" + "\n".join(NO_MATCH.splitlines()[::4]),
        ),
    ):
        asked.append(bool(d.turn(fail(command, text))["context"]))
    assert asked == [False, False, False, True]


def _fixes_then(check: str, failure: str, files: tuple[str, ...]) -> list[str]:
    """A fix (in `files` in turn) before each run of `check` but the first, each failing as
    `failure` prints: the attempts asked about and paused at, as `attempt:word`."""
    d, found = Driver(), []
    for n in range(10):
        if n:
            d.turn(edit(files[n % len(files)], f"step_{n} = 1", f"step_{n} = compute()"))
        out = d.turn(fail(check, failure))
        found += [f"{n + 1}:ask"] * bool(out["context"]) + [f"{n + 1}:pause"] * bool(d.paused)
        if d.paused:
            break
    return found


def test_fixes_to_the_code_of_a_test_the_check_selects_are_paused_when_it_fails_alike():
    # `-run` asks for the test that fails: fixes in the pool went at it.
    failure = "--- FAIL: TestPoolDrains (0.01s)\n    pool_test.go:31: got 3, want 4\nFAIL"
    check = "go test ./internal/pool -run TestPoolDrains"
    assert _fixes_then(check, failure, ("/w/internal/pool/pool.go",)) == ["4:ask", "6:pause"]
    # The whole suite failing alike on that test, the pool edited: work beside it.
    assert _fixes_then("go test ./...", failure, ("/w/internal/pool/pool.go",)) == ["4:ask"]
    # A selector's expression is read as the shell and the runner read it: its names, not its
    # operators (`not` is in the print) nor its anchors.
    anchored = "go test ./internal/pool -run '^TestPoolDrains$'"
    assert _fixes_then(anchored, failure, ("/w/internal/pool/pool.go",)) == ["4:ask", "6:pause"]
    beside = "--- FAIL: TestCacheWarm (0.01s)\n    cache_test.go:9: the cache is not warm\nFAIL"
    assert _fixes_then('go test ./... -k "not slow"', beside, ("/w/pool.go",)) == ["4:ask"]
    # An option other programs spell like a runner's selector selects no test there.
    web = "/w/packages/web:\n FAIL  src/cart.test.ts > total\nAssertionError: expected 3 to be 4"
    assert _fixes_then("pnpm --filter web test", web, ("/w/packages/web/src/log.ts",)) == ["4:ask"]


def test_fixes_to_a_builds_own_files_are_paused_when_it_fails_alike():
    # The linker names symbols, no file: a Podfile and the Xcode project are the build's own.
    failure = (
        "Undefined symbols for architecture arm64:\n"
        '  "_FIRCLSExceptionRecordNSException", referenced from: ...\n'
        "ld: symbol(s) not found for architecture arm64\n** ARCHIVE FAILED **"
    )
    check = "xcodebuild -workspace Ledgerly.xcworkspace -scheme Ledgerly archive"
    files = ("/w/ios/Podfile", "/w/ios/Ledgerly.xcodeproj/project.pbxproj")
    assert _fixes_then(check, failure, files) == ["4:ask", "6:pause"]
    assert _fixes_then(check, failure, ("/w/ios/Ledgerly/AppDelegate.swift",)) == ["4:ask"]


def test_what_showed_the_fixes_aimed_is_forgotten_when_another_failure_comes():
    # Aimed at the carts test while it failed; then the whole suite, failing alike on a test
    # of another module while one file is edited, is work beside that one.
    d = Driver()
    for n in range(3):
        d.turn(_fix(n, SUSPECTS[:1]))
        d.turn(fail("pytest tests/test_carts.py", VALIDATION))
    other = "E   assert cache.get('k') == 'v'\nFAILED tests/test_cache.py::test_ttl\n1 failed"
    for n in range(3, 13):
        d.turn(_fix(n, SUSPECTS[:1]))
        d.turn(fail("pytest -q", other))
    assert d.paused is None


def test_fixes_seen_only_through_a_filter_that_cuts_the_print_are_never_paused():
    # Lint errors fixed from the top of one file, each run through `| tail -3`: the last three
    # errors show as before, though each fix took one away above them.
    failure = (
        "app.py:118:1: E302 expected 2 blank lines, found 1\n"
        "app.py:131:80: E501 line too long (88 > 79 characters)\n"
        "app.py:140:5: F841 local variable 'tmp' is assigned to but never used"
    )
    assert _fixes_then("flake8 app.py | tail -3", failure, ("/w/app.py",)) == ["4:ask"]
    # The same print unfiltered names the file fixed, six times: the fixes missed.
    assert _fixes_then("flake8 app.py", failure, ("/w/app.py",)) == ["4:ask", "6:pause"]
