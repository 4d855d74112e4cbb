"""The checks CI runs besides the tests: lint and types cover the tests and their helpers."""

from __future__ import annotations

import tomllib

from testing.builders import REPO


PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_mypy_checks_the_tests_and_their_helpers_with_relaxed_settings() -> None:
    mypy = PYPROJECT["tool"]["mypy"]
    assert {"src", "tests", "testing", "benchmarks"} <= set(mypy["files"])
    [relaxed] = [o for o in mypy["overrides"] if "tests.*" in o["module"]]
    assert "testing.*" in relaxed["module"]
    assert relaxed["disallow_untyped_defs"] is False  # a test need not annotate its fixtures


def test_ci_runs_ruff_and_mypy_before_the_tests() -> None:
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    lines = [line.strip() for line in script.splitlines()]
    tests_at = next(i for i, line in enumerate(lines) if line.startswith("exec $TEST_CMD"))
    assert lines.index(".venv/bin/ruff check .") < tests_at
    assert lines.index(".venv/bin/ruff format --check .") < tests_at
    assert lines.index(".venv/bin/mypy") < tests_at


def test_the_formatter_is_configured_to_the_lint_line_length() -> None:
    ruff = PYPROJECT["tool"]["ruff"]
    assert ruff["line-length"] == 100
    assert ruff["format"]["quote-style"] == "double"
