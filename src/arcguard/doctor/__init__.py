"""The checks behind `arcguard doctor`: each a small function of a `Setup` returning `Check`s.

A check never raises (`run_checks` turns an exception into a gap). A gap means arcguard is not
doing its job; a warning is worth knowing about but does not stop it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcguard.doctor.health import check_claude
from arcguard.doctor.health import check_config
from arcguard.doctor.health import check_error_log
from arcguard.doctor.health import check_event_support
from arcguard.doctor.health import check_hook_image
from arcguard.doctor.health import check_lock
from arcguard.doctor.health import check_state_dir
from arcguard.doctor.health import check_state_files
from arcguard.doctor.health import check_stop_cap
from arcguard.doctor.health import check_switch
from arcguard.doctor.model import Check
from arcguard.doctor.model import Setup
from arcguard.doctor.model import gap
from arcguard.doctor.probes import check_command
from arcguard.doctor.probes import check_executables
from arcguard.doctor.probes import check_runs
from arcguard.doctor.resident import check_resident
from arcguard.doctor.sdk import check_sdk
from arcguard.doctor.statusline import check_statusline
from arcguard.doctor.trust import check_project_env
from arcguard.doctor.wiring import check_background
from arcguard.doctor.wiring import check_matchers
from arcguard.doctor.wiring import check_settings_files
from arcguard.doctor.wiring import check_wiring


if TYPE_CHECKING:
    from collections.abc import Callable

CHECKS: tuple[Callable[[Setup], list[Check]], ...] = (
    check_settings_files,
    check_event_support,
    check_wiring,
    check_matchers,
    check_background,
    check_executables,
    check_runs,
    check_state_dir,
    check_hook_image,
    check_lock,
    check_config,
    check_switch,
    check_project_env,
    check_state_files,
    check_error_log,
    check_claude,
    check_stop_cap,
    check_command,
    check_statusline,
    check_resident,
    check_sdk,
)


def run_checks(setup: Setup) -> list[Check]:
    results = []
    for check in CHECKS:
        try:
            results.extend(check(setup))
        except Exception as exc:  # a check never takes the report down with it
            name = check.__name__.removeprefix("check_").replace("_", " ")
            results.append(gap(name, f"check failed: {type(exc).__name__}: {exc}", ""))
    return results
