"""The labelled recall suite: synthetic sessions of loop and stall shapes and of their
legitimate look-alikes, written as Claude Code writes transcripts.

    .venv/bin/python -m testing.recall_suite        # rewrites tests/fixtures/recall/

Each session is built turn by turn with real gaps between entries, narration where real
sessions narrate, and parallel calls in one message. `labels.json` says, per file, what a user
would want: a loop paused by a given turn, a stall sent back at a given turn, an arc released,
or a legitimate run left alone. `benchmarks/recall.py` replays every file against its label.
The output is checked in; a test makes sure it is what this script writes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from testing.builders import REPO
from testing.builders import Transcript


SUITE = REPO / "tests" / "fixtures" / "recall"
LABELS = SUITE / "labels.json"
VERSION = "2.1.328"  # the release the sessions pretend to come from
START = 1_786_000_000  # a fixed clock: the files are the same on every run
LOOP = "loop"
STALL = "stall"
RELEASE = "release"
LEGIT = "legit"


class Session:
    """A transcript plus the turn count replay will see (one assistant message, one turn)."""

    def __init__(self, name: str) -> None:
        self.t = Transcript(session_id=f"recall-{name}", start=START)
        self.turn = 0

    def wait(self, seconds: int) -> Session:
        self.t.clock += seconds
        return self

    def prompt(self, text: str) -> Session:
        self.t.prompt(text)
        return self

    def say(self, text: str) -> Session:
        self.turn += 1
        self.t.text(text)
        return self

    def calls(
        self, *calls: tuple[str, dict[str, Any], Any], narration: str = "", error: bool = False
    ) -> Session:
        self.turn += 1
        self.t.tools(*calls, narration=narration, error=error)
        return self

    def bash(self, command: str, stdout: str, *, narration: str = "") -> Session:
        return self.calls(bash_call(command, stdout), narration=narration)

    def fail(self, command: str, output: str, *, narration: str = "") -> Session:
        text = f"Exit code 1\n{output}"
        return self.calls(("Bash", {"command": command}, text), narration=narration, error=True)


def bash_call(command: str, stdout: str) -> tuple[str, dict[str, Any], Any]:
    response = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False}
    return ("Bash", {"command": command, "description": "run"}, response)


def read_call(path: str, content: str) -> tuple[str, dict[str, Any], Any]:
    numbered = "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(content.splitlines(), 1))
    result = {"type": "text", "file": {"filePath": path, "content": content}}
    return ("Read", {"file_path": path}, {**result, "text": numbered})


def edit_call(path: str, before: str, old: str, new: str) -> tuple[str, dict[str, Any], Any]:
    response = {
        "filePath": path,
        "oldString": old,
        "newString": new,
        "originalFile": before,
        "structuredPatch": [
            {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": [old, new]}
        ],
        "userModified": False,
        "replaceAll": False,
    }
    return ("Edit", {"file_path": path, "old_string": old, "new_string": new}, response)


def stamp(at: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(at))


def _setup(s: Session, task: str) -> Session:
    """The real work every session opens with: read, edit, start something."""
    s.prompt(task)
    s.calls(read_call("/home/dev/project/app/server.py", SERVER), narration="Let me look first.")
    s.wait(20).calls(
        edit_call("/home/dev/project/app/server.py", SERVER, "PORT = 8000", "PORT = 8080")
    )
    s.wait(8).bash("python -m app.server --daemon", "started pid 48211 on :8080")
    return s


SERVER = "PORT = 8000\nTIMEOUT = 30\n\ndef main():\n    serve(PORT, TIMEOUT)\n"
CONFIG = "TIMEOUT = 30\nRETRIES = 3\n"


def health(at: int, n: int) -> str:
    return json.dumps(
        {
            "status": "ok",
            "time": f"{stamp(at)}.{n * 37 % 1000:03d}Z",
            "uptime_s": 40 + n * 9,
            "requests": 1000 + n * 13,
            "pid": 48211,
            "request_id": f"{(n * 2654435761) % (1 << 64):016x}",
        }
    )


def probe_timestamp() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("probe-timestamp"), "Start the server on 8080 and make sure it is up.")
    start = s.turn
    for n in range(40):
        s.wait(6 + n % 4)
        at = s.t.clock
        if n % 7 == 3:
            s.calls(
                bash_call("curl -s localhost:8080/health", health(s.t.clock, n)),
                bash_call("date -u", time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime(at))),
            )
        else:
            s.bash("curl -s localhost:8080/health", health(s.t.clock, n))
    return s, {"kind": LOOP, "by_turn": start + 20, "what": "health probe, new timestamp each"}


def probe_varying() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("probe-varying"), "Bring the server up and confirm it stays healthy.")
    start = s.turn
    for n in range(40):
        s.wait(5 + n % 5)
        command = f'echo "check {n + 1}"; curl -s localhost:8080/status | tail -n {2 + n % 3}'
        uptime = f"up {n // 6} min, {n * 7 % 60} sec"
        s.bash(command, f"check {n + 1}\nstatus: healthy\nuptime: {uptime}\nworkers: 4")
    return s, {"kind": LOOP, "by_turn": start + 20, "what": "probe with a counter and filter"}


_NARRATION = (
    "Still healthy. Checking once more to be sure.",
    "Looks fine, checking again.",
    "Still fine, looking again.",
    "Checking again.",
    "Healthy. One more check to be safe.",
)


def probe_narrated() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("probe-narrated"), "Restart the server and verify it is healthy.")
    start = s.turn
    for n in range(40):
        s.wait(7 + n % 3)
        narration = _NARRATION[n % len(_NARRATION)] if n % 2 == 0 else ""
        s.bash("curl -s localhost:8080/health | jq .", health(s.t.clock, n), narration=narration)
    return s, {"kind": LOOP, "by_turn": start + 20, "what": "narrated health probe"}


FAILURE = (
    "FAIL tests/retry.test.js\n  retry\n    x gives up after 3 attempts ({ms} ms)\n\n"
    "  Expected: 3\n  Received: 4\n\nTests: 1 failed, 11 passed, 12 total\n"
    "Time: {secs} s\nRan all test suites."
)


def edit_revert() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("edit-revert"), "Fix the failing retry test.")
    path = "/home/dev/project/app/config.py"
    s.wait(10).calls(read_call(path, CONFIG))
    start = s.turn
    content = CONFIG
    for n in range(8):
        old, new = ("RETRIES = 3", "RETRIES = 2") if n % 2 == 0 else ("RETRIES = 2", "RETRIES = 3")
        say = "Let me lower the retry count." if n % 2 == 0 else "That did not help; reverting."
        s.wait(15).calls(edit_call(path, content, old, new), narration=say)
        content = content.replace(old, new)
        secs = f"{1.1 + n * 0.07:.2f}"
        s.wait(9).fail("npx jest tests/retry.test.js", FAILURE.format(ms=12 + n, secs=secs))
    return s, {"kind": LOOP, "by_turn": start + 16, "what": "edit/revert with narration"}


def same_failure() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("same-failure"), "The retry test fails; find out why.")
    start = s.turn
    spellings = (
        "npx jest tests/retry.test.js",
        "npm test -- tests/retry.test.js",
        "npx jest --ci tests/retry.test.js",
        "npm run test -- --runInBand tests/retry.test.js",
        "node node_modules/.bin/jest tests/retry.test.js",
    )
    for n in range(20):
        secs = f"{0.9 + n * 0.13:.2f}"
        s.wait(12).fail(
            spellings[n % len(spellings)],
            FAILURE.format(ms=10 + n * 3, secs=secs),
            narration="Let me run it again." if n % 3 == 0 else "",
        )
    return s, {"kind": LOOP, "by_turn": start + 9, "what": "one failure, five spellings"}


def spin() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("spin"), "Wait for the build log to say done.")
    start = s.turn
    for _ in range(20):
        s.wait(4).bash("tail -n 5 build.log", "compiling module 7/9 ...")
    return s, {"kind": LOOP, "by_turn": start + 8, "what": "same call, no wait"}


def poll_forever() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("poll-forever"), "Wait for the deploy job and report.")
    start = s.turn
    for n in range(50):
        s.wait(60).bash(
            "sleep 45 && gh run view 4711 --json status,conclusion",
            json.dumps({"status": "queued", "conclusion": "", "elapsed": f"{n}m{n * 7 % 60}s"}),
        )
    # A queued job for 50 minutes: a user wants to hear about it well before the hour.
    return s, {"kind": LOOP, "by_turn": start + 40, "what": "sleeping poll that never moves"}


def _arc_work(s: Session) -> Session:
    s.calls(read_call("/home/dev/project/app/parse.py", "def parse(x):\n    return x\n"))
    s.wait(30).calls(
        edit_call(
            "/home/dev/project/app/parse.py",
            "def parse(x):\n    return x\n",
            "return x",
            "return x.strip()",
        ),
        narration="Trimming the input.",
    )
    s.wait(12).bash("pytest -q tests/test_parse.py", "4 passed in 0.31s")
    return s


def stall(name: str, final: str) -> tuple[Session, dict[str, Any]]:
    s = Session(name).prompt("Harden the parser: trim input, reject empty lines, add tests.")
    _arc_work(s)
    s.wait(5).say(final)
    at = s.turn
    s.wait(120).prompt("ok")
    return s, {"kind": STALL, "by_turn": at, "what": f"stop: {final}"}


def completion() -> tuple[Session, dict[str, Any]]:
    s = Session("compound-completion").prompt("Harden the parser and commit it.")
    _arc_work(s)
    s.wait(10).bash('git commit -am "parser: trim input"', "[main 3f2a1b9] parser: trim input")
    s.wait(5).say("The parser changes are committed and all tests pass.")
    at = s.turn
    s.wait(30).prompt("thanks")
    return s, {"kind": RELEASE, "by_turn": at, "what": "compound completion claim"}


def benchmark_reruns() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("benchmark-reruns"), "Measure the parser's throughput.")
    for n in range(5):
        took = 1.8 + n * 0.11
        s.wait(25).bash(
            "python bench/parse_bench.py --rounds 5",
            f"rounds: 5\nmean: {took:.3f} s\nstdev: {0.02 + n * 0.003:.3f} s\n"
            f"throughput: {int(5000 / took)} lines/s",
            narration="Another run to see the spread." if n else "Running the benchmark.",
        )
    s.wait(5).say("Five runs: the mean is stable at about 1.9 s.")
    return s, {"kind": LEGIT, "what": "benchmark re-run 5 times"}


def git_status_commits() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("git-status-commits"), "Split the change into three commits.")
    files = ("app/a.py", "app/b.py", "app/c.py")
    for n, name in enumerate(files):
        path = f"/home/dev/project/{name}"
        s.wait(20).calls(edit_call(path, f"X = {n}\n", f"X = {n}", f"X = {n + 1}"))
        s.wait(5).bash("git status --short", f" M {name}")
        s.wait(5).bash(f"git add {name}", "")
        s.wait(5).bash(
            f'git commit -m "{name}: bump X"',
            f"[main {n + 1}a2b3c{n}] {name}: bump X\n 1 file changed",
        )
        s.wait(5).bash("git status --short", "")
        s.wait(4).bash("git status", "On branch main\nnothing to commit, working tree clean")
    return s, {"kind": LEGIT, "what": "git status around commits"}


def test_after_edit() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("test-after-edit"), "Make the whole suite pass.")
    path = "/home/dev/project/app/parse.py"
    content = "A0\n"
    for n in range(8):
        new = content.replace(f"A{n}", f"A{n + 1}")
        s.wait(30).calls(edit_call(path, content, f"A{n}", f"A{n + 1}"), narration="Next fix.")
        content = new
        left = 8 - n - 1
        if left:
            out = f"{left} failed, {12 - left} passed in {0.5 + n * 0.1:.2f}s"
            s.wait(10).fail("pytest -q", out)
        else:
            s.wait(10).bash("pytest -q", "12 passed in 1.31s")
    return s, {"kind": LEGIT, "what": "test re-run after each edit"}


def ci_poll() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("ci-poll"), "Push and wait for CI to pass.")
    s.wait(6).bash("git push origin main", "To github.com:dev/project.git\n   1a..2b  main")
    for n in range(13):
        done = n == 12
        status = {
            "status": "completed" if done else "in_progress",
            "conclusion": "success" if done else "",
            "updatedAt": f"{stamp(s.t.clock + 60)}Z",
        }
        s.wait(60).bash(
            "sleep 50; gh run list --limit 1 --json status,conclusion,updatedAt",
            json.dumps([status]),
            narration="CI is still running; checking again in a minute." if n == 0 else "",
        )
    s.wait(5).say("CI passed.")
    return s, {"kind": LEGIT, "what": "sleeping CI poll, success after 12 minutes"}


_DISTINCT = (
    "Load looks normal.",
    "The container reports healthy.",
    "No restarts so far.",
    "Memory is flat.",
    "Nothing in the error log.",
    "Connections are steady.",
    "CPU is idle.",
    "The health check answers quickly.",
    "Disk usage did not move.",
    "The worker count is unchanged.",
)


def probe_uptime() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("probe-uptime"), "Deploy the container and keep an eye on it.")
    start = s.turn
    for n in range(40):
        s.wait(8 + n % 3)
        minutes = 3 + n // 5
        up = f" 10:{42 + n // 6:02d}:{n * 11 % 60:02d} up 3 days,  4:{12 + n // 6:02d},  2 users"
        s.calls(
            bash_call("uptime", f"{up},  load average: 0.{10 + n % 7}, 0.12, 0.09"),
            bash_call(
                "docker ps --format '{{.Names}} {{.Status}}'",
                f"api Up {minutes} minutes (healthy)\ndb Up {minutes + 40} minutes",
            ),
            narration=_DISTINCT[n % len(_DISTINCT)],
        )
    return s, {"kind": LOOP, "by_turn": start + 20, "what": "uptime and docker ps, narrated"}


PYTEST_FAILURE = (
    "============================= test session starts ==============================\n"
    "platform linux -- Python 3.11.9, pytest-8.2.0, pluggy-1.5.0\n"
    "rootdir: /tmp/pytest-of-dev/pytest-{run}\ncollected 10 items\n\n"
    "tests/test_api.py .....F....                                             [100%]\n\n"
    "=================================== FAILURES ===================================\n"
    "_________________________________ test_login __________________________________\n"
    "E       AssertionError: assert 401 == 200\n"
    "========================= 1 failed, 9 passed in {secs}s ========================="
)


def same_failure_pytest() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("same-failure-pytest"), "test_login fails; fix it.")
    start = s.turn
    spellings = (
        "pytest tests/test_api.py",
        "python -m pytest tests/test_api.py",
        "pytest -x tests/test_api.py",
        "python3 -m pytest -p no:cacheprovider tests/test_api.py",
    )
    for n in range(16):
        s.wait(14).fail(
            spellings[n % len(spellings)],
            PYTEST_FAILURE.format(run=100 + n, secs=f"{0.4 + n * 0.03:.2f}"),
        )
        if n % 4 == 1:
            s.wait(6).calls(read_call("/home/dev/project/app/auth.py", "def login(u, p): ..."))
    return s, {"kind": LOOP, "by_turn": start + 10, "what": "pytest failure, four spellings"}


def subagent_probe() -> tuple[Session, dict[str, Any]]:
    s = Session("subagent-probe").prompt("Check that the staging API stays up for a while.")
    start = s.turn
    for n in range(40):
        s.wait(7).bash("curl -s https://staging.example.test/health", health(s.t.clock, n))
    s.t.as_subagent("a1b2c3d4e5")
    return s, {"kind": LOOP, "by_turn": start + 20, "what": "probe loop inside a subagent"}


def cycle_narrated() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("cycle-narrated"), "Find out why the worker stops.")
    start = s.turn
    say = ("Checking again.", "Still nothing, checking again.", "Checking once more.")
    for n in range(30):
        at = stamp(s.t.clock)
        if n % 2 == 0:
            s.wait(6).bash("tail -n 3 logs/worker.log", f"{at} worker idle\n{at} heartbeat ok")
        else:
            s.wait(6).bash(
                "ps aux | grep worker",
                f"dev {48000 + n} 0.0 0.1 python worker.py",
                narration=say[n % 3],
            )
    return s, {"kind": LOOP, "by_turn": start + 14, "what": "two-call cycle, repeated narration"}


def deploy_poll() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("deploy-poll"), "Roll out the new image and wait until it is live.")
    s.wait(5).bash(
        "kubectl set image deploy/api api=api:1.4.2", "deployment.apps/api image updated"
    )
    stages = [0] * 3 + [1] * 3 + [2] * 3 + [3]
    for n, ready in enumerate(stages):
        out = (
            'deployment "api" successfully rolled out'
            if ready == 3
            else f'Waiting for deployment "api" rollout to finish: {ready} of 3 updated replicas'
            " are available..."
        )
        if ready == 1:
            out = out.replace(
                "are available", "are available, 1 old replica is pending termination"
            )
        if ready == 2:
            out = out.replace("are available", "are available, waiting for the last one")
        s.wait(45).bash(f"sleep 30 && kubectl rollout status deploy/api --timeout=5s # {n}", out)
    s.wait(5).say("The rollout finished: 3 of 3 replicas run 1.4.2.")
    return s, {"kind": LEGIT, "what": "sleeping rollout poll whose status moves"}


def read_logs() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("read-logs"), "Look through the service logs for the 502s.")
    services = ("gateway", "auth", "billing", "search", "mailer", "uploads", "reports", "queue")
    for n, name in enumerate(services * 2):
        at = stamp(s.t.clock)
        lines = f"{at} {name} request ok\n{at} {name} request {'ok' if n % 3 else 'timeout'}"
        s.wait(9).bash(
            f"tail -n 2 logs/{name}.log",
            lines + (f"\n{at} {name} upstream {name}-{n % 4} reset" if n >= 8 else ""),
            narration=f"The {name} log next." if n % 2 else "",
        )
    s.wait(5).say("The 502s come from the auth upstream resets.")
    return s, {"kind": LEGIT, "what": "tail of many logs with timestamps"}


def build_after_edits() -> tuple[Session, dict[str, Any]]:
    s = _setup(Session("build-after-edits"), "Fix the type errors in the build.")
    path = "/home/dev/project/src/index.ts"
    content = "let a0 = 1;\n"
    for n in range(10):
        old, new = f"a{n}", f"a{n + 1}"
        s.wait(25).calls(edit_call(path, content, old, new))
        content = content.replace(old, new)
        errors = 10 - n - 1
        if errors:
            s.wait(12).fail(
                "npm run build",
                f"> app@1.0.0 build\n> tsc -p .\n\nsrc/index.ts(4,{n + 3}): error TS2322:"
                f" Type 'string' is not assignable to type 'number'.\nFound {errors} errors.",
            )
        else:
            s.wait(12).bash("npm run build", "> app@1.0.0 build\n> tsc -p .\n")
    return s, {"kind": LEGIT, "what": "build re-run after each edit"}


BUILDERS = (
    probe_timestamp,
    probe_varying,
    probe_narrated,
    edit_revert,
    same_failure,
    spin,
    poll_forever,
    lambda: stall("stall-continuing", "Parser trimmed and tested. Continuing…"),
    lambda: stall("stall-proceeding", "Tests pass for the trimming step. Proceeding."),
    lambda: stall(
        "stall-waiting", "The build is still running, so I am waiting for it before moving on."
    ),
    lambda: stall(
        "stall-approval",
        "Trimming is done and tested. Rejecting empty lines will raise on a blank line."
        " Does this look right?",
    ),
    lambda: stall(
        "stall-pausing",
        "Trimming is done and tested. This is a good place to pause: rejecting empty lines"
        " is still to do.",
    ),
    completion,
    benchmark_reruns,
    git_status_commits,
    test_after_edit,
    ci_poll,
    probe_uptime,
    same_failure_pytest,
    subagent_probe,
    cycle_narrated,
    deploy_poll,
    read_logs,
    build_after_edits,
)


def build(
    folder: Path = SUITE, builders: Sequence[Callable[[], tuple[Session, dict[str, Any]]]] = ()
) -> dict[str, dict[str, Any]]:
    """Write every session and the labels into `folder`; returns the labels."""
    folder.mkdir(parents=True, exist_ok=True)
    labels: dict[str, dict[str, Any]] = {}
    for make in builders or _tuned():
        session, label = make()
        for entry in session.t.entries:
            entry["version"] = VERSION
        name = session.t.session_id.removeprefix("recall-") + ".jsonl"
        session.t.write(folder / name)
        if label["kind"] == LOOP and "stop_by" not in label:
            # A pause by that turn: the word and the stop both come by then.
            label["stop_by"] = label["by_turn"]
        labels[name] = label
    text = json.dumps(labels, indent=2, sort_keys=True) + "\n"
    (folder / LABELS.name).write_text(text, encoding="utf-8")
    return labels


def _tuned() -> Sequence[Callable[[], tuple[Session, dict[str, Any]]]]:
    from testing import recall_classes

    return (*BUILDERS, *recall_classes.BUILDERS)


if __name__ == "__main__":
    for name, label in build().items():
        print(name, label)
