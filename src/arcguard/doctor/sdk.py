"""Doctor's look at SDK mode: whether Agent SDK applications ran arcguard's hooks here, and
whether a settings file would make such an application refuse to start (`arcguard.sdk`)."""

from __future__ import annotations

from arcguard.claude_settings import merge_plan as plan
from arcguard.doctor.model import Check
from arcguard.doctor.model import Setup
from arcguard.doctor.model import ok
from arcguard.doctor.model import warn
from arcguard.storage import cost


NAME = "sdk"


def check_sdk(setup: Setup) -> list[Check]:
    runs = sum(len(v) for (mode, _), v in cost.read(setup.home).items() if mode == cost.SDK)
    if not runs:
        return []
    found = [
        ok(NAME, f"Agent SDK applications ran arcguard's hooks here (runs in cost.log: {runs})")
    ]
    wired = sorted(
        scope
        for scope, settings in setup.loaded.items()
        if any(
            plan.is_ours(handler) or plan.resident_port(handler) is not None
            for _, handler in plan.all_entries(settings)
        )
    )
    if wired:
        found.append(
            warn(
                NAME,
                f"the {', '.join(wired)} settings wire arcguard too: an SDK application whose "
                "setting_sources load them refuses to start (one guard per session)",
                "leave those scopes out of setting_sources, or uninstall them (docs/sdk.md)",
            )
        )
    return found
