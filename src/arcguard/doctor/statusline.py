"""Doctor check of the status line: when it is arcguard's, it must answer as Claude Code needs."""

from __future__ import annotations

import os
import shlex

import arcguard.doctor.probes as probes
from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import statusline_plan as sl
from arcguard.doctor.model import Check
from arcguard.doctor.model import Setup
from arcguard.doctor.model import gap
from arcguard.doctor.model import ok
from arcguard.doctor.model import skip
from arcguard.doctor.wiring import SKIP_HINT


def run_statusline(command: str, environ: dict[str, str], project: str | None = None) -> str | None:
    """Run the status line command with a sample payload in a scratch state dir; None if it
    exits 0 (a session arcguard has never seen prints nothing), else what went wrong.

    Only an exact arcguard invocation gets here (`statusline_plan.is_ours`), and it runs as its
    words, never through a shell; a program or a package folder inside `project` is not run,
    as for the hook commands.
    """
    words = shlex.split(command)
    program = probes.resolve(words[0], environ) if words else None
    if program is None:
        return "exit 127: command not found"
    refused = refusal(command, environ, project)
    if refused:
        return refused
    done = probes.run_words([program, *words[1:]], _sample, environ)
    return done if isinstance(done, str) else None


def refusal(command: str, environ: dict[str, str], project: str | None) -> str | None:
    """Why doctor will not run the status line `command` while checking `project`, or None."""
    words = shlex.split(command)
    program = probes.resolve(words[0], environ) if words else None
    if program is None:
        return None
    as_hook = {"command": shlex.join([*words[:-1], "hook", "stop"])}
    return probes.refusal(program, plan.code_location(as_hook), project)


def _sample(scratch: str) -> dict[str, object]:
    return {
        "session_id": f"arcguard-doctor-{os.getpid()}",
        "cwd": scratch,
        "model": {"id": "doctor", "display_name": "doctor"},
        "rate_limits": {"five_hour": {"resets_at": 0}},
    }


def check_statusline(setup: Setup) -> list[Check]:
    found = []
    for scope, settings in setup.loaded.items():
        entry = settings.get(sl.KEY)
        if not isinstance(entry, dict) or not sl.is_ours(entry):
            continue
        command = str(entry["command"])
        words = shlex.split(command)
        root = setup.guarded(scope, words[0] if words else None)
        refused = refusal(command, setup.environ, root)
        problem = refused or run_statusline(command, setup.environ, root)
        if refused:
            found.append(skip("status line", f"`{command}` ({scope}): {refused}", SKIP_HINT))
        elif problem:
            hint = f"arcguard install --statusline --scope {scope}"
            found.append(gap("status line", f"`{command}` ({scope}): {problem}", hint))
        else:
            found.append(ok("status line", f"`arcguard statusline` ({scope}) runs"))
    return found or [ok("status line", "not arcguard's (optional: arcguard install --statusline)")]
