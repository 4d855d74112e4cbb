"""Doctor check of what a project's own settings decide for arcguard.

Claude Code passes the `env` block of a settings file to every hook and status line command it
runs, so once it trusts a folder, the project's `.claude/settings.json` (committed) or
`.claude/settings.local.json` can set any `ARCGUARD_*` override for arcguard in its sessions:
a stop policy of `noop`, a `notify_command` of its choosing, a config file of its own. That is
Claude Code's trust model (a trusted project could add hooks of its own anyway), but it should
not go unseen: each such variable is named, with the file that sets it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcguard.core.config import DEFAULTS
from arcguard.doctor.model import PROJECT_SCOPES
from arcguard.doctor.model import Check
from arcguard.doctor.model import warn


if TYPE_CHECKING:
    from arcguard.doctor.model import Setup

PREFIX = "ARCGUARD_"
# Not arcguard's own, yet they move where it finds its config and keeps its state.
STEERING = ("XDG_CONFIG_HOME", "XDG_STATE_HOME")
WHAT = {
    "ARCGUARD_NOTIFY_COMMAND": "a program of its choosing runs when arcguard notifies",
    "ARCGUARD_CONFIG": "arcguard reads a config file of its choosing, notify_command included",
    "XDG_CONFIG_HOME": "arcguard reads a config file of its choosing, notify_command included",
    "ARCGUARD_HOME": "arcguard keeps its state where the project says",
    "XDG_STATE_HOME": "arcguard keeps its state where the project says",
    "ARCGUARD_DEBUG": "a switch for arcguard's own tests (hooks still fail open)",
}


def meaning(name: str) -> str:
    """What a project that sets `name` decides for arcguard."""
    if name in WHAT:
        return WHAT[name]
    key = name.removeprefix(PREFIX).lower()
    if key in DEFAULTS:
        return f"it overrides {key} for arcguard's hooks in this project"
    return "arcguard reads no such variable"


def project_variables(setup: Setup) -> list[tuple[str, str]]:
    """(file, variable) for every variable of concern that a project or local settings file
    sets in its `env` block."""
    found = []
    for scope in PROJECT_SCOPES:
        # Checked from the home folder, the project's file is the user's own: `Setup.files`
        # names it once, as the user's.
        env = setup.loaded.get(scope, {}).get("env")
        if not isinstance(env, dict) or scope not in setup.files:
            continue
        found += [
            (str(setup.files[scope]), name)
            for name in env
            if isinstance(name, str) and (name.startswith(PREFIX) or name in STEERING)
        ]
    return found


def check_project_env(setup: Setup) -> list[Check]:
    return [
        warn(
            "project env",
            f"{name} is set by {path} (env): {meaning(name)}; Claude Code passes it to "
            "arcguard once you trust this folder",
            f"remove {name} from {path} unless you put it there",
        )
        for path, name in project_variables(setup)
    ]
