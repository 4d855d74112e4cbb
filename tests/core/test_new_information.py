"""Progress is new information: a run of calls is judged by what its results add, not by how
each call is spelt.

Each case is a class of loop or look-alike: one failure re-run under new spellings while it
names a different program or path each time, with a one-off call among the attempts; a probe
rotated through four spellings; a triage where each number names its own target; a test re-run
after each real edit.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import fail
from testing.guard_driver import tag

from arcguard.core import render
from arcguard.core.loop_guard import command_words
from arcguard.core.loop_guard import failures
from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import shell_writes
from arcguard.core.loop_guard import tool_effects
from arcguard.core.loop_records import Stuck
from arcguard.core.tool_call import ToolCall
from arcguard.core.tool_call import ToolResult


def _run(d: Driver, *calls: Call) -> int:
    """Run each call as a turn of its own; the number of the first turn with a check-in."""
    first = 0
    for call in calls:
        out = d.turn(call)
        if out["context"] and not first:
            first = d.turns
    return first


def test_one_failure_under_new_spellings_and_program_names_is_checked_in_then_paused():
    d = Driver()
    spellings = (
        ("python -m pytest tests", "python"),
        ("python3 -m pytest tests | tail -20", "python3"),
        ("/usr/bin/python3 -m pytest tests 2>&1 | head -40", "/usr/bin/python3"),
        ('"python3" -m pytest "tests"', "python3"),
    )
    attempts = []
    for n in range(8):
        command, program = spellings[n % 4]
        out = d.turn(fail(command, f"{program}: No module named pytest"))
        attempts.append(out)
        if n == 1:
            # A one-off look elsewhere brings something new; it does not end the loop.
            d.turn(Call("Read", {"file_path": "/p/setup.cfg"}, response={"c": "[options]"}))
    assert [bool(a["context"]) for a in attempts[:4]] == [False, False, False, True]
    assert d.paused is not None and d.paused["kind"] == "stuck"
    assert "attempts failed the same way" in d.paused["reason"]


def test_a_failure_reads_the_same_whether_or_not_the_command_names_its_port():
    d = Driver()
    in_use = "Error: listen EADDRINUSE: address already in use :::3000"
    starts = (
        "npm run dev",
        "npm run dev -- -p 3000",
        "PORT=3000 npm run dev",
        "npx next dev -p 3000",
    )
    assert _run(d, *(fail(command, in_use) for command in starts)) == 4


def test_the_same_failure_on_each_port_tried_is_a_failure_per_port():
    # Looking for the port a service listens on: each refusal names the port the call named.
    d = Driver()
    said = ("Not on 3000.", "Nothing at 3001 either.", "Vite's default, then.", "Maybe 8000.")
    said += ("Trying 8080.", "And 8081.", "Perhaps 4000.", "Last guess: 5000.")
    for n, port in enumerate((3000, 3001, 5173, 8000, 8080, 8081, 4000, 5000)):
        refused = f"curl: (7) Failed to connect to localhost port {port}: Couldn't connect"
        out = d.turn(fail(f"curl -sf http://localhost:{port}/health", refused), text=said[n])
        assert not out["context"], port
    assert d.paused is None


def test_a_failure_retried_among_other_failures_is_still_recognised_in_part():
    # `npm run dev` echoes the script before failing, `npx next dev` does not: the second
    # shows only lines of the first, and a `kill` failing its own way came between them.
    d = Driver()
    in_use = "Error: listen EADDRINUSE: address already in use :::3000\n    at Server.listen"
    npm = f"> web@2.3.0 dev\n> next dev -p 3000\n\n{in_use}"
    calls = (
        fail("npm run dev", npm),
        fail("kill 48213", "bash: kill: (48213) - No such process"),
        fail("npx next dev -p 3000", in_use),
        fail("fuser -k 3000/tcp", ""),
        fail("PORT=3000 npm run dev", npm),
        fail("npx next dev --port 3000", in_use),
    )
    assert _run(d, *calls) == 6


BUILD_ERROR = "# example.com/app\n./main.go:3:2: undefined: foo"


def test_a_failure_seen_through_output_filters_is_one_failure_whatever_the_exit_code():
    # `cmd | tail` exits with the filter's code: Claude Code reports it completed, though it
    # shows the same failure, with a line more or less around it.
    d = Driver()
    attempts = [
        fail("go build ./...", BUILD_ERROR),
        bash("go build ./... 2>&1 | tail -20", BUILD_ERROR),
        bash("go build -v ./... 2>&1 | head -30", f"example.com/app\n{BUILD_ERROR}"),
        fail("go vet ./...", "# example.com/app\nvet: ./main.go:3:2: undefined: foo"),
        bash("go build ./... 2>&1; echo exit=$?", f"{BUILD_ERROR}\nexit=1"),
        bash("cd /src/app && go build ./... 2>&1 | grep -v warning", BUILD_ERROR),
        bash("go build -x ./... 2>&1 | tail -3", f"WORK=/tmp/go-build1\n{BUILD_ERROR}"),
    ]
    assert _run(d, *attempts) == 4
    assert d.paused is not None and "6 attempts failed the same way" in d.paused["reason"]


def test_a_result_showing_only_lines_of_the_failure_is_that_failure():
    d = Driver()
    d.turn(fail("go build ./...", BUILD_ERROR))
    line = "main.go:3:2: undefined: foo"
    views = ("grep undefined", "tail -1", "grep -A1 main.go")
    assert _run(d, *(bash(f"go build ./... 2>&1 | {v}", line) for v in views)) == 4


def test_a_failure_not_seen_for_ten_turns_is_no_longer_the_one_retried():
    d = Driver()
    d.turn(fail("go build ./...", BUILD_ERROR))
    for n in range(11):
        d.turn(Call("Read", {"file_path": f"/src/app/f{n}.go"}, response={"n": f"file {n}"}))
    views = (bash(f"go build ./... 2>&1 | tail -{n}", BUILD_ERROR) for n in (5, 9, 20, 30))
    assert _run(d, *views) == 0


def test_a_green_build_that_prints_the_failed_builds_first_lines_is_not_that_failure():
    # A build prints the same steps when it passes, without the error at the end.
    steps = "> web@1.4.0 build\n> tsc -p tsconfig.json"
    d = Driver()
    d.turn(fail("npm run build", f"{steps}\n\nsrc/a.ts(4,7): error TS2322: Type 'string'"))
    renames = (
        bash(f"sed -i 's/getUser/fetchUser/g' src/{name}.ts && npm run build", steps)
        for name in ("api", "auth", "cart", "user", "shop", "list", "item")
    )
    assert _run(d, *renames) == 0
    assert d.paused is None


def test_failures_that_share_a_long_preamble_but_not_their_error_are_different():
    # Progress lines first, the error last: the error is what names the failure.
    crates = "\n".join(f"   Compiling crate{chr(97 + n)}{chr(98 + n)} v0.1.0" for n in range(26))
    errors = [f"error[E0425]: cannot find value `{name}` in this scope" for name in "uvwxyz"]
    d = Driver()
    for n, error in enumerate(errors):
        d.turn(fail(f"cargo build{' -q' * n}", f"{crates}\n{error}"))
    assert d.paused is None and d.main["stuck"]["fails"] == 1


def test_a_result_that_misses_a_line_of_the_failure_and_adds_its_own_is_something_else():
    d = Driver()
    d.turn(fail("go build ./...", f"{BUILD_ERROR}\n./main.go:9:1: undefined: bar"))
    other = f"{BUILD_ERROR}\n./main.go:9:1: undefined: baz"
    assert _run(d, *(bash(f"go build ./... 2>&1 | tail -{n}", other) for n in range(6))) == 0
    assert d.paused is None


def test_after_an_edit_the_failure_seen_again_starts_a_new_count():
    d = Driver()
    for _ in range(3):
        d.turn(fail("go build ./...", BUILD_ERROR))
    d.turn(
        Call(
            "Edit",
            {"file_path": "/src/app/main.go", "old_string": "foo()", "new_string": "Foo()"},
            response={"filePath": "/src/app/main.go", "structuredPatch": [{"lines": ["+x"]}]},
        )
    )
    first = _run(d, *(bash(f"go build ./... 2>&1 | tail -{n}", BUILD_ERROR) for n in (5, 9, 20)))
    assert d.main["stuck"]["fails"] == 3
    # The record of a failure that outlives the tries asks at once, as it does unfiltered: the
    # edit left the failing lines as they were printed, through whichever filter.
    assert first == 5


def test_the_failure_a_program_or_path_names_reads_as_one_cause():
    one = shape.failure_text("cmd/server/main.go:14:2: undefined: config.Load")
    assert one == shape.failure_text("vet: cmd/server/main.go:14:2: undefined: config.Load")
    assert one == shape.failure_text(
        "/home/dev/svc/cmd/server/main.go:14:2: undefined: config.Load"
    )
    assert one != shape.failure_text("main.go:14:2: undefined: config.Save")


def test_a_probe_rotated_through_four_spellings_is_checked_in_on_by_its_tenth_sighting():
    d = Driver()
    spellings = (
        "curl -s localhost:7000/healthz",
        "curl -sS http://127.0.0.1:7000/healthz | jq .",
        "curl --silent 'http://localhost:7000/healthz'",
        "wget -qO- http://localhost:7000/healthz",
    )
    calls = [
        bash(spellings[n % 4], f'{{"ok": true, "served": {5000 + 17 * n}}}') for n in range(30)
    ]
    first = _run(d, *calls)
    assert 0 < first <= 10
    assert d.paused is not None


def test_answers_that_alternate_between_two_seen_ones_are_counted_together():
    # A flapping service answers 502 and 503 in turn: neither answer is news after its first
    # sighting, so the run is every repeat of either, not the longer of the two alone. (The
    # rotation of spellings is a cycle too; that rule is set aside to see this one.)
    d = Driver(cycle_repeats_identical=1000, cycle_repeats=1000)
    spellings = (
        "curl -s localhost:7000/healthz",
        "curl -sS http://127.0.0.1:7000/healthz",
        "curl --silent 'http://localhost:7000/healthz'",
    )
    answers = ("502 Bad Gateway", "503 Service Unavailable")
    calls = [bash(spellings[n % 3], answers[n % 2]) for n in range(20)]
    assert _run(d, *calls) == 10  # 8 repeats: 4 of each answer
    assert d.paused is not None and "brought nothing new" in d.paused["reason"]


LINKS = [
    {"title": f"{name} | Vite", "url": f"https://vite.dev/guide/{name.lower()}"}
    for name in ("Troubleshooting", "Server Options", "Backend Integration", "Features")
]


def test_a_search_reworded_around_the_same_links_brings_nothing_new():
    # Each answer repeats its own query above the links; the links are what it learned.
    d = Driver()
    calls = [
        Call(
            "WebSearch",
            {"query": f"vite hmr websocket behind nginx, try {word}"},
            response={
                "query": f"vite hmr websocket behind nginx, try {word}",
                "results": [{"tool_use_id": "srvtoolu_1", "content": LINKS}],
            },
        )
        for word in "abcdefghijklmnop"
    ]
    first = _run(d, *calls)
    assert 0 < first <= 10
    assert d.paused is not None


def test_tasks_created_one_after_another_are_each_their_own():
    # An acknowledgement that is little more than what was asked is kept whole: sixteen tasks
    # with sixteen subjects are sixteen pieces of work.
    d = Driver()
    for n in range(16):
        subject = f"Port the {'abcdefghijklmnop'[n]} handler to the new router"
        out = d.turn(
            Call(
                "TaskCreate",
                {"subject": subject, "description": f"{subject}, with its tests"},
                response={"task": {"id": str(n + 1), "subject": subject}},
            )
        )
        assert not out["context"] and not out["denied"]
    assert d.paused is None


def test_a_triage_over_twenty_issue_numbers_is_left_alone():
    d = Driver()
    for n in range(20):
        number = 1200 + n
        kind = ("bug", "feature")[n % 2]
        d.turn(bash(f"gh issue view {number}", f"#{number} Report: {kind} in module"))
        d.turn(
            bash(
                f"gh issue edit {number} --add-label {kind}",
                f"https://github.com/example/svc/issues/{number}",
            )
        )
    assert d.denied == []
    assert d.paused is None
    assert not any(render.context_text(o) for o in d.outputs)


def test_numbers_that_name_a_target_are_kept_and_counters_are_not():
    def numbers(command: str) -> frozenset[str]:
        return shape.identity_numbers(ToolCall("Bash", {"command": command}))

    assert numbers("gh pr view 310 --json title") == {"310"}
    assert numbers('echo "check 7"; curl -s localhost:8080/status | tail -n 3') == {"8080"}
    assert numbers("make test 2>&1 | tail -20") == frozenset()
    assert numbers("sleep 30 && date +%s") == frozenset()
    # A variable set for the command or a wrapper's limit says how it runs, not what it runs on.
    assert numbers("DOCKER_BUILDKIT=1 docker build -t app .") == frozenset()
    assert numbers("timeout 60 gh issue view 12") == {"12"}
    # So does a small value set on an option; a port or a number apart from its option stays.
    assert numbers("go test -count=1 -p 1 -j8 ./... && git log -20") == frozenset()
    assert numbers("curl --max-time 5 localhost:8080/health") == {"8080"}
    assert numbers("psql -p 5432 && gh pr checks --watch 12") == {"5432", "12"}


def test_a_switch_set_for_one_spelling_does_not_make_its_failure_another():
    d = Driver()
    failed = "Exit code 1\nERROR: failed to solve: exit code: 1"
    for command in ("docker build .", "DOCKER_BUILDKIT=1 docker build .", "docker build -q=1 ."):
        d.turn(Call("Bash", {"command": command}, error=failed))
    assert d.main["stuck"]["fails"] == 3


def test_numbers_in_the_names_of_the_files_a_call_names_are_kept():
    def numbers(name: str, given: dict[str, str]) -> frozenset[str]:
        return shape.identity_numbers(ToolCall(name, given))

    assert numbers("Read", {"file_path": "/srv/app/cache/part7.py"}) >= {"7"}
    assert numbers("Bash", {"command": "cat docs/chapter01.md"}) >= {"01", "1"}
    # A program's version is not a file it names, nor is a counter it prints.
    assert numbers("Bash", {"command": "python3 -m pytest -q"}) == frozenset()
    assert numbers("Bash", {"command": 'echo "step7.py done"'}) == frozenset()


def test_numbered_files_whose_contents_differ_only_in_their_number_are_news():
    d = Driver()
    for n in range(1, 15):
        path = f"/p/docs/chapter{n:02d}.md"
        content = f"# Chapter {n}\n\nSee section {n}.1.\n"
        d.turn(Call("Read", {"file_path": path}, response={"filePath": path, "content": content}))
    assert d.denied == [] and d.paused is None
    assert not any(render.context_text(o) for o in d.outputs)


def test_one_numbered_file_read_again_and_again_is_still_nothing_new():
    d = Driver()
    path = "/p/out/run3.log"
    for n in range(16):
        # The same file, a new timestamp each time: the file's number does not make it news.
        content = f"run 3 waiting since 12:{n:02d}:00\n"
        d.turn(Call("Read", {"file_path": path}, response={"filePath": path, "content": content}))
    assert d.paused is not None


CACHE_FAILURE = "E   assert cache.get('k') == 'v'\n1 failed in 0.12s"


def _edit_then_same_failure(
    files: tuple[str, ...], failure: str = CACHE_FAILURE, runs: int = 10
) -> Driver:
    """An edit to a new content (of `files` in turn), then the suite failing as before."""
    d = Driver()
    for n in range(runs):
        path = files[n % len(files)]
        edit = Call(
            "Edit",
            {"file_path": path, "old_string": f"a{n}", "new_string": f"a{n + 1}"},
            response={"filePath": path, "structuredPatch": [{"lines": [f"+a{n + 1}"]}]},
        )
        d.turn(edit)
        d.turn(fail("pytest -q", failure))
        if d.paused is not None:
            break
    return d


def test_a_test_run_after_each_edit_over_three_files_is_never_paused_when_it_still_fails():
    # Each edit leaves the failure printed as before: one request at the 4th run; the edits,
    # spread over files, may be work beside the failure: never a pause.
    d = _edit_then_same_failure(("/p/a.py", "/p/b.py", "/p/c.py"))
    assert d.paused is None
    assert sum(bool(render.context_text(o)) for o in d.outputs) == 1


def test_edits_of_one_file_beside_a_failure_the_suite_prints_as_before_are_never_paused():
    # The whole suite run after each edit, failing as before on what names nothing of the
    # file edited: work beside a failure it does not ask about. One request, no pause.
    d = _edit_then_same_failure(("/p/a.py",))
    assert d.paused is None
    assert sum(bool(render.context_text(o)) for o in d.outputs) == 1


def test_edits_of_the_file_a_failure_names_are_paused_at_the_6th_when_it_still_fails():
    # The failure points at the file edited, six times as before: the edits went at it.
    failure = "a.py:12: in total\n    return sum(items)\nE   TypeError: bad operand\n1 failed"
    d = _edit_then_same_failure(("/p/a.py",), failure)
    assert d.paused is not None and "6 attempts failed the same way" in d.paused["reason"]
    assert sum(bool(render.context_text(o)) for o in d.outputs) == 1


def test_fetching_and_asking_a_toolchain_what_it_has_change_nothing():
    reads = tool_effects.is_read_only_command
    assert reads("curl -s localhost:7000/healthz | jq .")
    assert reads("wget -qO- http://localhost/x")
    assert reads("go env GOPATH") and reads("kubectl get pods") and reads("node --version")
    assert reads("pnpm config get registry") and reads("yarn config list")
    assert not reads("pnpm config set registry https://x") and not reads("yarn config delete x")
    assert not reads("curl -X POST localhost/x") and not reads("curl -so out.html x")
    # A status code asked for, the body thrown away; a method that only asks.
    assert reads("curl -s -o /dev/null -w '%{http_code}' localhost:3000")
    assert reads("curl -sSo /dev/null --write-out '%{http_code}' x") and reads("curl -X GET x")
    assert reads("curl --output=/dev/null -s x") and reads("curl --request HEAD x")
    assert not reads("curl -so /dev/null -d a=1 x") and not reads("curl -sX DELETE x")
    assert not reads("curl -Xo GET x") and not reads("curl --output out.bin x")
    assert not reads("curl -dXGET x") and not reads("curl -do /dev/null x")
    assert not reads("wget http://x/file.tgz") and not reads("go build ./...")


def test_a_program_asked_for_its_help_and_python_s_reading_modules_change_nothing():
    reads = tool_effects.is_read_only_command
    assert reads("python scripts/backfill.py --help | head -20") and reads("terraform apply --help")
    assert not reads("python scripts/backfill.py --dry-run")
    # Not a word given on to what the program runs, or a value.
    assert not reads("docker run app:2 --help") and not reads("cargo run -- --help")
    assert not reads("git commit -m --help") and not reads("curl -d --help x")
    assert reads("aws s3api get-bucket-policy --bucket b --output text | python -m json.tool")
    assert reads("python3 -m json.tool --indent 2 out.json") and reads("python -m pip show x")
    assert not reads("python -m json.tool in.json out.json") and not reads(
        "python3 -m pip install x"
    )
    assert not reads("python -m pytest -q") and not reads("python -m")


SATISFIED = "Requirement already satisfied: requests in /usr/lib/python3/dist-packages (2.31.0)"
NO_REQUESTS = "E   ModuleNotFoundError: No module named 'requests'"


def test_a_reinstall_that_answers_as_before_does_not_end_a_failures_run():
    d = Driver()
    installs = (
        "pip install requests",
        "python -m pip install requests",
        "pip3 install requests",
        "pip install -U requests",
    )
    tests = ("python -m pytest -q", "pytest -q tests/", "python3 -m pytest tests -x", "pytest")
    attempts = []
    for n in range(7):
        # The first install prints something new, and is progress; the others find it all in
        # place, so the same failure after each of them is the same attempt again.
        d.turn(bash(installs[n % 4], response=SATISFIED))
        attempts.append(d.turn(fail(tests[n % 4], NO_REQUESTS)))
    assert [bool(a["context"]) for a in attempts[:4]] == [False, False, False, True]
    assert d.paused is not None and "attempts failed the same way" in d.paused["reason"]


LINK_ERROR = "/usr/bin/ld: build/crc.o: undefined reference to `crc32'"
MULTIPLE_HEADS = "ERROR [alembic.util.messaging] Multiple head revisions are present"


def test_commands_between_alike_failures_that_print_something_new_do_not_end_their_run():
    # Each command between the attempts may change the world and tells something new, but the
    # attempt after it fails word for word as before: it moved nothing the failure depends on.
    d = Driver()
    between = (
        ("alembic heads", "3f9c21ab7d44 (head)\nb81e0d5a2c19 (head)"),
        ("alembic current", "7a2e44c09f13"),
        ("alembic history -r-3:", "7a2e44c09f13 -> 3f9c21ab7d44 (head), add invoice status"),
        ("alembic branches", "7a2e44c09f13 (branchpoint)"),
    )
    upgrades = (
        "alembic upgrade head",
        "poetry run alembic upgrade head",
        "alembic -c alembic.ini upgrade head",
        "python -m alembic upgrade head",
    )
    attempts = []
    for n in range(7):
        attempts.append(d.turn(fail(upgrades[n % 4], MULTIPLE_HEADS)))
        d.turn(bash(*between[n % 4]))
    assert [bool(a["context"]) for a in attempts[:4]] == [False, False, False, True]
    assert d.paused is not None and "attempts failed the same way" in d.paused["reason"]


def test_a_failure_seen_again_after_git_checks_out_other_code_is_news():
    # A bisect: each step checks out another commit, and a bad one fails as the last did.
    # That is what the bisect asks, not a retry: other code gave the same answer.
    d = Driver()
    said = ("Still bad.", "The cache test fails here too.", "Bad again, narrowing.")
    said += ("Same failure at this commit.", "This one is bad as well.", "Failing still.")
    turns = []
    for n in range(6):
        turns.append(d.turn(fail("pytest tests/test_cache.py -q", "1 failed: test_ttl")))
        step = f"Bisecting: {20 >> n} revisions left to test after this\n[{n}abc] commit {n}"
        d.turn(bash("git bisect bad", step), text=said[n])
    assert not any(t["context"] for t in turns) and d.paused is None


def test_the_working_tree_flipped_back_and_forth_is_no_repeat():
    # Whether a failure is the branch's own: stash the change, run the test, put the change
    # back, for one test after another. Each `git stash` undoes the `git stash pop` before it.
    d = Driver()
    saved = "Saved working directory and index state WIP on fix: 1a2b3c4 cache: lru"
    denied = []
    for n, test in enumerate(("test_eviction", "test_ttl", "test_size_limit")):
        denied.append(d.turn(bash("git stash", saved))["denied"])
        d.turn(fail(f"pytest tests/test_cache.py::{test} -q", f"FAILED {test}\n1 failed"))
        popped = f"On branch fix\nDropped refs/stash@{{0}} ({n}f8e7d6c5b4a3928)"
        denied.append(d.turn(bash("git stash pop", popped))["denied"])
        d.turn(bash(f"pytest tests/test_cache.py::{test} -q", "1 passed"))
    assert not any(denied) and d.paused is None


def test_a_checkout_run_again_with_nothing_changed_between_is_a_repeat():
    d = Driver()
    runs = [d.turn(bash("git checkout main", "Already on 'main'")) for _ in range(3)]
    assert [bool(r["denied"]) for r in runs] == [False, False, True]


def _write():
    return bash("sed -i s/a/b/ app.py", "")


def _test_fails():
    return fail("pytest -q", "FAILED tests/test_api.py::test_total\n1 failed")


@pytest.mark.parametrize(
    ("command", "answer", "between"),
    [
        # A checkout and a deploy in one command: no swap of the tree, whatever ran between.
        ("git checkout main && make deploy", "Already on 'main'\ndeploy: ok", _write),
        ("git checkout main", "Already on 'main'", _test_fails),  # a test run swaps nothing
        ("git pull", "Fast-forward\n app.py | 2 +-", _write),  # a pull swaps nothing back
    ],
)
def test_a_git_command_that_swaps_nothing_back_is_a_repeat(command, answer, between):
    d = Driver()
    runs = []
    for _ in range(3):
        runs.append(d.turn(bash(command, answer)))
        d.turn(between())
    assert [bool(r["denied"]) for r in runs] == [False, False, True]


def test_a_checkout_that_keeps_failing_is_a_repeat_whatever_changed_between():
    d = Driver()
    refused = "error: Your local changes to the following files would be overwritten by checkout"
    runs = []
    for path in ("a.txt", "b.txt", "c.txt"):
        runs.append(d.turn(fail("git checkout main", refused)))
        d.turn(bash(f"rm {path}", ""))
    assert [bool(r["denied"]) for r in runs] == [False, False, True]


def test_a_bisect_stepped_by_hand_without_a_word_is_no_cycle():
    # Test, mark, test, mark: the same two calls turn after turn, each mark checking out a
    # commit the session has not had.
    d = Driver()
    marks = ("bad", "bad", "good", "good", "good", "bad")
    subjects = ("move writer", "bump deps", "stream rows", "quote header", "cover edges", "trim")
    for n, (mark, subject) in enumerate(zip(marks, subjects, strict=True)):
        test = "pytest tests/test_export.py -q"
        d.turn(bash(test, "1 passed") if mark == "good" else fail(test, "1 failed: header"))
        d.turn(bash(f"git bisect {mark}", f"Bisecting: {30 >> n} left\n[{n}be1c7a] {subject}"))
    assert d.paused is None


def test_two_branches_checked_out_in_turn_over_and_over_are_a_cycle():
    # Nothing new after the first lap: each checkout and each benchmark answers as before.
    d = Driver()
    for _ in range(4):
        for branch in ("main", "perf"):
            d.turn(bash(f"git checkout {branch}", f"Switched to branch '{branch}'"))
            d.turn(bash("python -m bench.inserts", f"{branch}: 100000 rows"))
    assert d.paused is not None and d.paused["kind"] == "cycle"


@pytest.mark.parametrize(
    ("command", "moves"),
    [
        ("git checkout main", True),
        ("git -C /p switch fix", True),
        ("git bisect good", True),
        ("git stash && pytest -q", True),
        ("git reset --hard HEAD~1", True),
        ("git status", False),
        ("git log --oneline -3", False),
        ("git commit -am wip", False),
        ("pip install -e .", False),
        # Options and subcommands that leave the working tree as it was.
        ("git checkout -b fix", False),
        ("git switch -c fix", False),
        ("git reset HEAD app.py", False),
        ("git reset --soft HEAD~1", False),
        ("git restore --staged app.py", False),
        ("git merge --abort", False),
        ("git bisect log", False),
        ("git stash list", False),
    ],
)
def test_git_commands_that_check_out_other_code(command, moves):
    assert shell_writes.moves_checkout(ToolCall("Bash", {"command": command}), "") is moves


def test_fixes_pulled_in_by_a_checkout_and_a_pull_are_no_lap_of_a_cycle():
    # Teammates fix the failing tests one by one; the checkout says it is already on the
    # branch, the pull after it brings their fix, and the same run fails on fewer each time.
    names = [f"test_{name}" for name in ("round", "vat", "zero", "neg", "big", "eur", "gbp")]
    run = "pytest -q tests/test_tax.py 2>&1 | tail -20"
    d = Driver()
    for n in range(len(names)):
        fixed = f"Updating 1e6c0a9..4b7e91c\nFast-forward\n src/tax_{tag(n)}.py | 4 ++--"
        d.turn(bash("git checkout main && git pull", f"Already on 'main'\n{fixed}"))
        failing = "\n".join(
            f"FAILED tests/test_tax.py::{name} - AssertionError" for name in names[n:]
        )
        d.turn(bash(run, f"{failing}\n{len(names) - n} failed, {9 + n} passed in 0.41s"))
    assert d.paused is None
    call = ToolCall("Bash", {"command": "git checkout main && git pull"})
    assert shell_writes.moves_checkout(call, "Already on 'main'\nFast-forward")
    # When both say nothing moved, nothing did: the same two calls again are a cycle's laps.
    assert not shell_writes.moves_checkout(call, "Already on 'main'\nAlready up to date.")
    d = Driver()
    for _ in range(3):
        d.turn(bash("git checkout main && git pull", "Already on 'main'\nAlready up to date."))
        d.turn(fail("npm test", "FAIL src/cart.test.ts\n  Expected: 30"))
    assert d.paused is not None and d.paused["kind"] == "cycle"


def test_a_git_command_that_answers_that_nothing_moved_is_no_progress():
    # Waiting on a teammate's fix: each pull brings nothing, and the test fails as before.
    d = Driver()
    pulls = ("git pull", "git pull --rebase", "git pull origin main", "git pull -q")
    tests = ("npm test", "npm run test", "npx jest", "npm test -- --ci")
    attempts = []
    for n in range(4):
        d.turn(bash(pulls[n], "Already up to date."))
        attempts.append(d.turn(fail(tests[n], "FAIL src/cart.test.ts\n  Expected: 30")))
    assert [bool(a["context"]) for a in attempts] == [False, False, False, True]


def test_a_wait_that_prints_nothing_does_not_end_a_failures_run():
    # `sleep 10` told nothing on its first run as on its later ones: only a wait whose answer
    # changed says that what it waited for moved.
    d = Driver()
    attempts = []
    for n in range(4):
        attempts.append(d.turn(fail(("make", "make all", "make -B", "make build")[n], LINK_ERROR)))
        d.turn(bash("sleep 10", response=""))
    assert [bool(a["context"]) for a in attempts] == [False, False, False, True]


def test_a_batch_job_that_answers_alike_each_time_still_ends_a_checks_run():
    d = Driver()
    for n in range(12):
        d.turn(bash(f"python migrate.py --batch {n}", response="migrated 100 rows"))
        out = d.turn(bash("psql -c 'select count(*) from orders'", response=f"count {n * 100}"))
        assert not out["context"] and not out["denied"]
    assert d.paused is None


def _migration_failure(entry: str) -> str:
    """A migration failing on one database error, through a tool's own entry point."""
    return "\n".join(
        (
            "INFO  [alembic.runtime.migration] Running upgrade 9f3a -> 4b1e, add archived_at",
            "Traceback (most recent call last):",
            entry,
            '  File "/venv/site-packages/sqlalchemy/engine/base.py", line 1967',
            "    self.dialect.do_execute(",
            '  File "/venv/site-packages/sqlalchemy/engine/default.py", line 941',
            "    cursor.execute(statement, parameters)",
            'sqlalchemy.exc.ProgrammingError: column "archived_at" of relation "projects" already'
            " exists",
        )
    )


MIGRATIONS = (
    ("alembic upgrade head", "    CommandLine(prog=prog).main(argv=argv)"),
    ("flask db upgrade", "    cli.main(args=sys.argv[1:])"),
    ("python -m alembic upgrade head", "    main(prog='alembic')"),
    (
        "make db-upgrade",
        "    CommandLine(prog=prog).main(argv=argv)\nmake: *** [db-upgrade] Error 1",
    ),
    ("FLASK_APP=tracker.app flask db upgrade", "    cli.main(args=sys.argv[1:])"),
    ("docker compose exec api alembic upgrade head", "    command.upgrade(config, 'head')"),
    ("alembic -x env=dev upgrade head", "    CommandLine(prog=prog).main(argv=argv)"),
)


def test_a_failure_told_through_other_entry_points_is_one_failure_while_no_file_changes():
    # Each spelling prints its own entry frames (or make's line) around the same error.
    d = Driver()
    attempts = (fail(command, _migration_failure(entry)) for command, entry in MIGRATIONS)
    assert _run(d, *attempts) == 4
    assert d.paused is not None and "6 attempts failed the same way" in d.paused["reason"]


def _sed_rounds(errors_left: Callable[[int], tuple[str, ...]]) -> Driver:
    """Seven rounds of a `sed -i` on one call site, then a build failing on the names left."""
    d = Driver()
    for n, name in enumerate(NAMES[:7]):
        d.turn(bash(f"sed -i 's/{name}/fetch/' src/api.ts", ""))
        errors = "\n".join(
            f"src/api.ts(4,7): error TS2304: Cannot find name '{left}'." for left in errors_left(n)
        )
        d.turn(fail("npm run build", f"> web@1.4.0 build\n> tsc -p .\n{errors}\nFound errors."))
    return d


NAMES = ("getUser", "getOrder", "getCart", "getItem", "getShop", "getList", "getTax", "getVat")


def test_a_failure_that_moves_a_little_after_each_write_from_the_shell_is_news():
    # Each fix shows the next error: most lines and the end are as before, but a file changed.
    d = _sed_rounds(lambda n: NAMES[n + 1 : n + 3])
    assert d.paused is None and d.main["stuck"]["fails"] == 1


def test_a_failure_that_shrinks_after_each_write_from_the_shell_is_news():
    # The errors left are lines of the last failure: after a write, that is what it fixed.
    d = _sed_rounds(lambda n: NAMES[n + 1 :])
    assert d.paused is None and d.main["stuck"]["fails"] == 1


def _pytest_failure(test: str, asserted: str) -> str:
    return "\n".join(
        (
            "============================= test session starts ==============================",
            "platform linux -- Python 3.12.1, pytest-8.2.0, pluggy-1.5.0",
            "collected 13 items / 12 deselected / 1 selected",
            "tests/test_cart.py F",
            "=================================== FAILURES ===================================",
            f"_________________________________ {test} _________________________________",
            f"    def {test}():",
            f">       {asserted}",
            "E       assert 3 == 4",
            "tests/test_cart.py:5: AssertionError",
            "=========================== short test summary info ============================",
            f"FAILED tests/test_cart.py::{test} - assert 3 == 4",
            "======================= 1 failed, 12 deselected in 0.05s =======================",
        )
    )


def test_tests_run_one_at_a_time_that_each_fail_are_each_their_own_failure():
    # Nothing changes between the runs, and the outputs are mostly alike; but each names the
    # test its call asked for: a triage, not a retry.
    d = Driver()
    tests = ("test_total", "test_tax", "test_discount", "test_empty", "test_refund", "test_vat")
    for test in tests + ("test_rounding",):
        d.turn(fail(f"pytest -k {test}", _pytest_failure(test, f"assert {test}_of(cart) == 4")))
    assert d.paused is None
    assert not any(render.context_text(o) for o in d.outputs)


def test_a_failure_line_that_repeats_the_calls_own_words_is_no_part_of_its_cause():
    # `psql` shows the statement it could not run: each rewording would be a new failure.
    def attempt(sql: str) -> Call:
        caret = " " * (len(sql) // 3) + "^"
        missing = f'ERROR:  relation "orders" does not exist\nLINE 1: {sql[:72]}...\n{caret}'
        return fail(f'psql "$REPLICA_URL" -c "{sql}"', missing)

    d = Driver()
    statements = (
        "SELECT count(*) FROM orders WHERE created_at >= current_date - 1",
        "select count(*) from orders where created_at::date = current_date - 1",
        'SELECT COUNT(*) FROM "orders" WHERE created_at::date = current_date - 1',
        "SELECT count(id) FROM orders WHERE created_at BETWEEN current_date - 1 AND now()",
    )
    assert _run(d, *(attempt(sql) for sql in statements)) == 4


def test_packages_checked_one_at_a_time_that_fail_alike_are_each_their_own_failure():
    # Each package fails its own way, inside the same lines of npm's; only npm's paths name
    # the package the call asked for, and they read alike once paths are set aside.
    d = Driver()
    wrong = ("string", "number", "boolean", "Date", "bigint", "symbol", "object")
    packages = ("api", "web", "admin", "billing", "mobile", "search", "docs")
    for package, type_name in zip(packages, wrong, strict=True):
        error = f"src/index.ts(3,7): error TS2322: Type '{type_name}' is not assignable."
        npm = f"npm error workspace @acme/{package}@1.0.0\nnpm error location /r/packages/{package}"
        out = f"> typecheck\n> tsc --noEmit\n{error}\n{npm}\nnpm error code 2"
        d.turn(fail(f"npm run typecheck -w @acme/{package}", out))
    assert d.paused is None
    assert not any(render.context_text(o) for o in d.outputs)


def test_a_short_line_naming_the_calls_target_is_its_answer_not_an_echo():
    call = ToolCall(name="Bash", input={"command": "ansible db-stg-2 -m ping"}, id="t")
    answer = ToolResult(failed=True, error="Exit code 4\ndb-stg-2 | UNREACHABLE! => {")
    assert len(shape.cause_pairs(answer, call)) == 1


NOT_PROTECTED = (
    '{"message":"Branch not protected","status":"404"}\ngh: Branch not protected (HTTP 404)'
)
REPOS = ("api", "web", "admin", "billing", "mobile", "search", "docs", "infra", "auth")


def _protection(repo: str, view: str = "") -> Call:
    return fail(f"gh api repos/acme/{repo}/branches/main/protection{view}", NOT_PROTECTED)


def test_a_sweep_of_one_command_over_targets_that_each_answer_alike_is_no_retry():
    # Auditing branch protection repo by repo: nine alike refusals are the finding.
    d = Driver()
    assert _run(d, *(_protection(repo) for repo in REPOS)) == 0
    assert d.paused is None


def test_a_target_of_a_sweep_tried_again_is_a_retry_of_its_own():
    d = Driver()
    for repo in REPOS[:3]:
        d.turn(_protection(repo))
    views = (" | jq .message", " 2>&1 | head -5", " | cat")
    assert _run(d, *(_protection("web", view) for view in views)) == 6  # its 4th attempt


SERVICES = ("nginx", "postgresql", "redis", "docker", "ssh", "cron", "chrony", "rsyslog")


def test_a_look_asked_of_one_target_after_another_that_each_answer_alike_is_no_repeat():
    # Sixteen services, each "active": the same answer, asked of another one each time.
    d = Driver()
    looks = [bash(f"systemctl is-active {name}", "active") for name in SERVICES]
    looks += [bash(f"systemctl is-active {name}.service", "active") for name in SERVICES]
    assert _run(d, *looks) == 0
    assert "runs" not in d.main["stuck"] or max(d.main["stuck"]["runs"].values()) == 1


def test_a_target_of_a_swept_look_asked_again_counts_in_its_own_run():
    keys = _keys(*(f"systemctl is-active {name}" for name in ("nginx", "redis", "nginx", "redis")))
    assert keys[0] == keys[2] == "completed:ok"
    assert keys[1] == keys[3] != keys[0]


def _keys(*commands: str) -> list[str]:
    """The runs a completed result brought by each command in turn extends."""
    st = Stuck()
    return [failures.swept(st, "completed:ok", ToolCall("Bash", {"command": c})) for c in commands]


def test_a_sweep_goes_on_from_any_command_that_brought_the_answer():
    # Counts from a log, then from traces: the answer is a number each time, and each form of
    # question, once asked, is swept over its own targets.
    keys = _keys(
        "grep -c ' 502 ' api.log",
        "grep -c ' 504 ' api.log",
        "jq '.errors | length' traces/12h.json",  # another question: the answer's own run
        "jq '.errors | length' traces/13h.json",
        "jq '.errors | length' traces/14h.json",
        "grep -c ' 504 ' api.log",  # a target asked again: its own run
    )
    assert keys[0] == keys[2] == "completed:ok"
    assert len({keys[1], keys[3], keys[4]}) == 3 and keys[5] == keys[1]


def test_a_long_sweep_goes_on_from_its_latest_targets():
    # The question the sweep began from is no longer kept once four of its targets came after
    # it; the sweep goes on from them.
    st = Stuck()
    first = "kubectl logs api-0 -n prod -c app"
    logs = [f"kubectl logs web-{n} -n staging -c nginx" for n in range(7)]
    keys = [
        failures.swept(st, "completed:ok", ToolCall("Bash", {"command": c})) for c in [first, *logs]
    ]
    assert keys[1] == "completed:ok"  # another question than the first
    assert "completed:ok" not in keys[2:] and len(set(keys[2:])) == 6
    assert len(st.look_words["completed:ok"]) == failures.MAX_ASKED


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("curl -s localhost:8080/health", "curl -s http://127.0.0.1:8080/health"),  # one machine
        ("kubectl logs api-0 --tail=20", "kubectl logs api-0 --tail=50"),  # how much, not what
        ('echo "check 1"; curl -s localhost:8080/x', 'echo "check 2"; curl -s localhost:8080/x'),
        ("curl -s localhost:8080/health | grep up", "curl -s localhost:8080/health | grep ok"),
        ("curl -s localhost:8080/health", "curl -sS localhost:8080/health"),  # respelt
        ("systemctl restart nginx", "systemctl restart redis"),  # changes are no looks
        ("npm view @acme/sdk version", "npm show @acme/sdk version"),  # another question
        ("curl -s localhost:8080/x", "wget -s localhost:8080/x"),
        ("aws ec2 describe-instances", "aws ec2 describe-volumes"),
    ],
)
def test_a_look_respelt_at_the_same_target_is_no_sweep(first, again):
    assert _keys(first, again) == ["completed:ok"] * 2


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("kubectl get pods -n prod", "kubectl get pods -n staging"),
        ("kubectl --context=dev-euw1 get ns", "kubectl --context=prod-use1 get ns"),
        ("curl -s localhost:8080/healthz", "curl -s localhost:8080/readyz"),
        ("curl localhost:8080/healthz", "curl localhost:8080/readyz"),
        ("grep -c ' 502 ' api.log", "grep -c ' 504 ' api.log"),
        ("dig +short api.example.com", "dig +short www.example.com"),
        (
            "aws ec2 describe-instances --instance-ids i-1",
            "aws ec2 describe-instances --instance-ids i-2",
        ),
    ],
)
def test_a_look_asked_of_another_namespace_context_or_endpoint_is_a_sweep(first, again):
    first_key, again_key = _keys(first, again)
    assert first_key == "completed:ok" and again_key.startswith("completed:ok@")


def test_a_retry_under_another_subcommand_is_no_sweep():
    # `cargo check` for `cargo build`: another way to reach the same error, not a new target.
    error = "error[E0432]: unresolved import `crate::storage::blob`"
    d = Driver()
    spellings = ("cargo build", "cargo check", "cargo clippy", "cargo test")
    assert _run(d, *(fail(command, error) for command in spellings)) == 4


def test_a_retry_behind_a_cd_under_another_subcommand_is_no_sweep():
    error = "error[E0432]: unresolved import `crate::storage::blob`"
    d = Driver()
    subcommands = ("build", "check", "clippy", "test", "run", "bench", "doc")
    assert _run(d, *(fail(f"cd /work/app && cargo {sub}", error) for sub in subcommands)) == 4
    assert d.paused is not None


def test_a_commit_retried_under_new_messages_is_a_retry():
    # A message's plain words are no target: the hook fails the same way each time.
    hook = "ruff....................................Failed\n- hook id: ruff\n- exit code: 1"
    d = Driver()
    messages = ("fix lint", "fix typing", "fix types", "fix style")
    assert _run(d, *(fail(f'git commit -am "{m}"', hook) for m in messages)) == 4


def test_the_same_failure_from_calls_differing_in_three_names_is_a_retry():
    d = Driver()
    denied = "AccessDenied: not authorized to perform s3:GetObject"
    paths = ("alpha/bravo/charlie", "delta/echo/foxtrot", "golf/hotel/india", "juliet/kilo/lima")
    attempts = (fail(f"aws s3 cp s3://bkt/{path}.csv .", denied) for path in paths)
    assert _run(d, *attempts) == 4


def test_tests_spelt_two_ways_one_at_a_time_are_each_their_own_failure():
    # Not the same command aimed elsewhere (the program differs), but each result names the
    # test its own call asked for.
    d = Driver()
    tests = ("test_total", "test_tax", "test_discount", "test_empty", "test_refund", "test_vat")
    for n, test in enumerate((*tests, "test_rounding")):
        runner = "pytest" if n % 2 else "python -m pytest"
        d.turn(fail(f"{runner} -k {test}", _pytest_failure(test, f"assert {test}_of(cart) == 4")))
    assert d.paused is None
    assert not any(render.context_text(o) for o in d.outputs)


def test_a_filtered_view_of_a_long_failure_is_that_failure():
    # One line of five, the last: too few in common to be alike, but a view of the failure.
    errors = "\n".join(f"src/{n}.ts(1,1): error TS2304: Cannot find name '{n}'." for n in "abcd")
    d = Driver()
    d.turn(fail("npm run build", f"{errors}\nFound 4 errors in 4 files."))
    views = ("tail -1", "tail -n 1", "grep Found")
    assert (
        _run(d, *(bash(f"npm run build 2>&1 | {v}", "Found 4 errors in 4 files.") for v in views))
        == 4
    )


def test_a_failure_that_changes_after_an_install_that_answered_is_news():
    # Each install lets the suite get one module further: most lines alike, but it moved.
    modules = ("requests", "yaml", "toml", "attrs", "click", "rich", "httpx", "jinja2", "idna")
    d = Driver()
    for n, module in enumerate(modules[:7]):
        missing = "\n".join(
            f"E   ModuleNotFoundError: No module named '{m}'" for m in modules[n : n + 3]
        )
        d.turn(fail("python -m pytest -q", f"ERROR collecting tests\n{missing}\n3 errors in 0.2s"))
        d.turn(bash(f"pip install {module}", f"Successfully installed {module}-1.0"))
    assert d.paused is None and d.main["stuck"]["fails"] == 1


def test_a_write_chained_before_a_failing_build_counts_as_a_write():
    d = Driver()
    options = ("", " --silent", " --quiet", " --if-present", " --no-color", " --no-audit", " -s")
    for n, option in enumerate(options):
        errors = "\n".join(
            f"src/api.ts(4,7): error TS2304: Cannot find name '{left}'." for left in NAMES[n + 1 :]
        )
        command = f"sed -i -f fixes.sed src/api.ts && npm run build{option}"  # a fix a run
        d.turn(fail(command, f"> tsc -p .\n{errors}\nFound errors."))
    assert d.paused is None


def test_a_command_is_named_by_its_program_and_subcommand_past_a_cd():
    def named(command: str) -> list[str]:
        return command_words.named_words(ToolCall(name="Bash", input={"command": command}, id="t"))

    assert named("cd /work/app && cargo build -p server")[:2] == ["cargo", "build"]
    assert named("export CI=1; pytest -k test_tax")[:3] == ["pytest", "", "test_tax"]
    assert named("gh api repos/acme/web/branches | jq .name")[:2] == ["gh", "api"]
    # Past chores on files and looks put before it: what the command runs to be judged.
    assert named("rm -rf node_modules && pnpm install")[:2] == ["pnpm", "install"]
    assert named("cp a.lock /tmp/a.bak && rm a.lock && pnpm install")[:2] == ["pnpm", "install"]
    assert named("pnpm config get mode; pnpm install | grep ERR")[:2] == ["pnpm", "install"]
    assert named("cat data.csv | python load.py")[:1] == ["python"]
    assert named("cat data.csv")[:1] == ["cat"]  # a look alone is what it runs
    # An amount alone is no target; one inside a file's name is part of the name.
    assert named("go test ./pool -timeout 60s") == named("go test ./pool -timeout 2m")
    assert named("docker run --memory=512m app") == named("docker run --memory=4g app")
    assert "10m" in named("whisper transcribe meeting-10m.wav")
    check = command_words.check_words(ToolCall(name="Bash", input={"command": "rm -f x; make"}))
    assert check[:1] == ["make"]


GO_FAILURE = (
    "--- FAIL: TestParseDuration (0.00s)",
    "    --- FAIL: TestParseDuration/days (0.00s)",
    '        config_test.go:41: ParseDuration("7d") error = time: unknown unit "d" in duration',
    "FAIL",
    "FAIL\texample.com/relay/internal/config\t0.012s",
)
GO_PASSING = (
    "?   \texample.com/relay/cmd/relay\t[no test files]",
    *(f"ok  \texample.com/relay/internal/{p}\t0.031s" for p in ("auth", "proxy")),
)


def test_a_run_that_tells_more_about_a_failure_is_that_failure_while_nothing_changes():
    # `-v` adds the passing tests' lines: fewer than half of all lines are shared, but most of
    # the failure's are.
    verbose = [
        line
        for test in ("TestLoadDefaults", "TestEnvOverrides", "TestMerge", "TestValidate")
        for line in (f"=== RUN   {test}", f"--- PASS: {test} (0.00s)")
    ]
    d = Driver()
    d.turn(fail("go test ./...", "\n".join((*GO_PASSING, *GO_FAILURE))))
    again = "\n".join((*verbose, *GO_FAILURE))
    assert _run(d, *(fail(f"go test -v -count={n} ./...", again) for n in (1, 2, 3))) == 4


def test_a_run_narrowed_to_the_test_a_failure_showed_is_that_failure():
    d = Driver()
    d.turn(fail("go test ./...", "\n".join((*GO_PASSING, *GO_FAILURE))))
    narrowed = "\n".join(("=== RUN   TestParseDuration", *GO_FAILURE))
    spellings = ("-run TestParseDuration", "-run 'TestParseDuration$'", "-run ^TestParseDuration")
    assert _run(d, *(fail(f"go test {s} ./...", narrowed) for s in spellings)) == 4


ENV_NAMES = tuple(f"{a}{b}" for a in "ABCDEF" for b in "GHIJK")  # thirty names, no digits


def _build_script_failure(trace: tuple[str, ...] = ()) -> str:
    # The project's own path is named high above the end, then thirty lines of the script's
    # output and a note, or the backtrace it offers, before cargo's closing words.
    return "\n".join(
        (
            "   Compiling openssl-sys v0.9.103",
            "error: failed to run custom build command for `openssl-sys v0.9.103`",
            "Caused by:",
            "  process didn't exit successfully: `/home/dev/relay/target/debug/build/"
            "openssl-sys-8cf2/build-script-main` (exit status: 101)",
            *(f"  cargo:rerun-if-env-changed={name}_DIR" for name in ENV_NAMES),
            "  Could not find directory of OpenSSL installation, and this `-sys` crate cannot",
            "  proceed without this knowledge.",
            *(trace or ("  note: run with `RUST_BACKTRACE=1` to display a backtrace",)),
            "warning: build failed, waiting for other jobs to finish...",
        )
    )


def test_a_failure_told_in_more_detail_far_below_what_its_call_names_is_that_failure():
    # `-p relay-server` names the project, whose path the failure printed far above its end
    # in the first attempt too: the backtrace below tells more of the same failure, not of
    # another package.
    trace = tuple(f"     {n}: build_script_main::find_normal::step_{n}" for n in range(6))
    d = Driver()
    d.turn(fail("cargo build", _build_script_failure()))
    d.turn(fail("cargo build --release", _build_script_failure()))
    d.turn(fail("RUST_BACKTRACE=1 cargo build -p relay-server", _build_script_failure(trace)))
    assert d.main["stuck"]["fails"] == 3


def test_failures_sharing_only_their_closing_line_are_not_one_failure():
    # A flaky suite failing on another test each run, all ending in go's lone `FAIL`.
    d = Driver()
    tests = ("TestDial", "TestRetry", "TestBackoff", "TestJitter", "TestClose", "TestDrain")
    assert _run(d, *(fail("go test ./...", f"--- FAIL: {t} (0.02s)\nFAIL") for t in tests)) == 0


def test_a_failure_passed_on_through_other_commands_is_one_failure_by_its_clauses():
    # Each command puts its own words in front of the webhook's: no line is the same, its
    # clauses are.
    denied = (
        'admission webhook "validation.gatekeeper.sh" denied the request: '
        "[require-limits] container <api> has no resource limits"
    )
    forbidden = "Error from server (Forbidden)"
    d = Driver()
    first = f'configmap/api created\n{forbidden}: error when creating "k8s/d.yaml": {denied}'
    d.turn(fail("kubectl apply -f k8s/", first))
    others = (
        (
            "kubectl apply -f k8s/ --server-side",
            f"configmap/api serverside-applied\n{forbidden}: {denied}",
        ),
        (
            "kubectl create -f k8s/d.yaml",
            f'{forbidden}: error when creating "k8s/d.yaml": {denied}',
        ),
        ("kubectl replace --force -f k8s/d.yaml", f"{forbidden}: {denied}"),
    )
    assert _run(d, *(fail(c, text) for c, text in others)) == 4


def test_a_failure_whose_closing_tally_moves_with_the_selection_is_that_failure():
    # `-k` tallies the deselected tests, a path does not: the line before the tally tells.
    by_name = _pytest_failure("test_total", "assert total(cart) == 4")
    by_path = by_name.replace("13 items / 12 deselected / 1 selected", "1 item").replace(
        "1 failed, 12 deselected in", "1 failed in"
    )
    d = Driver()
    d.turn(fail("pytest -k test_total", by_name))
    path = "pytest tests/test_cart.py::test_total"
    attempts = (fail(path, by_path), fail(f"{path} -p no:randomly", by_path), fail(path, by_path))
    assert _run(d, *attempts) == 4


def test_a_result_showing_two_failures_counts_where_the_longer_run_is():
    # The verbose run ends another way, so it is recorded apart; a run showing both is the one
    # failure retried, however many of its attempts each record holds.
    cause = "\n".join(f"step {s}: checking the {s} settings" for s in ("fetch", "parse", "merge"))
    quiet = f"{cause}\nKeyError: 'region' is not set in any profile"
    verbose = f"{cause}\nDEBUG profiles read: default, staging\nDEBUG the run ends without a region"
    d = Driver()
    for runner in ("./", "bash ", "sh ./"):
        d.turn(fail(f"{runner}deploy.sh --check", quiet))
    d.turn(fail("./deploy.sh --check --verbose", verbose))
    both = f"{verbose}\nKeyError: 'region' is not set in any profile"
    assert _run(d, fail("./deploy.sh --check --verbose --trace", both)) == 5


def test_a_clause_about_a_file_is_kept_with_the_file():
    # `No such file or directory` alone would make every missing file the one `ls` missed.
    d = Driver()
    d.turn(fail("ls crates/tauri/", "ls: crates/tauri/: No such file or directory"))
    build = (
        "Running beforeBuildCommand `cd ../../apps/web && pnpm build`\n"
        "sh: line 0: cd: ../../apps/web: No such file or directory\n"
        "beforeBuildCommand failed with exit code 1"
    )
    assert _run(d, *(fail(f"mise run tauri:build{' -v' * n}", build) for n in range(3))) == 0


def test_a_failure_without_its_wrappers_closing_note_is_that_failure():
    # `pnpm build` adds its own last line to vite's error; vite run directly stops before it.
    error = "\n".join(
        (
            "x Build failed in 850ms",
            "error during build:",
            '[vite]: Rollup failed to resolve import "./components/Header" from "src/App.tsx".',
            "This is most likely unintended because it can break your application at runtime.",
        )
    )
    d = Driver()
    d.turn(fail("pnpm build", f"{error}\n ELIFECYCLE  Command failed with exit code 1."))
    direct = (
        "npx vite build",
        "npx vite build --debug 2>&1 | tail -25",
        "./node_modules/.bin/vite build",
    )
    assert _run(d, *(fail(c, error) for c in direct)) == 4


def test_checks_through_one_wrapper_failing_each_on_its_own_error_are_not_one_failure():
    # yarn's own lines (its banner, its closing notes) are shared; the failures are not.
    errors = {
        "build": ("tsc -p .", "src/app.ts(3,7): error TS2322: Type 'string' is not assignable"),
        "lint": ("eslint .", "src/app.ts 3:7 error 'total' is assigned a value but never used"),
        "verify": ("node verify.js", "Error: STRIPE_SECRET_KEY is required for the checkout"),
        "typecheck": ("vue-tsc --noEmit", "src/Cart.vue:12:5 - error TS2339: no 'items' there"),
        "test": ("jest", "FAIL src/cart.test.ts: cart totals: expected 4, received 3"),
        "e2e": ("playwright test", "1) checkout.spec.ts:8:3 pays with a card: timed out"),
    }
    d = Driver()
    for script, (runs, error) in errors.items():
        out = (
            f"yarn run v1.22.19\n$ {runs}\n{error}\nerror Command failed with exit code 2.\n"
            "info Visit https://yarnpkg.com/en/docs/cli/run for documentation about this command."
        )
        d.turn(fail(f"yarn {script}", out))
    assert not any(render.context_text(o) for o in d.outputs)


def test_a_release_named_in_a_clause_beside_a_shared_one_is_another_target():
    # Each failure names its release in the same line as the shared timeout: a rollout of
    # four releases, each answering alike, is findings.
    d = Driver()
    for n, release in enumerate(("api", "worker", "billing", "gateway")):
        out = (
            f"Error: UPGRADE FAILED: release {release} failed, and has been rolled back due to "
            "atomic being set: timed out waiting for the condition"
        )
        options = " --atomic" + " --set image.tag=v2" * n  # never the same words but one
        d.turn(fail(f"helm upgrade --install {release} ./charts/{release}{options}", out))
    assert not any(render.context_text(o) for o in d.outputs)


def test_a_place_in_a_file_is_no_clause_of_its_own():
    # `handlers_test.go:41` names where, not what: the clause after it is read with it.
    call = ToolCall("Bash", {"command": "go test ./..."})
    line = "handlers_test.go:41: expected status 200, the handler answered 500"
    answer = ToolResult(failed=True, error=f"Exit code 1\n{line}")
    assert list(shape.cause_pairs(answer, call).values()) == [line]


def test_a_tally_is_counts_and_a_few_words():
    assert failures._tally("===== 1 failed, 5 passed, 1 skipped, 2 warnings in 0.35s =====")
    assert failures._tally("Found 4 errors in 4 files (checked 12 source files)")
    assert not failures._tally("error TS2304: Cannot find name")


def test_one_cause_met_by_each_tool_in_its_own_words_is_one_failure():
    # A proxy's certificate: each tool frames the same cause its own way.
    chain = "self-signed certificate in certificate chain"
    attempts = (
        fail(
            "cd web && npm ci",
            f"npm error code SELF_SIGNED_CERT_IN_CHAIN\nnpm error request to "
            f"https://registry.npmjs.org/vite failed, reason: {chain}",
        ),
        fail(
            "pip install -r requirements.txt",
            "WARNING: Retrying after connection broken by "
            f"'SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate "
            f"verify failed: {chain} (_ssl.c:1000)'))': /simple/fastapi/",
        ),
        fail(
            "git clone https://github.com/acme/fixtures.git",
            "Cloning into 'fixtures'...\n"
            f"fatal: unable to access 'https://github.com/acme/fixtures.git/': SSL certificate "
            f"problem: {chain}",
        ),
        fail(
            "curl -sS https://registry.npmjs.org/", f"curl: (60) SSL certificate problem: {chain}"
        ),
    )
    assert _run(Driver(), *attempts) == 4


def test_tools_sharing_only_a_heading_a_banner_or_their_own_boilerplate_are_not_one_failure():
    headed = (
        fail("python a.py", "Traceback (most recent call last):\nKeyError: 'region'"),
        fail(
            "pytest -q", "Traceback (most recent call last):\nImportError: cannot import name 'x'"
        ),
        fail("flask run", "Traceback (most recent call last):\nValueError: bad port setting"),
        fail("alembic upgrade head", "Traceback (most recent call last):\nOSError: disk quota"),
    )
    assert _run(Driver(), *headed) == 0
    usage = "error: the following required arguments were not provided:"
    needs = (
        fail(f"{tool} build", f"{usage}\n  <{arg}>")
        for tool, arg in (
            ("ripgrep", "PATTERN"),
            ("fd", "PATH"),
            ("bat", "FILE"),
            ("delta", "MINUS_FILE"),
        )
    )
    assert _run(Driver(), *needs) == 0
    banner = "platform linux -- Python 3.12.1, pytest-8.2.0, pluggy-1.5.0"
    runners = ("pytest", "python -m pytest", "python3 -m pytest", "uv run pytest")
    errors = ("KeyError: 'a'", "ValueError: b", "TypeError: c", "OSError: d")
    banners = (fail(r, f"{banner}\nE   {e}") for r, e in zip(runners, errors, strict=True))
    assert _run(Driver(), *banners) == 0
    log = "npm error A complete log of this run can be found in: /home/u/.npm/_logs/debug-0.log"
    npm = (
        fail(
            "npm ci",
            f"npm error code EUSAGE\nnpm error lockfile out of sync with package.json\n{log}",
        ),
        fail(
            "npm install",
            f"npm error code ERESOLVE\nnpm error could not resolve peer react@19\n{log}",
        ),
        fail(
            "npm run build",
            f"npm error code ELIFECYCLE\nnpm error TS2304 cannot find name foo\n{log}",
        ),
        fail(
            "npm test",
            f"npm error code ELIFECYCLE\nnpm error 3 failing specifications found\n{log}",
        ),
    )
    assert _run(Driver(), *npm) == 0


def test_a_warning_every_tool_prints_first_is_no_shared_cause():
    warning = (
        "(node:4242) [DEP0040] DeprecationWarning: The `punycode` module is deprecated. "
        "Please use a userland alternative instead."
    )
    errors = (
        ("eslint src", "src/app.ts 12:7 error 'x' is assigned a value but never used"),
        ("tsc --noEmit", "src/api/client.ts(40,3): error TS2322: Type 'string' is not 'number'"),
        ("jest", "FAIL src/cart.test.ts: expect(received).toBe(expected), received 95"),
        ("webpack", "ERROR in ./src/index.ts: Module not found: Can't resolve './routes'"),
    )
    assert _run(Driver(), *(fail(cmd, f"{warning}\n{err}") for cmd, err in errors)) == 0


def test_a_look_at_a_failures_log_is_no_attempt_of_its_own():
    chain = "self-signed certificate in certificate chain"
    d = Driver()
    d.turn(
        fail(
            "npm ci",
            f"npm error request to https://registry.npmjs.org/vite failed, reason: {chain}",
        )
    )
    log = f"12 verbose stack Error: request to https://registry.npmjs.org failed, reason: {chain}"
    for command in ("cat ~/.npm/_logs/debug-0.log", "tail -n 40 ~/.npm/_logs/debug-0.log"):
        d.turn(bash(command, response=log))
    d.turn(bash("grep -n reason ~/.npm/_logs/debug-0.log", response=log))
    assert d.main["stuck"]["fails"] == 1


def test_a_program_asked_only_its_version_changes_nothing():
    reads = tool_effects.is_read_only_command
    assert reads("node -v && npm -v && python3 --version") and reads("terraform -v")
    assert not reads("rm -v build.log") and not reads("./restart.sh -v")
    assert not reads("pytest -v") and not reads("ansible-playbook -v")
