"""Doctor check of the status line: when it is arcguard's, it must answer as Claude Code needs."""

from __future__ import annotations

import os
import subprocess

from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import statusline_plan as sl
from arcguard.doctor import wiring
from arcguard.doctor.model import GAP
from arcguard.doctor.model import OK
from arcguard.doctor.model import Check
from arcguard.doctor.model import Setup


RUN_TIMEOUT_S = 15.0


def run_statusline(command: str, environ: dict[str, str], project: str | None = None) -> str | None:
    """Run the status line command with a sample payload in a scratch state dir; None if it
    exits 0 (a session arcguard has never seen prints nothing), else what went wrong.

    Only an exact arcguard invocation gets here (`statusline_plan.is_ours`), and it runs as its
    words, never through a shell; a program or a package folder inside `project` is not run,
    as for the hook commands.
    """
    import json
    import shlex
    import tempfile

    words = shlex.split(command)
    program = wiring.resolve(words[0], environ) if words else None
    if program is None:
        return "exit 127: command not found"
    as_hook = {"command": shlex.join([*words[:-1], "hook", "stop"])}
    location = plan.code_location(as_hook)
    if project is not None and (
        wiring.inside(program, project)
        or (location is not None and wiring.inside(location, project))
    ):
        return (
            "not run: it would run code from inside the project being checked (doctor "
            "does not run a repository's own code)"
        )
    with tempfile.TemporaryDirectory(prefix="arcguard-doctor-") as scratch:
        env = {**environ, "ARCGUARD_HOME": os.path.join(scratch, "state")}
        payload = json.dumps(
            {
                "session_id": f"arcguard-doctor-{os.getpid()}",
                "cwd": scratch,
                "model": {"id": "doctor", "display_name": "doctor"},
                "rate_limits": {"five_hour": {"resets_at": 0}},
            }
        )
        try:
            done = subprocess.run(
                [program, *words[1:]],
                input=payload,
                text=True,
                capture_output=True,
                env=env,
                cwd=scratch,
                timeout=RUN_TIMEOUT_S,
                shell=False,
            )
        except subprocess.TimeoutExpired:
            return f"no answer within {RUN_TIMEOUT_S:.0f}s"
        except OSError as exc:
            return f"cannot start: {exc.strerror or exc}"
    if done.returncode != 0:
        tail = " ".join(done.stderr.split())[-200:]
        return f"exit {done.returncode}" + (f": {tail}" if tail else "")
    return None


def check_statusline(setup: Setup) -> list[Check]:
    found = []
    for scope, settings in setup.loaded.items():
        entry = settings.get(sl.KEY)
        if not isinstance(entry, dict) or not sl.is_ours(entry):
            continue
        command = str(entry["command"])
        problem = run_statusline(command, setup.environ, str(setup.project))
        if problem:
            found.append(
                Check(
                    "status line",
                    GAP,
                    f"`{command}` ({scope}): {problem}",
                    f"arcguard install --statusline --scope {scope}",
                )
            )
        else:
            found.append(Check("status line", OK, f"`arcguard statusline` ({scope}) runs"))
    return found or [
        Check("status line", OK, "not arcguard's (optional: arcguard install --statusline)")
    ]
