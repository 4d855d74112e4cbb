"""Every hook these suites start gets the most patient wall budget and lock wait."""

from __future__ import annotations

import pytest

from arcguard.core.config import SETTING


# A hook starved of CPU on a loaded machine would otherwise outlive the default budget and
# fail open, and a check that it decides would fail. A test of the fail-open limits passes
# its own values, which win over the environment.
PATIENT = {
    "ARCGUARD_HOOK_BUDGET_MS": str(SETTING["hook_budget_ms"].high),
    "ARCGUARD_LOCK_TIMEOUT_MS": str(SETTING["lock_timeout_ms"].high),
}


@pytest.fixture(autouse=True)
def patient_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in PATIENT.items():
        monkeypatch.setenv(name, value)
