"""`arcguard doctor`: is arcguard wired into Claude Code, does it run, is its state healthy?

Each check is a small function returning one or more `Check`s and never raising (the runner
turns an exception into a gap). A gap means arcguard is not doing its job; a warning is worth
knowing about but does not stop it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import NamedTuple

import click

from arcguard import paths
from arcguard import settings as cc
from arcguard.commands.common import json_option
from arcguard.hooks import EVENTS


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping
    from typing import Any

OK, GAP, WARN = "ok", "gap", "warn"
# Claude Code versions whose payloads arcguard relies on (see the README's "doctor" section).
LAST_MESSAGE_VERSION = (2, 1, 47)  # Stop's last_assistant_message (changelog 2.1.47)
KNOWN_GOOD_VERSION = (2, 1, 328)  # PostToolBatch seen here; the version that added it is unknown
RUN_TIMEOUT_S = 15.0
STALE_DAYS = 30
RECENT_ERRORS_S = 24 * 3600
PLUGIN_ID = "arcguard@"


class Check(NamedTuple):
    name: str
    status: str
    detail: str
    hint: str = ""


class Setup:
    """What the checks look at: the settings files of every scope that applies, and more."""

    def __init__(self, project: Path, environ: dict[str, str]) -> None:
        self.project = project
        self.environ = environ
        self.files = {scope: cc.settings_path(scope, project, environ) for scope in cc.SCOPES}
        self.loaded: dict[str, dict[str, Any]] = {}
        self.broken: dict[str, str] = {}
        for scope, path in self.files.items():
            try:
                settings, text = cc.load(path)
            except cc.SettingsError as exc:
                self.broken[scope] = str(exc)
                continue
            if text is not None:
                self.loaded[scope] = settings
        self.home = paths.state_dir(environ)

    def entries(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(where, event, handler) of every arcguard handler Claude Code will run."""
        found = [(scope, event, handler) for scope, settings in self.loaded.items()
                 for event, handler in cc.our_entries(settings)]
        if self.plugin_enabled():
            found += [("plugin", event, group["hooks"][0])
                      for event, [group] in cc.desired_hooks("arcguard").items()]
        return found

    def plugin_enabled(self) -> bool:
        """An `arcguard@<marketplace>` plugin enabled by the scope that wins for it."""
        enabled: dict[str, bool] = {}
        for scope in cc.SCOPES:  # lowest precedence first: later scopes override
            plugins = self.loaded.get(scope, {}).get("enabledPlugins")
            if isinstance(plugins, dict):
                enabled.update({k: v is True for k, v in plugins.items()
                                if isinstance(k, str) and k.startswith(PLUGIN_ID)})
        return any(enabled.values())


# --- settings and wiring -------------------------------------------------------------------


def check_settings_files(setup: Setup) -> list[Check]:
    found = []
    for scope, path in setup.files.items():
        if scope in setup.broken:
            found.append(Check("settings", GAP, setup.broken[scope],
                               f"fix the JSON of {path} (Claude Code ignores a file it cannot "
                               "parse)"))
        elif scope in setup.loaded:
            settings = setup.loaded[scope]
            if settings.get("disableAllHooks") is True:
                found.append(Check("settings", GAP, f"{path} sets disableAllHooks: every hook "
                                   "is off", f"remove disableAllHooks from {path}"))
            else:
                found.append(Check("settings", OK, f"{path} parses"))
    return found or [Check("settings", OK, "no Claude Code settings file exists yet")]


def check_wiring(setup: Setup) -> list[Check]:
    by_event: dict[str, list[tuple[str, str]]] = {event: [] for event in EVENTS}
    found = []
    for where, event, handler in setup.entries():
        name = cc.hook_name(handler) or ""
        if event in EVENTS and name == EVENTS[event]:
            by_event[event].append((where, name))
        else:
            found.append(Check("wiring", GAP, f"{event} runs `hook {name}` ({where})",
                               f"arcguard uninstall --scope {where} && arcguard install"))
    missing = [event for event, wired in by_event.items() if not wired]
    if missing:
        found.append(Check("wiring", GAP, f"not wired: {', '.join(missing)}",
                           "arcguard install (or --scope project/local for one project)"))
    for event, wired in by_event.items():
        if len(wired) > 1:
            where = ", ".join(w for w, _ in wired)
            found.append(Check("wiring", GAP, f"{event} is wired {len(wired)} times ({where}): "
                               "every hook would run more than once",
                               "keep one: arcguard uninstall --scope <scope>, or disable the "
                               "plugin"))
    if not found:
        scopes = sorted({w for w, _, _ in setup.entries()})
        found.append(Check("wiring", OK, f"all {len(EVENTS)} events wired once "
                           f"({', '.join(scopes)})"))
    return found


def _program(handler: dict[str, Any]) -> str | None:
    words = cc.launcher(handler)
    while words and "=" in words[0] and not words[0].startswith(("/", ".")):
        words = words[1:]
    return words[0] if words else None


def _resolve(program: str, environ: Mapping[str, str]) -> str | None:
    if os.sep in program:
        return program if os.path.isfile(program) and os.access(program, os.X_OK) else None
    return shutil.which(program, path=environ.get("PATH"))


def check_executables(setup: Setup) -> list[Check]:
    found = []
    seen: set[str] = set()
    for where, _, handler in setup.entries():
        program = _program(handler)
        if program is None or program in seen:
            continue
        seen.add(program)
        if _resolve(program, setup.environ) is None:
            found.append(Check("executable", GAP, f"{program} ({where}) does not exist or is "
                               "not executable: Claude Code gets exit 127 and arcguard is off",
                               f"arcguard install --scope {where}" if where != "plugin" else
                               "put arcguard on PATH (pip install arcguard)"))
        else:
            found.append(Check("executable", OK, f"{program} ({where})"))
    return found


def _payload(event: str, session_id: str, directory: str) -> dict[str, Any]:
    base = {"session_id": session_id, "hook_event_name": event, "cwd": directory,
            "transcript_path": os.path.join(directory, "missing.jsonl")}
    extra: dict[str, dict[str, Any]] = {
        "UserPromptSubmit": {"prompt": "arcguard doctor"},
        "Stop": {"stop_hook_active": False, "last_assistant_message": "Done."},
        "PreToolUse": {"tool_name": "Read", "tool_input": {"file_path": "/dev/null"},
                       "tool_use_id": "toolu_doctor"},
        "PostToolUse": {"tool_name": "Read", "tool_input": {"file_path": "/dev/null"},
                        "tool_use_id": "toolu_doctor", "tool_response": {}},
        "PostToolUseFailure": {"tool_name": "Read", "tool_input": {"file_path": "/dev/null"},
                               "tool_use_id": "toolu_doctor", "error": "doctor"},
        "PostToolBatch": {"tool_calls": []},
        "SessionStart": {"source": "startup"},
        "StopFailure": {"error": "unknown"},
    }
    return {**base, **extra.get(event, {})}


def run_hook(command: str, event: str, environ: Mapping[str, str]) -> str | None:
    """Run a wired command as Claude Code would, in a throwaway state dir; None if it answers
    as a hook must (exit 0, nothing or one JSON object on stdout), else what went wrong."""
    import json
    import tempfile

    with tempfile.TemporaryDirectory(prefix="arcguard-doctor-") as scratch:
        env = {**environ, "ARCGUARD_HOME": os.path.join(scratch, "state")}
        payload = json.dumps(_payload(event, f"arcguard-doctor-{os.getpid()}", scratch))
        try:
            done = subprocess.run(["/bin/sh", "-c", command], input=payload, text=True,
                                  capture_output=True, env=env, cwd=scratch,
                                  timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return f"no answer within {RUN_TIMEOUT_S:.0f}s"
    if done.returncode == 127:
        return "exit 127: command not found"
    if done.returncode != 0:
        tail = " ".join(done.stderr.split())[-200:]
        return f"exit {done.returncode}" + (f": {tail}" if tail else "")
    out = done.stdout.strip()
    if out:
        try:
            if not isinstance(json.loads(out), dict):
                return f"stdout is not a JSON object: {out[:80]}"
        except ValueError:
            return f"stdout is not JSON: {out[:80]}"
    return None


def check_runs(setup: Setup) -> list[Check]:
    """Run each wired command once; failures that share a cause are reported on one line."""
    import shlex

    failures: dict[tuple[str, str, str], list[str]] = {}
    seen: set[str] = set()
    for where, event, handler in setup.entries():
        command = str(handler.get("command"))
        if handler.get("args"):
            command = shlex.join([command, *handler["args"]])
        if command in seen:
            continue
        seen.add(command)
        problem = run_hook(command, event, setup.environ)
        if problem:
            launcher = shlex.join(cc.launcher(handler)) or command
            failures.setdefault((where, launcher, problem), []).append(
                cc.hook_name(handler) or event)
    found = []
    for (where, launcher, problem), hooks in failures.items():
        found.append(Check("runs", GAP, f"`{launcher} hook {'|'.join(hooks)}` ({where}): "
                           f"{problem}", f"run it by hand to see why; arcguard install "
                           f"--scope {where} rewrites it"))
    if not found and seen:
        found.append(Check("runs", OK, f"{len(seen)} wired commands answer a test payload "
                           "as hooks must"))
    return found


# --- state, lock, config -------------------------------------------------------------------


def _nearest_existing(path: str) -> str:
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return path


def check_state_dir(setup: Setup) -> list[Check]:
    import stat

    home = setup.home
    try:
        info = os.lstat(home)
    except FileNotFoundError:
        parent = _nearest_existing(home)
        if os.access(parent, os.W_OK | os.X_OK):
            return [Check("state dir", OK, f"{home} will be created on the first hook run")]
        return [Check("state dir", GAP, f"{home} cannot be created ({parent} is not writable)",
                      "set ARCGUARD_HOME to a writable directory")]
    fix = f"chmod 700 {home}"
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        return [Check("state dir", GAP, f"{home} is not a plain directory (hooks refuse it)",
                      "move it away; arcguard recreates it")]
    if info.st_uid != os.getuid():
        return [Check("state dir", GAP, f"{home} belongs to uid {info.st_uid}",
                      "set ARCGUARD_HOME to a directory of your own")]
    mode = info.st_mode & 0o777
    if mode & 0o022:
        return [Check("state dir", GAP, f"{home} is writable by others (mode {mode:o}); "
                      "hooks refuse it", fix)]
    if mode & 0o077:
        return [Check("state dir", WARN, f"{home} is readable by others (mode {mode:o})", fix)]
    return [Check("state dir", OK, f"{home} (mode {mode:o})")]


def check_lock(setup: Setup) -> list[Check]:
    from arcguard import fsutil

    if not os.path.isdir(setup.home):
        return [Check("lock", OK, "not checked: no state directory yet")]
    probe = os.path.join(setup.home, "doctor")
    try:
        with fsutil.locked(probe, 2.0, use_filelock=True):
            pass
    except OSError as exc:
        return [Check("lock", GAP, f"cannot take a lock in {setup.home}: {exc}",
                      "check the directory's permissions and free space")]
    finally:
        try:
            os.unlink(probe + ".lock")
        except OSError:
            pass
    return [Check("lock", OK, "a state lock can be taken")]


def check_config(setup: Setup) -> list[Check]:
    from arcguard.config import load_config

    path = paths.config_path(setup.environ)
    _, problems = load_config(setup.environ)
    if problems:
        return [Check("config", GAP, problem, f"fix {path} or the ARCGUARD_* variable; the "
                      "default applies meanwhile") for problem in problems]
    where = path if os.path.exists(path) else f"{path} absent, defaults apply"
    return [Check("config", OK, where)]


def check_state_files(setup: Setup) -> list[Check]:
    from arcguard import fsutil
    from arcguard import store

    directory = paths.sessions_dir(setup.home)
    try:
        names = os.listdir(directory)
    except OSError:
        return [Check("state files", OK, "none yet")]
    corrupt = sorted(n for n in names if ".corrupt-" in n)
    temps = [n for n in names if fsutil.TEMP_MARK in n]
    bad, stale, good = [], 0, 0
    cutoff = time.time() - STALE_DAYS * 86400
    for path, mtime in store.list_sessions(setup.home):
        try:
            store.read_state(path)
        except (store.Unreadable, OSError):
            bad.append(os.path.basename(path))
            continue
        good += 1
        stale += mtime < cutoff
    found = []
    if corrupt:
        found.append(Check("state files", WARN, f"{len(corrupt)} quarantined corrupt file(s) in "
                           f"{directory}, newest {corrupt[-1]}",
                           "look at them if you want to know why, then delete them"))
    if bad:
        found.append(Check("state files", WARN, f"unreadable: {', '.join(bad[:3])} (the next "
                           "hook run quarantines them)", "nothing to do unless it recurs"))
    if temps:
        found.append(Check("state files", WARN, f"{len(temps)} temp file(s) left by a killed "
                           "writer", f"delete {directory}/*{fsutil.TEMP_MARK}*"))
    if stale:
        found.append(Check("state files", WARN, f"{stale} session file(s) untouched for more "
                           f"than {STALE_DAYS} days",
                           f"find {directory} -name '*.json*' -mtime +{STALE_DAYS} -delete"))
    return found or [Check("state files", OK, f"{good} session file(s), all readable")]


def check_error_log(setup: Setup) -> list[Check]:
    path = paths.error_log(setup.home)
    try:
        if os.path.getmtime(path) < time.time() - RECENT_ERRORS_S:
            return [Check("error log", OK, "no errors in the last 24 hours")]
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return [Check("error log", OK, "no errors logged")]
    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - RECENT_ERRORS_S))
    recent = [line for line in lines if line[:20] >= since]
    if not recent:
        return [Check("error log", OK, "no errors in the last 24 hours")]
    return [Check("error log", WARN, f"{len(recent)} hook error(s) in the last 24 hours, last: "
                  f"{recent[-1][:160]}", f"see {path}")]


# --- Claude Code and the /autonomous command -----------------------------------------------


def parse_version(text: str) -> tuple[int, int, int] | None:
    import re

    found = re.search(r"(\d+)\.(\d+)\.(\d+)", text)
    return (int(found[1]), int(found[2]), int(found[3])) if found else None


def _dotted(version: tuple[int, int, int]) -> str:
    return ".".join(map(str, version))


def check_claude(setup: Setup) -> list[Check]:
    program = shutil.which("claude", path=setup.environ.get("PATH"))
    if program is None:
        return [Check("claude", WARN, "`claude` is not on PATH; its version was not checked",
                      "run doctor where Claude Code is installed")]
    try:
        done = subprocess.run([program, "--version"], capture_output=True, text=True,
                              timeout=RUN_TIMEOUT_S, env=dict(setup.environ))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [Check("claude", WARN, f"`claude --version` failed: {exc}")]
    version = parse_version(done.stdout)
    if done.returncode != 0 or version is None:
        return [Check("claude", WARN, f"`claude --version` said {done.stdout.strip()[:60]!r}")]
    shown = _dotted(version)
    if version < LAST_MESSAGE_VERSION:
        return [Check("claude", WARN, f"Claude Code {shown} sends no last_assistant_message "
                      f"(added in {_dotted(LAST_MESSAGE_VERSION)}): the Stop hook reads the "
                      "transcript instead, and PostToolBatch (cycles, nudges) likely never fires",
                      "update Claude Code")]
    if version < KNOWN_GOOD_VERSION:
        return [Check("claude", WARN, f"Claude Code {shown}: PostToolBatch (cycles, blocked "
                      f"rounds, nudges) is confirmed from {_dotted(KNOWN_GOOD_VERSION)}, the "
                      "version arcguard is tested with", "update Claude Code")]
    return [Check("claude", OK, f"Claude Code {shown}")]


def check_command(setup: Setup) -> list[Check]:
    places = {scope: cc.commands_dir(scope, setup.project, setup.environ) / cc.COMMAND_NAME
              for scope in ("user", "project")}
    states = {scope: cc.command_state(cc.read_text(path)) for scope, path in places.items()}
    found = []
    for scope, state in states.items():
        if state == "old":
            found.append(Check("/autonomous", WARN, f"{places[scope]} is an older template",
                               f"arcguard install --scope {scope}"))
        elif state == "foreign":
            found.append(Check("/autonomous", WARN, f"{places[scope]} is not arcguard's "
                               "command; the arc still starts from the prompt", ""))
        elif state in ("current", "edited"):
            note = " (edited by hand)" if state == "edited" else ""
            found.append(Check("/autonomous", OK, f"{places[scope]}{note}"))
    if setup.plugin_enabled():
        found.append(Check("/autonomous", OK, "provided by the arcguard plugin as "
                           "/arcguard:autonomous"))
    if not found:
        found.append(Check("/autonomous", GAP, "no /autonomous command: Claude Code tells the "
                           "model it is not available", "arcguard install"))
    return found


CHECKS: tuple[Callable[[Setup], list[Check]], ...] = (
    check_settings_files, check_wiring, check_executables, check_runs, check_state_dir,
    check_lock, check_config, check_state_files, check_error_log, check_claude, check_command,
)


def run_checks(setup: Setup) -> list[Check]:
    results = []
    for check in CHECKS:
        try:
            results.extend(check(setup))
        except Exception as exc:  # a check never takes the report down with it
            name = check.__name__.removeprefix("check_").replace("_", " ")
            results.append(Check(name, GAP, f"check failed: {type(exc).__name__}: {exc}"))
    return results


def render(results: list[Check]) -> str:
    lines = []
    for result in results:
        lines.append(f"{result.status:<4}  {result.name}: {result.detail}")
        if result.hint and result.status != OK:
            lines.append(f"      hint: {result.hint}")
    return "\n".join(lines)


@click.command()
@json_option
@click.option("--project", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Project whose .claude settings to check (default: the current directory).")
@click.pass_context
def doctor(ctx: click.Context, as_json: bool, project: Path | None) -> None:
    """Check that arcguard is wired into Claude Code, runs, and has healthy state.

    One line per check: ok, warn (worth knowing) or gap (arcguard is not doing its job here),
    with a hint for each problem. It runs every wired hook command once with a test payload
    against a throwaway state directory. Exits 1 when there is any gap.

    \b
    Examples:
      arcguard doctor
      arcguard doctor --project ~/src/app
      arcguard doctor --json | jq '.checks[] | select(.status != "ok")'
    """
    import json

    setup = Setup((project or Path.cwd()).absolute(), dict(os.environ))
    results = run_checks(setup)
    failed = any(r.status == GAP for r in results)
    if as_json:
        click.echo(json.dumps({"schema": 1, "ok": not failed,
                               "checks": [r._asdict() for r in results]}, indent=2))
    else:
        click.echo(render(results))
    ctx.exit(1 if failed else 0)
