"""The held-out fold of the recall suite: sessions written from the loop classes' descriptions
alone, before the rules were changed, and never used to tune them.

    .venv/bin/python -m testing.recall_holdout      # rewrites tests/fixtures/recall-holdout/

`benchmarks/recall.py` reports this fold apart from the tuned suite. A rule change that makes
one of these pass or fail is a measurement, not a target: adjust the rules on the tuned suite
(`testing.recall_suite`, `testing.recall_classes`) and read this fold's figures afterwards.
"""

from __future__ import annotations

import json
from typing import Any

from testing.builders import REPO
from testing.recall_suite import LEGIT
from testing.recall_suite import LOOP
from testing.recall_suite import Session
from testing.recall_suite import edit_call
from testing.recall_suite import read_call
from testing.recall_suite import stamp


SUITE = REPO / "tests" / "fixtures" / "recall-holdout"


def _open(s: Session, task: str) -> Session:
    s.prompt(task)
    s.calls(read_call("/srv/app/README.md", "# app\n\nRun `make test`.\n"), narration="Reading.")
    s.wait(15).bash("git log --oneline -3", "9c1d2e3 fix cache\n7b8a9f0 add cli\n1a2b3c4 init")
    return s


def _loop(by_turn: int, stop_by: int, what: str) -> dict[str, Any]:
    """A word (a deny, a check-in or a pause) by `by_turn`, a pause by `stop_by`."""
    return {"kind": LOOP, "by_turn": by_turn, "stop_by": stop_by, "what": what}


def missing_module() -> tuple[Session, dict[str, Any]]:
    """One root cause (pytest is not installed in the interpreter used) surfacing through a
    different interpreter path each time, the command re-spelt, nothing installed or edited,
    and a one-off look at something else among the attempts."""
    s = _open(Session("h-missing-module"), "Run the unit tests and fix what fails.")
    spellings = (
        ("python -m pytest tests/unit", "python"),
        ("python3 -m pytest tests/unit | tail -20", "python3"),
        ("/usr/bin/python3 -m pytest tests/unit 2>&1 | head -40", "/usr/bin/python3"),
        ('"python3" -m pytest "tests/unit"', "python3"),
        ("/srv/app/.venv/bin/python -m pytest /srv/app/tests/unit", "/srv/app/.venv/bin/python"),
    )
    attempts: list[int] = []
    for n in range(9):
        command, program = spellings[n % len(spellings)]
        s.wait(11 + n % 4).fail(command, f"{program}: No module named pytest")
        attempts.append(s.turn)
        if n == 2:
            s.wait(6).bash("ls tests/unit", "__init__.py\ntest_cache.py\ntest_cli.py")
        if n == 5:
            s.wait(7).calls(read_call("/srv/app/setup.cfg", "[options]\npackages = find:\n"))
    return s, _loop(attempts[3], attempts[-1], "missing module, interpreter path differs")


def make_failure() -> tuple[Session, dict[str, Any]]:
    """A build failing on one missing header, re-run through make, with a filter, with an
    absolute path and quotes; the compiler names the including file differently each time."""
    s = _open(Session("h-make-failure"), "Build the C extension.")
    spellings = (
        "make",
        "make 2>&1 | tail -15",
        "make -C /srv/app/ext",
        "cd /srv/app/ext && make all",
        "'make' -j4 | head -30",
    )
    sources = ("src/codec.c", "/srv/app/ext/src/codec.c", "./src/codec.c", "ext/src/codec.c")
    attempts: list[int] = []
    for n in range(10):
        where = sources[n % len(sources)]
        s.wait(18).fail(
            spellings[n % len(spellings)],
            f"gcc -O2 -fPIC -c {where} -o build/codec.o\n"
            f"{where}:3:10: fatal error: zstd.h: No such file or directory\n"
            "    3 | #include <zstd.h>\n      |          ^~~~~~~~\ncompilation terminated.\n"
            f"make: *** [Makefile:{14 + n % 2}: build/codec.o] Error 1",
            narration="Trying the build again." if n % 4 == 0 else "",
        )
        attempts.append(s.turn)
        if n == 4:
            s.wait(5).bash("gcc --version | head -1", "gcc (Debian 12.2.0-14) 12.2.0")
    return s, _loop(attempts[3], attempts[-1], "make failure, one missing header")


def rotated_probe() -> tuple[Session, dict[str, Any]]:
    """Four spellings of one queue-depth probe in rotation, the answer never moving."""
    s = _open(Session("h-rotated-probe"), "Start the worker and make sure the queue drains.")
    s.wait(8).bash("systemctl --user start worker", "")
    spellings = (
        "redis-cli llen jobs",
        "redis-cli -h 127.0.0.1 LLEN jobs",
        "redis-cli -n 0 llen jobs | cat",
        "docker exec redis redis-cli llen jobs",
    )
    probes: list[int] = []
    for n in range(24):
        s.wait(9 + n % 3).bash(spellings[n % len(spellings)], "(integer) 412")
        probes.append(s.turn)
    return s, _loop(probes[9], probes[-1], "queue depth probe, four spellings in rotation")


def narrated_clock_probe() -> tuple[Session, dict[str, Any]]:
    """The model says the time and what it checks, each turn, and the check never changes."""
    s = _open(Session("h-narrated-clock"), "Wait for the replica to catch up, then report.")
    probes: list[int] = []
    for n in range(22):
        s.wait(20 + n % 5)
        at = stamp(s.t.clock)
        s.bash(
            "date -u +%H:%M:%S; psql -tAc 'select now() - pg_last_xact_replay_timestamp()'",
            f"{at[11:]}\n00:{14 + n // 6:02d}:{n * 13 % 60:02d}.{n * 379 % 1000:03d}",
            narration=f"{at[11:]} UTC: replica lag check, still behind; looking again.",
        )
        probes.append(s.turn)
    return s, _loop(probes[9], probes[-1], "narrated timestamped lag probe")


def issue_triage() -> tuple[Session, dict[str, Any]]:
    """A routine triage: each of twenty pull requests looked at, then labelled."""
    s = _open(Session("h-pr-triage"), "Label every open PR by area.")
    areas = ("docs", "cli", "cache", "build")
    for n in range(20):
        number = 310 + 3 * n
        area = areas[n * 7 % len(areas)]
        s.wait(14).bash(
            f"gh pr view {number} --json title,files",
            json.dumps(
                {"title": f"{area}: change {number}", "files": [{"path": f"{area}/f{n}.py"}]}
            ),
        )
        s.wait(9).bash(
            f"gh pr edit {number} --add-label area/{area}",
            f"https://github.com/acme/app/pull/{number}",
        )
    s.wait(5).say("All twenty PRs are labelled.")
    return s, {"kind": LEGIT, "what": "twenty PRs viewed and labelled"}


def fix_then_test() -> tuple[Session, dict[str, Any]]:
    """Real edits between test runs, some of which leave the failure as it was."""
    s = _open(Session("h-fix-then-test"), "Make test_cache pass.")
    path = "/srv/app/cache.py"
    content = "TTL = 0\n"
    for n in range(9):
        old, new = f"TTL = {n}", f"TTL = {n + 1}"
        s.wait(40).calls(edit_call(path, content, old, new), narration="Another attempt.")
        content = content.replace(old, new)
        if n < 8:
            s.wait(12).fail(
                "python -m pytest tests/unit/test_cache.py -q",
                "F\nE   assert cache.get('k') == 'v'\n1 failed in 0.12s",
            )
        else:
            s.wait(12).bash("python -m pytest tests/unit/test_cache.py -q", "1 passed in 0.10s")
    s.wait(5).say("test_cache passes.")
    return s, {"kind": LEGIT, "what": "a test after each edit, same failure several times"}


def read_many() -> tuple[Session, dict[str, Any]]:
    """Reading through a codebase: many files, line ranges of one long file, sizes."""
    s = _open(Session("h-read-many"), "Explain how the cache module works.")
    for n in range(12):
        s.wait(8).calls(read_call(f"/srv/app/cache/part{n}.py", f"def step{n}():\n    pass\n"))
    for n in range(10):
        start = 1 + 40 * n
        body = "\n".join(f"line {start + i}: handler_{n}_{i}()" for i in range(3))
        s.wait(6).bash(f"sed -n '{start},{start + 39}p' /srv/app/cache/core.py", body)
    for n in range(6):
        s.wait(5).bash(f"wc -l /srv/app/cache/part{n}.py", f"{20 + n} /srv/app/cache/part{n}.py")
    s.wait(5).say("The cache is a two-level LRU; core.py holds the eviction loop.")
    return s, {"kind": LEGIT, "what": "many files and line ranges read"}


def job_poll_finishes() -> tuple[Session, dict[str, Any]]:
    """A sleeping poll of a release job that finishes, then a few checks without a wait."""
    s = _open(Session("h-job-poll"), "Trigger the release job and wait for it.")
    s.wait(6).bash("gh workflow run release.yml", "Created workflow_dispatch event")
    for n in range(10):
        done = n == 9
        state = {"status": "completed" if done else "in_progress", "conclusion": ""}
        if done:
            state["conclusion"] = "success"
        s.wait(75).bash(
            "sleep 60; gh run list -w release.yml -L 1 --json status,conclusion",
            (json.dumps([state])),
        )
    for n in range(3):
        s.wait(10).bash(
            f"gh release view v2.{n}.0 --json tagName", json.dumps({"tagName": f"v2.{n}.0"})
        )
    s.wait(5).say("The release job succeeded.")
    return s, {"kind": LEGIT, "what": "sleeping poll of a job that finishes"}


BUILDERS = (
    missing_module,
    make_failure,
    rotated_probe,
    narrated_clock_probe,
    issue_triage,
    fix_then_test,
    read_many,
    job_poll_finishes,
)


if __name__ == "__main__":
    from testing.recall_suite import build

    for name, label in build(SUITE, BUILDERS).items():
        print(name, label)
