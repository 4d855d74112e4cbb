"""The bundled example sessions (`src/arcguard/examples/`), built from this one description.

Regenerate with `python -m tests.replay.examples_spec`; a test checks the files match.
"""

from __future__ import annotations

from pathlib import Path

from testing.builders import Transcript


EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "arcguard" / "examples"
FEEDBACK = (
    "Stop hook feedback:\n[arcguard] Autonomous arc 'autonomous' is still active, and"
    " this turn ended with nothing done."
)
QUESTION_FEEDBACK = (
    "Stop hook feedback:\n[arcguard] Autonomous arc 'autonomous' is still active,"
    " and this turn ended by asking for permission or a choice."
)


def read(path: str, text: str) -> tuple[str, dict[str, object], object]:
    lines = text.count("\n") + 1
    return (
        "Read",
        {"file_path": path},
        {
            "type": "text",
            "file": {
                "filePath": path,
                "content": text,
                "numLines": lines,
                "startLine": 1,
                "totalLines": lines,
            },
        },
    )


def edit(path: str, old: str, new: str) -> tuple[str, dict[str, object], object]:
    patch = [
        {
            "oldStart": 1,
            "oldLines": 1,
            "newStart": 1,
            "newLines": 1,
            "lines": [f"-{old}", f"+{new}"],
        }
    ]
    return (
        "Edit",
        {"file_path": path, "old_string": old, "new_string": new},
        {
            "filePath": path,
            "oldString": old,
            "newString": new,
            "originalFile": old,
            "structuredPatch": patch,
            "userModified": False,
            "replaceAll": False,
        },
    )


def stall_continued() -> Transcript:
    t = Transcript("example-stall", 1_780_000_000)
    t.prompt("/autonomous add CSV export to the report command")
    t.tools(
        read("/home/dev/project/src/report.py", "def render(rows):\n    return table(rows)"),
        narration="Reading the report command first.",
    )
    t.tools(
        edit(
            "/home/dev/project/src/report.py", "def render(rows):", "def render(rows, fmt='table'):"
        )
    )
    t.bash("pytest -q tests/test_report.py", "5 passed in 0.41s")
    t.text("No response requested.")
    t.other("system", subtype="stop_hook_summary", hookCount=1, preventedContinuation=False)
    t.prompt(FEEDBACK, meta=True)
    t.tools(
        edit("/home/dev/project/README.md", "## Report", "## Report (table or CSV)"),
        narration="Back to it: documenting the new flag.",
    )
    t.bash("pytest -q", "42 passed in 3.10s")
    t.text(
        "CSV export is in: `report --format csv` writes one row per entry, with tests and"
        " the README updated."
    )
    return t


def legitimate_stop() -> Transcript:
    t = Transcript("example-question", 1_780_100_000)
    t.prompt("/autonomous migrate the user table to the new schema")
    t.tools(
        read("/home/dev/project/migrations/0042_users.py", "op.drop_table('users_old')"),
        narration="Checking the pending migration.",
    )
    t.bash("alembic history | head -3", "0041 -> 0042 (head), users schema v2")
    t.text(
        "DECISION NEEDED: migration 0042 drops the legacy `users_old` table, which destroys"
        " its data. Should I go ahead, or first copy it to a backup table?"
    )
    return t


def question_continued() -> Transcript:
    t = Transcript("example-permission", 1_780_400_000)
    t.prompt("/autonomous add pagination to the orders API")
    t.tools(
        read("/home/dev/project/api/orders.py", "def list_orders(db):\n    return db.all()"),
        narration="Reading the orders endpoint.",
    )
    t.tools(
        edit(
            "/home/dev/project/api/orders.py",
            "def list_orders(db):",
            "def list_orders(db, page=1, size=50):",
        )
    )
    t.text("Pagination is wired into `list_orders`. Want me to run the tests next?")
    t.other("system", subtype="stop_hook_summary", hookCount=1, preventedContinuation=False)
    t.prompt(QUESTION_FEEDBACK, meta=True)
    t.bash(
        "pytest -q tests/test_orders.py",
        "7 passed in 0.52s",
        narration="Running the tests, as recommended.",
    )
    t.text("Pagination is in: `page` and `size` on `list_orders`, with tests passing.")
    return t


def arc_completes() -> Transcript:
    t = Transcript("example-complete", 1_780_200_000)
    t.prompt("/autonomous fix the flaky date test")
    t.tools(
        read("/home/dev/project/tests/test_dates.py", "assert today() == date.today()"),
        narration="Looking at the flaky test.",
    )
    t.tools(
        edit(
            "/home/dev/project/tests/test_dates.py",
            "assert today() == date.today()",
            "assert today(clock=fixed) == FIXED_DAY",
        )
    )
    t.bash("pytest -q tests/test_dates.py --count 20", "20 passed in 0.88s")
    t.text("All milestones shipped.")
    t.prompt("Thanks.")
    t.text("No response requested.")
    return t


def thrash_paused() -> Transcript:
    t = Transcript("example-thrash", 1_780_300_000)
    t.prompt("/autonomous make the integration tests pass")
    failing = "Exit code 1\n1 failing\n  api > GET /health returns 200: expected 200, got 503"
    source = read("/home/dev/project/src/api.js", "app.get('/health', (q, r) => r.sendStatus(503))")
    for _ in range(4):
        t.tools(("Bash", {"command": "npm test", "description": "Run tests"}, failing), error=True)
        t.tools(source)
    t.text("The tests still fail.")
    return t


def polling_then_work() -> Transcript:
    t = Transcript("example-polling", 1_780_400_000)
    t.prompt("/autonomous tag the release once CI is green")
    poll = "gh run view 4242 --json status,jobs --jq '.status + \" \" + (.jobs|length|tostring)'"
    for done in ("3/8 jobs done", "5/8 jobs done", "7/8 jobs done", "completed success"):
        t.bash(f"sleep 60 && {poll}", f"in_progress {done}" if "/" in done else done)
    t.bash(
        "git tag v1.4.0 && git push origin v1.4.0",
        " * [new tag]         v1.4.0 -> v1.4.0",
        narration="CI is green. Tagging the release.",
    )
    t.text("Released v1.4.0 after CI went green (run 4242, 8/8 jobs).")
    return t


SESSIONS = {
    "1-stall-continued.jsonl": stall_continued,
    "2-legitimate-stop.jsonl": legitimate_stop,
    "3-arc-completes.jsonl": arc_completes,
    "4-thrash-paused.jsonl": thrash_paused,
    "5-polling-then-work.jsonl": polling_then_work,
    "6-question-continued.jsonl": question_continued,
}


def render(name: str) -> str:
    return "\n".join(SESSIONS[name]().lines()) + "\n"


if __name__ == "__main__":
    EXAMPLES.mkdir(exist_ok=True)
    for name in SESSIONS:
        (EXAMPLES / name).write_text(render(name), encoding="utf-8")
