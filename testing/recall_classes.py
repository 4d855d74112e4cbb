"""Recall sessions for the classes of loops judged by what their results add, and for the
look-alikes that must stay untouched (part of the tuned suite: `testing.recall_suite` writes
them with its own sessions).

Loops: one build failure re-run under new spellings while the failure names another program
or path each time, with a one-off call among the attempts; one failure after each reinstall
that finds everything in place; a probe rotated through four spellings; a probe whose answer
flaps between two errors; restarts each followed by the same answer; a web search reworded
around the same links; a probe narrated with the time; a stuck poll rotated through three
spellings. Look-alikes: a training run watched two ways, its step moving; a triage of twenty issues
(view, then edit, each number its own target); a plan resubmitted after each of the user's
rejections; a question asked again after each answer; a long file read range by range;
numbered files read one after another (each number names another file).
"""

from __future__ import annotations

import json
from typing import Any

from testing.recall_suite import LEGIT
from testing.recall_suite import LOOP
from testing.recall_suite import Session
from testing.recall_suite import bash_call
from testing.recall_suite import edit_call
from testing.recall_suite import read_call
from testing.recall_suite import stamp


def _open(s: Session, task: str) -> Session:
    s.prompt(task)
    s.calls(read_call("/home/dev/svc/go.mod", "module example.com/svc\n\ngo 1.22\n"))
    s.wait(12).bash("git status --short", " M cmd/server/main.go")
    return s


def _loop(by_turn: int, stop_by: int, what: str) -> dict[str, Any]:
    """A word (a deny, a check-in or a pause) by `by_turn`, a pause by `stop_by`."""
    return {"kind": LOOP, "by_turn": by_turn, "stop_by": stop_by, "what": what}


def go_build_failure() -> tuple[Session, dict[str, Any]]:
    s = _open(Session("go-build-failure"), "Get the server to build.")
    spellings = (
        ("go build ./...", "cmd/server/main.go"),
        ("go build ./cmd/server 2>&1 | tail -20", "cmd/server/main.go"),
        ("cd /home/dev/svc && go build ./cmd/server", "/home/dev/svc/cmd/server/main.go"),
        ('go vet "./cmd/server"', "vet: cmd/server/main.go"),
        ("/usr/local/go/bin/go build -v ./... | head -30", "./cmd/server/main.go"),
    )
    attempts: list[int] = []
    for n in range(11):
        command, where = spellings[n % len(spellings)]
        s.wait(16 + n % 3).fail(
            command,
            f"# example.com/svc/cmd/server\n{where}:14:2: undefined: config.Load",
            narration="Building again." if n % 5 == 0 else "",
        )
        attempts.append(s.turn)
        if n == 1:
            s.wait(5).bash("cat internal/config/doc.go", "// Package config reads settings.")
        if n == 6:
            s.wait(5).bash("go env GOPATH", "/home/dev/go")
    return s, _loop(attempts[3], attempts[-1], "go build failure, five spellings")


TSC_ERROR = (
    "> web@1.4.0 build\n> tsc -p tsconfig.json\n\n"
    "src/api/client.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'."
)


def filtered_build_failure() -> tuple[Session, dict[str, Any]]:
    # Piped through a filter, a failing build exits with the filter's code: Claude Code reports
    # those attempts as completed, though each shows the same compiler error.
    s = _open(Session("filtered-build-failure"), "Fix the web build.")
    spellings = (
        ("npm run build", True, TSC_ERROR),
        ("npm run build 2>&1 | tail -20", False, TSC_ERROR),
        ("npm run build --silent 2>&1 | grep -A3 error", False, TSC_ERROR.split("\n")[-1]),
        ("npx tsc -p tsconfig.json", True, TSC_ERROR.split("\n")[-1]),
        ("npm run build 2>&1; echo exit=$?", False, f"{TSC_ERROR}\nexit=2"),
    )
    attempts: list[int] = []
    for n in range(9):
        command, failed, output = spellings[n % len(spellings)]
        narration = "Rebuilding." if n % 4 == 0 else ""
        if failed:
            s.wait(15).fail(command, output, narration=narration)
        else:
            s.wait(15).bash(command, output, narration=narration)
        attempts.append(s.turn)
        if n == 2:
            s.wait(5).calls(read_call("/home/dev/web/tsconfig.json", '{"strict": true}'))
    return s, _loop(attempts[3], attempts[-1], "build failure, shown through output filters")


def failure_views_then_fix() -> tuple[Session, dict[str, Any]]:
    s = _open(Session("failure-views-then-fix"), "Fix the web build.")
    s.wait(15).fail("npm run build", TSC_ERROR)
    s.wait(10).bash("npm run build 2>&1 | tail -5", TSC_ERROR)
    s.wait(10).bash("npm run build 2>&1 | grep -B2 -A2 error", TSC_ERROR.split("\n")[-1])
    client = "export const limit: number = '10';\n"
    s.wait(20).calls(
        edit_call("/home/dev/web/src/api/client.ts", client, "= '10'", "= 10"),
        narration="The limit is a string; it must be a number.",
    )
    s.wait(15).bash("npm run build 2>&1 | tail -5", "> web@1.4.0 build\n> tsc -p tsconfig.json")
    s.wait(15).bash("npm test 2>&1 | tail -3", "Tests: 48 passed, 48 total")
    s.wait(5).say("The build passes, and so do the tests.")
    return s, {"kind": LEGIT, "what": "a build failure looked at three ways, fixed, checked"}


def _health(at: int, n: int) -> str:
    return json.dumps({"ok": True, "at": f"{stamp(at)}Z", "served": 5000 + 17 * n})


def rotated_curl() -> tuple[Session, dict[str, Any]]:
    s = _open(Session("rotated-curl"), "Restart the API and watch that it stays healthy.")
    spellings = (
        "curl -s localhost:7000/healthz",
        "curl -sS http://127.0.0.1:7000/healthz | jq .",
        "curl --silent 'http://localhost:7000/healthz'",
        "wget -qO- http://localhost:7000/healthz",
    )
    probes: list[int] = []
    for n in range(26):
        s.wait(6 + n % 4).bash(spellings[n % len(spellings)], _health(s.t.clock, n))
        probes.append(s.turn)
    return s, _loop(probes[9], probes[-1], "health probe, four spellings in rotation")


def flapping_probe() -> tuple[Session, dict[str, Any]]:
    """A probe spelt five ways whose answer flaps between two errors, in no fixed order: after
    the first of each, every answer was seen before."""
    s = _open(Session("flapping-probe"), "Bring the gateway back and check it answers.")
    spellings = (
        "curl -s localhost:8443/status",
        "curl -sS http://127.0.0.1:8443/status",
        "curl --silent 'http://localhost:8443/status' | head -5",
        "wget -qO- http://localhost:8443/status",
        "curl -s -m 5 localhost:8443/status",
    )
    answers = ("502 Bad Gateway", "503 Service Unavailable: upstream connect error")
    order = "0100101101001100111010"
    probes: list[int] = []
    for n, flap in enumerate(order):
        s.wait(7 + n % 5).bash(spellings[(n * 3 + n // 5) % 5], answers[int(flap)])
        probes.append(s.turn)
    return s, _loop(probes[9], probes[-1], "a probe whose answer flaps between two errors")


def restart_same_answer() -> tuple[Session, dict[str, Any]]:
    """A service restarted under four spellings, each restart followed by a look that shows
    the same 502, word for word: the restarts change nothing a look can see."""
    s = _open(Session("restart-same-answer"), "The API returns 502; get it serving again.")
    restarts = (
        "systemctl restart api",
        "sudo systemctl restart api.service",
        "service api restart",
        "systemctl --no-block restart api",
    )
    looks = (
        "curl -s localhost:7000/v1/ping",
        "curl -sS http://127.0.0.1:7000/v1/ping",
        "curl --silent 'http://localhost:7000/v1/ping'",
    )
    bad = "<html><head><title>502 Bad Gateway</title></head><body>nginx/1.24.0</body></html>"
    checked: list[int] = []
    for n in range(10):
        s.wait(8 + n % 3).bash(restarts[n % 4], "")
        s.wait(4).bash(looks[n % 3], bad)
        checked.append(s.turn)
    return s, _loop(checked[3], checked[-1], "restarts, each followed by the same answer")


def reworded_search() -> tuple[Session, dict[str, Any]]:
    """A web search reworded again and again, each answer its own query above the same links
    (in one of two orders): the links are all it learns, and they never change."""
    s = _open(Session("reworded-search"), "HMR does not connect behind our nginx; find the fix.")
    pages = ("troubleshooting", "server-options", "backend-integration", "features", "ssr")
    links = [
        {
            "title": f"{page.replace('-', ' ').title()} | Vite",
            "url": f"https://vite.dev/guide/{page}",
        }
        for page in pages
    ]
    topics = ("websocket", "reverse proxy", "hmr port", "clientPort", "upgrade header", "wss")
    searched: list[int] = []
    for n in range(16):
        query = f"vite {topics[n % 6]} nginx {('fix', 'not working', 'config')[n % 3]}"
        answer = {
            "query": query,
            "results": [{"tool_use_id": f"srvtoolu_{n:02d}", "content": links[:: 1 - 2 * (n % 2)]}],
            "durationSeconds": 1.2 + n % 5 / 10,
        }
        s.wait(9 + n % 4).calls(("WebSearch", {"query": query}, answer))
        searched.append(s.turn)
    return s, _loop(searched[9], searched[-1], "a web search reworded around the same links")


def narrated_clock() -> tuple[Session, dict[str, Any]]:
    s = _open(Session("narrated-clock"), "Reindex and tell me when search is back.")
    probes: list[int] = []
    for n in range(24):
        s.wait(15 + n % 4)
        at = stamp(s.t.clock)[11:16]
        s.bash(
            "curl -s localhost:9200/_cat/health",
            f"{1786000000 + n * 17} {at}:0{n % 10} search yellow 1 1 {12 + n % 2} 6 0 0 6 0",
            narration=f"[{at}] Index still yellow; checking again.",
        )
        probes.append(s.turn)
    return s, _loop(probes[9], probes[-1], "narrated timestamped cluster probe")


def issue_triage() -> tuple[Session, dict[str, Any]]:
    s = _open(Session("issue-triage"), "Triage the twenty oldest issues: label each one.")
    kinds = ("bug", "feature", "question", "docs", "chore")
    for n in range(20):
        number = 1200 + n
        kind = kinds[n % len(kinds)]
        body = {"number": number, "title": f"Report {number}: {kind} in module {n % 6}"}
        s.wait(10).bash(f"gh issue view {number} --json number,title", json.dumps(body))
        s.wait(8).bash(
            f"gh issue edit {number} --add-label {kind}",
            f"https://github.com/example/svc/issues/{number}",
        )
    s.wait(5).say("Twenty issues labelled.")
    return s, {"kind": LEGIT, "what": "triage: view then edit over twenty issues"}


PLAN = "## Plan\n1. Split the config loader.\n2. Add tests.\n3. Wire it into main."
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it"
    " was a file edit, the new_string was NOT written to the file). To tell you how to proceed,"
    " the user said:\n"
)
FEEDBACK = (
    "not yet, what about the env overrides?",
    "why three steps? explain step 2",
    "ok but keep the old loader for a release",
    "still missing the migration note",
    "what happens to the defaults file?",
    "fine, but tests first",
    "one more: name the package settings",
)


def plan_rejections() -> tuple[Session, dict[str, Any]]:
    s = _open(Session("plan-rejections"), "Plan the config loader split; do not code yet.")
    for said in FEEDBACK:
        s.wait(40).calls(("ExitPlanMode", {"plan": PLAN}, REJECTED + said), error=True)
        if "?" in said:
            s.wait(20).say("Good question: the overrides stay, read after the file.")
    s.wait(40).calls(
        ("ExitPlanMode", {"plan": PLAN}, "User has approved your plan. You can now start coding.")
    )
    s.wait(5).say("Plan approved; starting with the tests.")
    return s, {"kind": LEGIT, "what": "a plan resubmitted after each rejection with feedback"}


QUESTION = {"questions": [{"question": "Which store?", "header": "Store", "options": []}]}


def repeated_question() -> tuple[Session, dict[str, Any]]:
    s = _open(Session("repeated-question"), "Set up the store; ask me what you need.")
    answers = ("Postgres", "Actually SQLite", "Postgres after all", "SQLite, final answer")
    for n, answer in enumerate(answers):
        s.wait(30).calls(
            (
                "AskUserQuestion",
                QUESTION,
                f'User has answered your questions: "Which store?"="{answer}". You can now'
                " continue with the user's answers in mind.",
            )
        )
        if n < len(answers) - 1:
            s.wait(10).say("Noted; let me confirm once more before I start.")
    s.wait(5).say("Using SQLite.")
    return s, {"kind": LEGIT, "what": "a question asked again after each answer"}


def read_ranges() -> tuple[Session, dict[str, Any]]:
    s = _open(Session("read-ranges"), "Walk me through the request handler.")
    path = "/home/dev/svc/internal/http/handler.go"
    for n in range(14):
        offset = 1 + 60 * n
        body = "\n".join(f"func step{n}_{i}() {{ route({n}, {i}) }}" for i in range(4))
        # As Claude Code reports a range: where it starts is part of the answer.
        file = {"filePath": path, "content": body, "numLines": 60, "startLine": offset}
        result = {"type": "text", "file": {**file, "totalLines": 840}}
        s.wait(9).calls(("Read", {"file_path": path, "offset": offset, "limit": 60}, result))
        if n % 4 == 3:
            s.wait(4).calls(bash_call(f"grep -n 'step{n}_' {path} | head -3", f"{offset}:func"))
    s.wait(5).say("The handler routes in fourteen steps.")
    return s, {"kind": LEGIT, "what": "one long file read range by range"}


def numbered_files() -> tuple[Session, dict[str, Any]]:
    s = _open(Session("numbered-files"), "Summarise the user guide's chapters.")
    for n in range(1, 15):
        body = f"# Chapter {n}\n\nSee section {n}.1 and figure {n}.2.\n"
        s.wait(7).calls(read_call(f"/home/dev/svc/docs/guide/chapter{n:02d}.md", body))
    for n in range(1, 6):
        s.wait(5).bash(f"head -2 logs/worker-{n}.log", f"worker {n} up\nworker {n} ready")
    s.wait(5).say("Fourteen chapters, one per feature; every worker starts cleanly.")
    return s, {"kind": LEGIT, "what": "numbered files read one after another"}


def reinstall_then_fail() -> tuple[Session, dict[str, Any]]:
    """A package reinstalled under new spellings before each test run, every install finding it
    in place and every run failing alike: the install changes nothing the failure could see."""
    s = _open(Session("reinstall-then-fail"), "Get the tests running.")
    installs = (
        "pip install requests",
        "python -m pip install requests",
        "pip3 install --user requests",
        "pip install -U requests",
    )
    runs = ("python -m pytest -q", "pytest -q tests/", "python3 -m pytest tests -x", "pytest")
    satisfied = "Requirement already satisfied: requests in /usr/lib/python3/dist-packages (2.31.0)"
    attempts: list[int] = []
    for n in range(8):
        s.wait(14).bash(installs[n % 4], satisfied)
        s.wait(9).fail(
            runs[n % 4],
            "ImportError while loading conftest '/home/dev/svc/tests/conftest.py'.\n"
            "E   ModuleNotFoundError: No module named 'requests'",
        )
        attempts.append(s.turn)
    return s, _loop(
        attempts[3], attempts[6], "one failure after each reinstall that changes nothing"
    )


def poll_rotated() -> tuple[Session, dict[str, Any]]:
    s = _open(Session("poll-rotated"), "Deploy api to staging and tell me when it is ready.")
    start = s.turn
    spellings = (
        "sleep 60; kubectl get pods -n staging -l app=api",
        "kubectl wait --for=condition=Ready pod -l app=api -n staging --timeout=60s",
        "sleep 45 && kubectl -n staging get pods -l app=api -o wide",
    )
    answers = (
        "NAME READY STATUS RESTARTS AGE\napi-7c9d-x2k 0/1 ImagePullBackOff 0 {m}m",
        "error: timed out waiting for the condition on pods/api-7c9d-x2k",
        "NAME READY STATUS RESTARTS AGE IP NODE\napi-7c9d-x2k 0/1 ImagePullBackOff 0 {m}m"
        " 10.0.3.7 node-2",
    )
    for m in range(45):
        s.wait(60)
        if m % 3 == 1:
            s.fail(spellings[1], answers[1])
        else:
            s.bash(spellings[m % 3], answers[m % 3].format(m=m + 2))
    # Each spelling restarted the wait's clock: a word within 20 minutes, a pause within 35.
    return s, _loop(start + 20, start + 35, "a stuck poll rotated through three spellings")


def poll_rotated_progress() -> tuple[Session, dict[str, Any]]:
    s = _open(Session("poll-rotated-progress"), "Start the fine-tune and watch it to the end.")
    watch = ("sleep 60; tail -n 1 train.log", "sleep 60; tail -1 train.log | cut -c1-80")
    for m in range(45):
        line = f"epoch 1/1 | step {40 * (m + 1)}/1800 | loss 0.{900 - 7 * m}"
        s.wait(60).bash(watch[m % 2], line)
    s.wait(30).bash("ls checkpoints/", "step-1800")
    return s, {"kind": LEGIT, "what": "a training run watched two ways, its step moving"}


BUILDERS = (
    go_build_failure,
    reinstall_then_fail,
    filtered_build_failure,
    failure_views_then_fix,
    rotated_curl,
    flapping_probe,
    restart_same_answer,
    reworded_search,
    narrated_clock,
    issue_triage,
    plan_rejections,
    repeated_question,
    read_ranges,
    numbered_files,
    poll_rotated,
    poll_rotated_progress,
)
