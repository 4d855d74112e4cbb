"""The reliability suites run hooks with patient limits unless a test asks for others."""

from __future__ import annotations

import os

from arcguard.core.config import SETTING


def test_hooks_run_with_the_most_patient_budget_and_lock_wait() -> None:
    assert os.environ["ARCGUARD_HOOK_BUDGET_MS"] == str(SETTING["hook_budget_ms"].high)
    assert os.environ["ARCGUARD_LOCK_TIMEOUT_MS"] == str(SETTING["lock_timeout_ms"].high)
