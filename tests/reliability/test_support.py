"""The reliability suites' hook runner: patient limits unless a test asks for others."""

from __future__ import annotations

from arcguard.core.config import SETTING
from tests.reliability import support


def test_hooks_run_with_the_most_patient_budget_and_lock_wait() -> None:
    options = support.hook_options({"ARCGUARD_DRAIN_MS": "100"})
    assert options["ARCGUARD_HOOK_BUDGET_MS"] == str(SETTING["hook_budget_ms"].high)
    assert options["ARCGUARD_LOCK_TIMEOUT_MS"] == str(SETTING["lock_timeout_ms"].high)
    assert options["ARCGUARD_DRAIN_MS"] == "100"


def test_a_test_of_the_timeouts_keeps_its_own_limits() -> None:
    options = support.hook_options({"ARCGUARD_HOOK_BUDGET_MS": "300", "timeout": 30})
    assert options["ARCGUARD_HOOK_BUDGET_MS"] == "300"
    assert options["timeout"] == 30
