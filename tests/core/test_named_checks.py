"""The checks an arc's task names: what they prove, when they count as passed, and the stop
sent back before they have passed."""

from __future__ import annotations

import pytest

from arcguard.core import render
from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper import named_checks
from arcguard.core.arc_keeper.posture import decide_posture
from arcguard.core.arc_keeper.stop import Final
from arcguard.core.arc_keeper.stop import Signals
from arcguard.core.arc_keeper.stop import classify
from arcguard.core.arc_keeper.stop import decide_stop
from arcguard.core.arc_keeper.stop import unproven
from arcguard.core.config import default_config
from arcguard.core.config_input import build_config
from arcguard.core.schema import StateFile
from arcguard.core.state import fresh_state
from arcguard.core.tool_call import ToolCall
from arcguard.core.tool_call import ToolResult


NOW = 1_800_000_000.0
CLAIM = "The arc is complete."


@pytest.mark.parametrize(
    ("prompt", "kinds"),
    [
        ("Switch to cursor pagination. Don't stop until `pytest api` passes.", ["test"]),
        (
            "Milestones:\n- [ ] `pnpm test checkout` and `pnpm typecheck` pass",
            ["test", "typecheck"],
        ),
        ("Convert the queries. Run pytest when done.", ["test"]),
        ("Split main.tf. Run `terraform plan` at the end and confirm it's move-only.", ["plan"]),
        ("Fix it and show before/after from `cargo bench --bench parse`.", ["bench"]),
        ("Verify with:\n```sh\nuv run mypy src\nmake lint\n```", ["typecheck", "lint"]),
        ("Regenerate with `make proto`, then `go build ./...` must pass", ["build"]),
        ("Don't stop until `npm run type-check` is clean.", ["typecheck"]),
        ("Finish with `php artisan test` green.", ["test"]),
        ("When done, run mypy and ruff on the package.", ["typecheck", "lint"]),
    ],
)
def test_a_task_names_the_checks_it_asks_for(prompt, kinds):
    assert named_checks.named(prompt) == kinds


@pytest.mark.parametrize(
    "prompt",
    [
        "Update `api/views/` so that `count` and `offset` are gone from `schema.yml`.",
        "Make `entire clean` delete orphaned branches; see `logging.Init()`.",
        "Install with `npm install` and read `go doc net/http`.",
        "Migrate the suite from unittest to pytest.",  # pytest named, not asked to run
        "No need to run `terraform plan`: there are no credentials here.",
        "Do NOT run `npm test`, it hits the production API.",
        "Don't run pytest locally.",
        "Never run pytest or mypy here.",
        "I'll run pytest myself afterwards.",
        "Skip `cargo bench` this time.",
        "I'll run `pytest` myself.",
        "",
    ],
)
def test_spans_that_run_no_check_name_none(prompt):
    assert named_checks.named(prompt) == []


@pytest.mark.parametrize(
    ("command", "kinds"),
    [
        ("uv run pytest -q tests/test_api.py", ["test"]),
        ("python -m pytest api/tests/test_orders.py 2>&1 | tail -5", ["test"]),
        ("npx vitest run src/checkout", ["test"]),
        ("cd api && go test ./internal/...", ["test"]),
        ("npm run lint", ["lint"]),
        ("pnpm --filter web test", ["test"]),
        ("make -C services test", ["test"]),
        ("./gradlew test:unit", ["test"]),
        ("timeout 600 cargo clippy --all-targets", ["lint"]),
        ("go build ./... && go vet ./...", ["build", "lint"]),
        ("terraform -chdir=infra/prod plan -out=tfplan", ["plan"]),
        ("git commit -m 'run the tests'", []),
        ("npm install", []),
        ("npm install vitest", []),
        ("pnpm vitest run", ["test"]),
        ("uv run --with hypothesis pytest", ["test"]),
        ("docker compose exec api pytest -x", ["test"]),
        ("hatch test", ["test"]),
        ("python manage.py test recipes", ["test"]),
        ("nx run api:test", ["test"]),
        ("pytest --version", []),
        ("cargo test --no-run", []),
        ("echo 'unbalanced", []),
    ],
)
def test_a_command_is_read_for_what_its_checks_prove(command, kinds):
    assert named_checks.kinds(command) == kinds


def arc_state(*checks):
    state = fresh_state("sid", NOW)
    StateFile.view(state).cwd = "/repo"
    arc = arcs.new_arc("fix the importer", [], NOW)
    arc.checks = list(checks)
    StateFile.view(state).arc = arc
    return state


def bash(command, call_id="t1", **extra):
    return ToolCall("Bash", {"command": command, **extra}, call_id, None)


def edit(path="/repo/src/app.py"):
    return ToolCall("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, "e1", None)


PASSED = ToolResult(response={"stdout": "12 passed", "stderr": "", "interrupted": False})
FAILED = ToolResult(failed=True, error="Exit code 1\n2 failed")
EDITED = ToolResult(response={"filePath": "/repo/src/app.py", "structuredPatch": [{}]})


def missing(state):
    return named_checks.missing(StateFile.view(state).arc)


def test_a_check_passed_after_the_last_edit_is_in_and_an_edit_to_code_after_it_undoes_it():
    state = arc_state("test", "lint")
    assert missing(state) == ["test", "lint"]
    named_checks.observe(state, bash("uv run pytest -q"), PASSED)
    named_checks.observe(state, bash("ruff check ."), PASSED)
    assert missing(state) == []
    named_checks.observe(state, edit("/repo/CHANGELOG.md"), EDITED)  # proves nothing
    assert missing(state) == []
    named_checks.observe(state, edit(), EDITED)
    assert missing(state) == ["test", "lint"]
    named_checks.observe(state, bash("make test"), PASSED)
    assert missing(state) == ["lint"]
    named_checks.observe(state, bash("sed -i s/a/b/ src/app.py && ruff check ."), PASSED)
    assert missing(state) == ["test"]  # the shell wrote code, then the linter passed


@pytest.mark.parametrize(
    ("call", "result"),
    [
        (bash("pytest"), FAILED),
        (bash("pytest", run_in_background=True), ToolResult(response={"backgroundTaskId": "b1"})),
        (ToolCall("Read", {"file_path": "/repo/pytest.ini"}, "t1", None), PASSED),
        (bash("pytest"), ToolResult(failed=True, interrupted=True, error="interrupted")),
        (bash("pytest -q 2>&1 | tail -3"), ToolResult(response={"stdout": "2 failed, 9 passed"})),
    ],
)
def test_a_failed_run_a_background_one_or_no_run_is_no_pass(call, result):
    state = arc_state("test")
    named_checks.observe(state, call, result)
    assert missing(state) == ["test"]


@pytest.mark.parametrize(
    "tally",
    [
        "12 passed",
        "Passed!  - Failed:     0, Passed:    61",
        "Tests run: 41, Failures: 0, Errors: 0",
    ],
)
def test_a_piped_run_passes_when_its_output_names_no_failure(tally):
    state = arc_state("test")
    named_checks.observe(
        state, bash("pytest -q 2>&1 | tail -3"), ToolResult(response={"stdout": tally})
    )
    assert missing(state) == []


def test_a_piped_run_is_judged_by_the_summary_it_ends_on_not_the_logs_before():
    state = arc_state("test")
    logs = (
        "WARN Error while scanning rows\n" + "--- PASS: TestStop (0.00s)\n" * 5 + "PASS\nok  api 7s"
    )
    named_checks.observe(state, bash("go test ./... -v 2>&1 | tail -80"), ToolResult(response=logs))
    assert missing(state) == []
    jest = "Tests: 1 failed, 12 passed, 13 total\nSnapshots: 0 total\nTime: 2 s\nRan all."
    named_checks.observe(state, edit(), EDITED)
    named_checks.observe(state, bash("npx jest 2>&1 | tail -8"), ToolResult(response=jest))
    assert missing(state) == ["test"]


def test_a_check_run_last_passes_by_its_exit_status_whatever_its_test_names_say():
    state = arc_state("test")
    verbose = ToolResult(response={"stdout": "test_error_paths PASSED\n3 passed", "stderr": ""})
    named_checks.observe(state, bash("cd api && pytest -v"), verbose)
    assert missing(state) == []


def test_a_passing_test_run_also_proves_the_build():
    state = arc_state("build")
    named_checks.observe(state, bash("go test ./..."), PASSED)
    assert missing(state) == []


def test_without_an_active_arc_naming_checks_nothing_is_recorded():
    state = arc_state()
    named_checks.observe(state, bash("pytest"), PASSED)
    assert StateFile.view(state).arc.checks_passed == []
    assert missing(state) == []


def test_once_sent_back_the_model_is_not_told_again_until_it_edits_code():
    state = arc_state("test")
    StateFile.view(state).arc.checks_asked = True
    assert missing(state) == []
    named_checks.observe(state, edit("/tmp/scratch.py"), EDITED)
    assert missing(state) == []
    named_checks.observe(state, edit(), EDITED)
    assert missing(state) == ["test"]


def test_a_batch_passes_only_the_calls_no_failure_was_reported_for():
    state = arc_state("test", "lint")
    never_ran = "<tool_use_error>Cancelled: parallel tool call errored</tool_use_error>"
    calls = [
        (bash("pytest", "failed"), ToolResult(response="Exit code 1\n2 failed")),
        (bash("ruff check .", "cancelled"), ToolResult(response=never_ran)),
    ]
    named_checks.observe_batch(state, calls, {"failed"})
    assert missing(state) == ["test", "lint"]
    named_checks.observe_batch(state, [(bash("pytest", "passed"), PASSED)], {"failed"})
    assert missing(state) == ["lint"]


def posture(state, prompt):
    _, state = decide_posture(state, prompt, default_config(), NOW, session_id="sid", command="x")
    return state


def test_the_prompt_that_starts_the_arc_names_its_checks_and_the_next_prompt_lifts_them():
    state = posture(None, "/autonomous fix the importer\n- [ ] `pytest` passes")
    assert StateFile.view(state).arc.checks == ["test"]
    state = posture(state, "/autonomous fix the importer")  # the same arc, typed again
    assert StateFile.view(state).arc.checks == ["test"]
    state = posture(state, "also rename the module")
    assert StateFile.view(state).arc.checks == []


def policy(name):
    cfg, problems = build_config({}, {"stop_policy": name})
    assert not problems
    return cfg


@pytest.mark.parametrize(
    ("text", "policy_name", "made_a_stall"),
    [
        (CLAIM, "ask", True),
        ("Here is the plan for the split: network, database, compute.", "ask", True),
        (CLAIM, "strict", True),
        (CLAIM, "noop", False),
        ("DECISION NEEDED: the plan destroys the prod database.", "ask", False),
        ("No response requested.", "ask", False),  # a stall of its own class
    ],
)
def test_the_missing_proof_makes_a_claim_or_a_stop_let_through_a_stall_not_a_decision(
    text, policy_name, made_a_stall
):
    final = Final.from_text(text)
    assert unproven(classify(final, policy_name), final, policy_name) is made_a_stall


def stop(state, *, calls_seen=True, background=False):
    cfg = policy("ask")
    final = Final.from_text(CLAIM)
    signals = Signals(final, background_running=background, calls_seen=calls_seen)
    out, state = decide_stop(state, signals, cfg, NOW)
    return render.output(out, "Stop"), state


def test_the_stop_is_sent_back_once_naming_the_checks_then_let_be_until_the_next_edit():
    out, state = stop(arc_state("test", "plan"))
    assert out is not None and out["decision"] == "block"
    assert "before the checks the task names passed" in out["reason"]
    assert "(test, plan; run them, or say why one cannot run here)" in out["reason"]
    assert StateFile.view(state).log[-1].rule == "unchecked"
    out, state = stop(state)
    assert out is None or out.get("decision") != "block"  # told once: the claim completes
    assert StateFile.view(state).arc.active is False


def test_without_the_calls_seen_nothing_is_known_to_be_unchecked():
    out, _ = stop(arc_state("test"), calls_seen=False)
    assert out is None or out.get("decision") != "block"


@pytest.mark.parametrize("limited", ["background", "cap"])
def test_a_claim_the_missing_proof_cannot_send_back_still_completes_the_arc(limited):
    state = arc_state("test")
    if limited == "cap":
        StateFile.view(state).arc.total_blocks = 5
    out, state = stop(state, background=limited == "background")
    assert out is None or out.get("decision") != "block"
    assert StateFile.view(state).arc.active is False
