"""Doctor checks of the wiring: settings files, one entry per event, commands that run."""

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
from arcguard.doctor.model import GAP
from arcguard.doctor.model import OK
from arcguard.doctor.model import SKIP
from arcguard.doctor.model import WARN
from arcguard.doctor.model import Check
from arcguard.doctor.model import Setup
from arcguard.hooks import BACKGROUND
from arcguard.hooks import EVENTS
from arcguard.hooks import RESIDENT_COMMANDS


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any


RUN_TIMEOUT_S = 15.0


# What to do about a settings file that cannot be used, by what is wrong with it.
BROKEN_HINTS = {
    "permission": "give yourself read access: chmod u+r {path}",
    "not-regular": "replace {path} with a regular file (it is a FIFO, device or directory)",
    "too-large": "{path} is far larger than any settings file: check what wrote it",
    "invalid": "fix the JSON of {path}: standard JSON only, no NaN/Infinity or duplicate keys "
    "(Claude Code ignores a file it cannot parse)",
}


def check_settings_files(setup: Setup) -> list[Check]:
    found = []
    for scope, path in setup.files.items():
        if scope in setup.broken:
            hint = BROKEN_HINTS.get(
                setup.broken_kind.get(scope, ""), "check that you can read {path}"
            )
            found.append(Check("settings", GAP, setup.broken[scope], hint.format(path=path)))
        elif scope in setup.loaded:
            settings = setup.loaded[scope]
            if settings.get("disableAllHooks") is True:
                found.append(
                    Check(
                        "settings",
                        GAP,
                        f"{path} sets disableAllHooks: every hook is off",
                        f"remove disableAllHooks from {path}",
                    )
                )
            else:
                found.append(Check("settings", OK, f"{path} parses"))
    return found or [Check("settings", OK, "no Claude Code settings file exists yet")]


def check_wiring(setup: Setup) -> list[Check]:
    by_event: dict[str, list[tuple[str, dict[str, Any]]]] = {event: [] for event in EVENTS}
    found = []
    for where, event, port in resident_entries(setup):
        by_event[event].append((where, {"type": "http", "port": port}))
    for where, event, handler in setup.entries():
        name = plan.hook_name(handler) or ""
        if event in EVENTS and name in (EVENTS[event], RESIDENT_COMMANDS.get(event)):
            by_event[event].append((where, handler))
        elif BACKGROUND.get(name) == event:
            continue  # the background handlers have their own check
        else:
            found.append(
                Check(
                    "wiring",
                    GAP,
                    f"{event} runs `hook {name}` ({where})",
                    f"arcguard uninstall --scope {where} && arcguard install",
                )
            )
    found += _missing(setup, [event for event, wired in by_event.items() if not wired])
    twice: dict[tuple[str, ...], list[str]] = {}
    repeated: dict[tuple[str, ...], list[str]] = {}
    for event, wired in by_event.items():
        wheres = tuple(w for w, _ in wired)
        if len(distinct(wired)) > 1:
            twice.setdefault(wheres, []).append(event)
        elif len(wired) > 1:
            repeated.setdefault(wheres, []).append(event)
    wired_events = sum(1 for wired in by_event.values() if wired)
    for wheres, events in twice.items():
        # One line per cause: a second install wires every event again, not one of them.
        found.append(
            Check(
                "wiring",
                GAP,
                f"{_events(events, wired_events)} wired {len(wheres)} times "
                f"({', '.join(wheres)}): every hook would run more than once",
                keep_one(setup, wheres),
            )
        )
    if not found:
        scopes = sorted({w for w, _, _ in setup.entries()})
        found.append(
            Check("wiring", OK, f"all {wired_events} events wired once ({', '.join(scopes)})")
        )
    found += [
        Check(
            "wiring",
            WARN,
            f"{_events(events, wired_events)} wired word for word in {', '.join(wheres)}: "
            "Claude Code runs identical entries once, but once they differ (a reinstall "
            "from elsewhere) every hook runs twice",
            keep_one(setup, wheres),
        )
        for wheres, events in repeated.items()
    ]
    return found


def distinct(wired: list[tuple[str, dict[str, Any]]]) -> list[tuple[bool, str]]:
    """The handlers Claude Code runs for one event: an identical handler in several settings
    files runs once (measured on 2.1.78, 2.1.328 and 2.1.332), a plugin's copy runs apart."""
    import json

    keys: list[tuple[bool, str]] = []
    for where, handler in wired:
        key = (where == "plugin", json.dumps(handler, sort_keys=True))
        if key not in keys:
            keys.append(key)
    return keys


def _events(events: list[str], wired: int) -> str:
    if len(events) == 1:
        return f"{events[0]} is"
    if len(events) == wired:
        return f"all {len(events)} events are"
    return f"{', '.join(events)} are each"


def keep_one(setup: Setup, wheres: tuple[str, ...]) -> str:
    """How to keep one of the wirings found in `wheres`: the broadest scope stays (user
    settings serve every project), the others are uninstalled, and a scope that holds more
    than one is installed again, which leaves one; an enabled plugin is the alternative to
    every settings entry."""
    scopes = list(dict.fromkeys(w for w in wheres if w != "plugin"))
    if "plugin" in wheres:
        drop_all = " && ".join(setup.arcguard("uninstall", scope) for scope in scopes)
        return f"keep one: disable the arcguard plugin, or {drop_all}"
    steps = [setup.arcguard("uninstall", scope) for scope in scopes[1:]]
    if wheres.count(scopes[0]) > 1:
        steps.append(setup.arcguard("install", scopes[0]))
    return f"keep the {scopes[0]} one: {' && '.join(steps)}"


def resident_entries(setup: Setup) -> list[tuple[str, str, int]]:
    """(where, event, port) of every resident http hook of arcguard's, on its own event."""
    return [
        (scope, event, port)
        for scope, settings in setup.loaded.items()
        for event, handler in plan.all_entries(settings)
        if (port := plan.resident_port(handler)) is not None
        and str(handler.get("url", "")).endswith(f"/hook/{event}")
    ]


def _missing(setup: Setup, events: list[str]) -> list[Check]:
    """Unwired events the installed release knows; an event it does not know is not missed
    (installing it would make Claude Code ignore the file)."""
    from arcguard.claude_settings import releases as cv

    version, _ = setup.claude_version()
    missing = [e for e in events if cv.knows(e, version)]
    if not missing:
        return []
    if version is not None and all(cv.EVENT_SINCE.get(e) for e in missing):
        # The rest is wired: these came with an upgrade after the last install.
        return [
            Check(
                "wiring",
                GAP,
                f"not wired: {', '.join(missing)}, which Claude Code "
                f"{cv.dotted(version)} now knows",
                "run arcguard install again",
            )
        ]
    return [
        Check(
            "wiring",
            GAP,
            f"not wired: {', '.join(missing)}",
            "arcguard install (or --scope project/local for one project)",
        )
    ]


def check_background(setup: Setup) -> list[Check]:
    """Each background handler wired once, with the flags that keep it off Claude Code's path."""
    found = []
    for name, event in BACKGROUND.items():
        wired = [
            (where, h)
            for where, ev, h in setup.entries()
            if ev == event and plan.hook_name(h) == name
        ]
        if not wired:
            found.append(
                Check(
                    "wiring",
                    WARN,
                    f"{event} does not run `hook {name}`: an arc "
                    "stopped by an API limit is not resumed",
                    "arcguard install",
                )
            )
        elif len(distinct(wired)) > 1:
            where = ", ".join(w for w, _ in wired)
            found.append(
                Check(
                    "wiring",
                    GAP,
                    f"`hook {name}` is wired {len(wired)} times ({where})",
                    keep_one(setup, tuple(w for w, _ in wired)),
                )
            )
        for where, handler in wired:
            if handler.get("async") is not True or handler.get("asyncRewake") is not True:
                found.append(
                    Check(
                        "wiring",
                        GAP,
                        f'`hook {name}` ({where}) lacks "async": '
                        'true and "asyncRewake": true: Claude Code would wait for '
                        "it and never be woken by it",
                        f"arcguard install --scope {where}",
                    )
                )
        if len(distinct(wired)) == 1 and not found:
            found.append(Check("wiring", OK, f"`hook {name}` runs in the background on {event}"))
    return found


def resolve(program: str, environ: Mapping[str, str]) -> str | None:
    """The absolute path `program` runs as (a bare name looked up on PATH), or None; absolute,
    so that what is checked is what runs from the scratch directory."""
    if os.sep in program:
        found = program if os.path.isfile(program) and os.access(program, os.X_OK) else None
    else:
        found = shutil.which(program, path=environ.get("PATH"))
    return os.path.abspath(found) if found is not None else None


PLUGIN_HINT = "put arcguard on PATH (pipx install <a clone or its git URL>)"


def check_executables(setup: Setup) -> list[Check]:
    found = []
    seen: set[str] = set()
    for where, _, handler in setup.entries():
        program = plan.program(handler)
        if program is None or program in seen:
            continue
        seen.add(program)
        if resolve(program, setup.environ) is None:
            found.append(
                Check(
                    "executable",
                    GAP,
                    f"{program} ({where}) does not exist or is "
                    "not executable: Claude Code gets exit 127 and arcguard is off"
                    if where != "plugin"
                    # The plugin's hooks look for it themselves and exit 0 without it.
                    else f"{program} (plugin) is not on PATH: the plugin's hooks do nothing "
                    "(each prompt says how to install it)",
                    f"arcguard install --scope {where}" if where != "plugin" else PLUGIN_HINT,
                )
            )
        else:
            found.append(Check("executable", OK, f"{program} ({where})"))
    return found


def _payload(event: str, session_id: str, directory: str) -> dict[str, Any]:
    base = {
        "session_id": session_id,
        "hook_event_name": event,
        "cwd": directory,
        "transcript_path": os.path.join(directory, "missing.jsonl"),
    }
    extra: dict[str, dict[str, Any]] = {
        "UserPromptSubmit": {"prompt": "arcguard doctor"},
        "Stop": {"stop_hook_active": False, "last_assistant_message": "Done."},
        "PreToolUse": {
            "tool_name": "Read",
            "tool_input": {"file_path": "/dev/null"},
            "tool_use_id": "toolu_doctor",
        },
        "PostToolUse": {
            "tool_name": "Read",
            "tool_input": {"file_path": "/dev/null"},
            "tool_use_id": "toolu_doctor",
            "tool_response": {},
        },
        "PostToolUseFailure": {
            "tool_name": "Read",
            "tool_input": {"file_path": "/dev/null"},
            "tool_use_id": "toolu_doctor",
            "error": "doctor",
        },
        "PostToolBatch": {"tool_calls": []},
        "SessionStart": {"source": "startup"},
        "StopFailure": {"error": "unknown"},
    }
    return {**base, **extra.get(event, {})}


def _argv(handler: dict[str, Any], environ: Mapping[str, str]) -> list[str] | None:
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


NOT_RUN = "not run:"


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
    handler: dict[str, Any], event: str, environ: Mapping[str, str], project: str | None = None
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
    refused = refused or foreign_launcher(handler, environ)
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


def check_runs(setup: Setup) -> list[Check]:
    """Run each wired command once; failures that share a cause are reported on one line.

    A command that mentions arcguard but is not exactly an arcguard invocation is reported
    and never run: doctor may be looking at a repository nobody has reviewed yet. Nor is one
    whose code lies inside the project being checked (`Setup.guarded`): that is a skip, which
    says nothing about whether it works, so it does not fail the check.
    """

    failures: dict[tuple[str, str, str, str], list[str]] = {}
    seen: set[tuple[str, ...]] = set()
    answered = 0
    for where, event, handler in setup.entries():
        words = tuple(plan.argv(handler))
        if words in seen:
            continue
        seen.add(words)
        root = setup.guarded(where, plan.program(handler))
        refused = refused_for(handler, setup.environ, root)
        problem = refused or run_hook(handler, event, setup.environ, root)
        if problem:
            launcher = plan.shown(handler)
            status = SKIP if refused else GAP
            failures.setdefault((status, where, launcher, problem), []).append(
                plan.hook_name(handler) or event
            )
        else:
            answered += 1
    found = [
        Check(
            "runs",
            status,
            f"`{launcher} hook {'|'.join(hooks)}` ({where}): {problem}",
            SKIP_HINT
            if status == SKIP
            else PLUGIN_HINT
            if where == "plugin"
            else f"run it by hand to see why; arcguard install --scope {where} rewrites it",
        )
        for (status, where, launcher, problem), hooks in failures.items()
    ]
    found += [_not_run(where, event, handler) for where, event, handler in setup.suspects()]
    if answered and not any(c.status == GAP for c in found):
        found.insert(
            0, Check("runs", OK, f"{answered} wired commands answer a test payload as hooks must")
        )
    return found


SKIP_HINT = "once you trust this project, run the command by hand to check it"


def refused_for(
    handler: dict[str, Any], environ: Mapping[str, str], project: str | None
) -> str | None:
    """Why doctor will not run `handler` while checking `project` (None: no project), or None."""
    words = _argv(handler, environ)
    if not words:
        return None
    return refusal(words[0], plan.code_location(handler), project) or foreign_launcher(
        handler, environ
    )


def foreign_launcher(handler: dict[str, Any], environ: Mapping[str, str]) -> str | None:
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


def _not_run(where: str, event: str, handler: dict[str, Any]) -> Check:
    command = str(handler.get("command"))[:120]
    return Check(
        "runs",
        GAP,
        f"not run: {event} command {command!r} ({where}) "
        f"{plan.why_not_ours(handler)}; doctor runs only an exact arcguard invocation",
        f"if it is meant to be arcguard's, arcguard install --scope {where} adds an "
        "exact entry; then remove this one by hand",
    )


def check_command(setup: Setup) -> list[Check]:
    places: dict[str, Path] = {}
    for scope in ("user", "project"):
        path = cc.commands_dir(scope, setup.project, setup.environ) / slash.COMMAND_NAME
        # From the home folder the project's commands folder is the user's: named once.
        if all(os.path.realpath(path) != os.path.realpath(p) for p in places.values()):
            places[scope] = path
    states = {scope: slash.command_state(slash.read_text(path)) for scope, path in places.items()}
    found = []
    for scope, state in states.items():
        if state == "old":
            found.append(
                Check(
                    "/autonomous",
                    WARN,
                    f"{places[scope]} is an older template",
                    f"arcguard install --scope {scope}",
                )
            )
        elif state == "foreign":
            found.append(
                Check(
                    "/autonomous",
                    WARN,
                    f"{places[scope]} is not arcguard's "
                    "command; the arc still starts from the prompt",
                    "",
                )
            )
        elif state in ("current", "edited"):
            note = " (edited by hand)" if state == "edited" else ""
            found.append(Check("/autonomous", OK, f"{places[scope]}{note}"))
    if setup.plugin_enabled():
        found.append(
            Check("/autonomous", OK, "provided by the arcguard plugin as /arcguard:autonomous")
        )
    if not found:
        found.append(_no_command(setup))
    return found


def _no_command(setup: Setup) -> Check:
    from arcguard.claude_settings import releases as cv

    version, _ = setup.claude_version()
    if cv.rejects_unknown_commands(version):
        shown = f"Claude Code {cv.dotted(version)}" if version else "Claude Code (version unknown)"
        return Check(
            "/autonomous",
            GAP,
            f"no /autonomous command: {shown} rejects a prompt "
            "starting with /autonomous in -p mode, so no arc can start",
            "arcguard install",
        )
    return Check(
        "/autonomous",
        WARN,
        "no /autonomous command: Claude Code tells the model it "
        "is not available (the arc still starts from the prompt)",
        "arcguard install",
    )


def check_matchers(setup: Setup) -> list[Check]:
    """PostToolUse narrowed to the editing tools leaves every other result to PostToolBatch;
    on a release without the batch, the repeat guard would see no outcome at all."""
    from arcguard.claude_settings import releases as cv

    version, _ = setup.claude_version()
    if version is None or cv.knows("PostToolBatch", version):
        return []
    narrowed = [
        (scope, group.get("matcher"))
        for scope, settings in setup.loaded.items()
        for group in _our_groups(settings, "PostToolUse")
        if group.get("matcher") not in (None, "", "*")
    ]
    if setup.plugin_enabled():
        narrowed.append(("plugin", plan.matcher("PostToolUse")))
    return [
        Check(
            "wiring",
            GAP,
            f"PostToolUse runs only for {matcher} ({where}), and Claude "
            f"Code {cv.dotted(version)} has no PostToolBatch to report the other calls: "
            "the repeat guard never sees their outcomes",
            f"arcguard install --scope {where}"
            if where != "plugin"
            else "disable the plugin and run arcguard install",
        )
        for where, matcher in narrowed
    ]


def _our_groups(settings: Mapping[str, Any], event: str) -> list[dict[str, Any]]:
    hooks = settings.get("hooks")
    groups = hooks.get(event) if isinstance(hooks, dict) else None
    return (
        [
            g
            for g in groups
            if isinstance(g, dict)
            and isinstance(g.get("hooks"), list)
            and any(plan.is_ours(h) for h in g["hooks"])
        ]
        if isinstance(groups, list)
        else []
    )
