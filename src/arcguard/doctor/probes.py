"""What doctor finds by looking beyond the settings: where a wired program resolves on PATH,
whether it may run at all, what it answers when run with a test payload, and what the
/autonomous command file holds. `doctor.wiring` turns what is found into checks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import TYPE_CHECKING

from arcguard import child
from arcguard.claude_settings import launch_forms
from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import settings_files as cc
from arcguard.claude_settings import slash_command as slash
from arcguard.doctor.model import Check
from arcguard.doctor.model import Setup
from arcguard.doctor.wiring import NOT_RUN
from arcguard.doctor.wiring import ProbeRun
from arcguard.doctor.wiring import Program
from arcguard.doctor.wiring import checks_of_runs
from arcguard.doctor.wiring import command_checks
from arcguard.doctor.wiring import executable_checks


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping
    from pathlib import Path

    from arcguard.jsonio import JSONObject


RUN_TIMEOUT_S = 15.0
_READ: JSONObject = {
    "tool_name": "Read",
    "tool_input": {"file_path": "/dev/null"},
    "tool_use_id": "toolu_doctor",
}
# What each event's test payload carries beyond the fields every event has.
_EXTRA: dict[str, JSONObject] = {
    "UserPromptSubmit": {"prompt": "arcguard doctor"},
    "Stop": {"stop_hook_active": False, "last_assistant_message": "Done."},
    "PreToolUse": _READ,
    "PostToolUse": {**_READ, "tool_response": {}},
    "PostToolUseFailure": {**_READ, "error": "doctor"},
    "PostToolBatch": {"tool_calls": []},
    "SessionStart": {"source": "startup"},
    "StopFailure": {"error": "unknown"},
}


def check_executables(setup: Setup) -> list[Check]:
    programs: list[Program] = []
    seen: set[str] = set()
    for entry in setup.entries():
        program = plan.program(entry.handler)
        if program is not None and program not in seen:
            seen.add(program)
            found = resolve(program, setup.environ) is not None
            programs.append(Program(entry.where, program, found))
    return executable_checks(programs)


def check_runs(setup: Setup) -> list[Check]:
    """Run each wired command once; failures that share a cause are reported on one line.

    A command that mentions arcguard but is not exactly an arcguard invocation is reported
    and never run: doctor may be looking at a repository nobody has reviewed yet. Nor is one
    whose code lies inside the project being checked (`Setup.guarded`): that is a skip, which
    says nothing about whether it works, so it does not fail the check.
    """
    runs: list[ProbeRun] = []
    seen: set[tuple[str, ...]] = set()
    for entry in setup.entries():
        words = tuple(plan.argv(entry.handler))
        if words in seen:
            continue
        seen.add(words)
        root = setup.guarded(entry.where, plan.program(entry.handler))
        refused = refused_for(entry.handler, setup.environ, root)
        problem = refused or run_hook(entry.handler, entry.event, setup.environ, root)
        runs.append(ProbeRun(entry, problem or "", refused is not None))
    return checks_of_runs(runs, setup.suspects())


def check_command(setup: Setup) -> list[Check]:
    places: dict[str, Path] = {}
    for scope in ("user", "project"):
        path = cc.commands_dir(scope, setup.project, setup.environ) / slash.COMMAND_NAME
        # From the home folder the project's commands folder is the user's: named once.
        if all(os.path.realpath(path) != os.path.realpath(p) for p in places.values()):
            places[scope] = path
    states = {
        scope: (path, slash.command_state(slash.read_text(path))) for scope, path in places.items()
    }
    return command_checks(setup, states)


def resolve(program: str, environ: Mapping[str, str]) -> str | None:
    """The absolute path `program` runs as (a bare name looked up on PATH), or None; absolute,
    so that what is checked is what runs from the scratch directory."""
    if os.sep in program:
        found = program if os.path.isfile(program) and os.access(program, os.X_OK) else None
    else:
        found = shutil.which(program, path=environ.get("PATH"))
    return os.path.abspath(found) if found is not None else None


def _argv(handler: JSONObject, environ: Mapping[str, str]) -> list[str] | None:
    """The exact words to run, the program resolved on PATH; None if it cannot be found."""
    words = plan.argv(handler)
    resolved = resolve(words[0], environ) if words else None
    return [resolved, *words[1:]] if resolved else None


def _places(path: str) -> set[str]:
    """Where `path` lies: as written (made absolute), in its folder's real place, and its real
    path. Each counts: a PATH entry may be a symlink into the project or out of it, and a
    program may be a symlink too, while an interpreter still looks for its `pyvenv.cfg`
    beside the path it was started as."""
    written = os.path.abspath(path)
    folder, name = os.path.split(written)
    return {written, os.path.join(os.path.realpath(folder), name), os.path.realpath(written)}


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def inside(program: str, directory: str) -> bool:
    """`program` lies inside `directory` by any of its paths, symlinks resolved or not, on
    either side."""
    roots = {os.path.abspath(directory), os.path.realpath(directory)}
    return any(_within(place, root) for place in _places(program) for root in roots)


def refusal(program: str, location: str | None, project: str | None) -> str | None:
    """Why an exact arcguard invocation is still not run, or None: its program, or the folder
    its interpreter imports arcguard from, lies inside the project being checked."""
    if project is not None and inside(program, project):
        # An exact invocation can still name an executable shipped in the repository itself.
        return (
            f"{NOT_RUN} its program is inside the project being checked (doctor does not "
            "run a repository's own code)"
        )
    if project is not None and location is not None and inside(location, project):
        # The interpreter may be the system's, yet the code it imports the repository's own.
        return (
            f"{NOT_RUN} it loads arcguard from inside the project being checked (doctor "
            "does not run a repository's own code)"
        )
    return None


def refused_for(handler: JSONObject, environ: Mapping[str, str], project: str | None) -> str | None:
    """Why doctor will not run `handler` while checking `project` (None: no project), or None."""
    words = _argv(handler, environ)
    if not words:
        return None
    return refusal(words[0], plan.code_location(handler), project) or foreign_launcher(
        handler, environ
    )


def foreign_launcher(handler: JSONObject, environ: Mapping[str, str]) -> str | None:
    """Why a short entry whose launcher file is not the one in this user's state directory is
    not run, or None. Such a file was not written by this user's install (a copied settings
    file, another machine's path), and the entry would run whatever code it holds."""
    from arcguard.storage import paths

    location = plan.launcher_file(handler)
    if location is None:
        return None
    try:
        own = os.path.join(paths.state_dir(dict(environ)), launch_forms.LAUNCHER_NAME)
    except paths.UnusablePath:
        own = None
    if own is not None and os.path.abspath(location) == os.path.abspath(own):
        return None
    return (
        f"{NOT_RUN} its launcher {location} is not the one `arcguard install` writes in your "
        "state directory"
    )


def unsafe_launcher(handler: JSONObject) -> str | None:
    """Why the launcher file of a short entry does not run as it must, or None: the entry's
    stub refuses a file or folder that is not this user's alone (so the hooks do nothing), and
    the stub of earlier releases runs it without asking. Doctor runs neither."""
    location = plan.launcher_file(handler)
    if location is None:
        return None
    if plan.argv(handler)[4] == launch_forms.UNCHECKED_STUB:
        return (
            f"{NOT_RUN} an earlier install's entry, which runs {location} without checking "
            "who owns it or who can write it"
        )
    for path in (location, os.path.dirname(location)):
        try:
            info = os.stat(path)
        except OSError:
            continue  # no launcher: the stub does nothing, and the run says what is missing
        if info.st_uid != os.getuid() or info.st_mode & 0o022:
            mode = info.st_mode & 0o777
            return (
                f"{NOT_RUN} {path} belongs to uid {info.st_uid} (mode {mode:o}): the hooks "
                "refuse a launcher that is not yours alone, and do nothing"
            )
    return None


def _payload(event: str, session_id: str, directory: str) -> JSONObject:
    base: JSONObject = {
        "session_id": session_id,
        "hook_event_name": event,
        "cwd": directory,
        "transcript_path": os.path.join(directory, "missing.jsonl"),
    }
    return {**base, **_EXTRA.get(event, {})}


def run_words(
    words: list[str], payload: Callable[[str], Mapping[str, object]], environ: Mapping[str, str]
) -> subprocess.CompletedProcess[str] | str:
    """Run `words` directly, never through a shell, in a scratch directory with a throwaway
    state dir, `payload(scratch)` as JSON on stdin; the finished process, or why it did not run.
    A non-zero exit is returned as text too."""
    import json
    import tempfile

    with tempfile.TemporaryDirectory(prefix="arcguard-doctor-") as scratch:
        env = {**environ, "ARCGUARD_HOME": os.path.join(scratch, "state")}
        try:
            done = subprocess.run(
                words,
                input=json.dumps(payload(scratch)),
                text=True,
                capture_output=True,
                env=env,
                # A fresh, empty folder: nothing of the checked project is on a Python path.
                cwd=child.working_directory(scratch),
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
    return done


def run_hook(
    handler: JSONObject, event: str, environ: Mapping[str, str], project: str | None = None
) -> str | None:
    """Run one of our handlers as Claude Code would, in a throwaway state dir; None if it
    answers as a hook must (exit 0, nothing or one JSON object on stdout), else what went wrong.

    The words are run directly, never through a shell: only an exact arcguard invocation gets
    here (`merge_plan.why_not_ours`), so nothing else a settings file says is executed; nor
    is a program that lies inside `project`.
    """
    import json

    words = _argv(handler, environ)
    if words is None:
        return "exit 127: command not found"
    refused = refusal(words[0], plan.code_location(handler), project)
    refused = refused or foreign_launcher(handler, environ) or unsafe_launcher(handler)
    if refused:
        return refused
    done = run_words(
        words, lambda scratch: _payload(event, f"arcguard-doctor-{os.getpid()}", scratch), environ
    )
    if isinstance(done, str):
        return done
    out = done.stdout.strip()
    if out:
        try:
            if not isinstance(json.loads(out), dict):
                return f"stdout is not a JSON object: {out[:80]}"
        except ValueError:
            return f"stdout is not JSON: {out[:80]}"
    return None
