"""Doctor's rules over the settings as read: files that parse, one entry per event, handlers
in the background, matchers, and the checks made of what `doctor.probes` found when it looked
up and ran the wired commands and read the /autonomous command.

Nothing here touches a file or PATH: each rule is a function of the `Setup` and of what was
found, so the same settings always give the same checks. The one exception is the Claude Code
release a rule may ask the `Setup` for: it runs `claude --version` once, on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcguard.claude_settings import merge_plan as plan
from arcguard.doctor.model import GAP
from arcguard.doctor.model import SKIP
from arcguard.doctor.model import Check
from arcguard.doctor.model import HookEntry
from arcguard.doctor.model import Setup
from arcguard.doctor.model import gap
from arcguard.doctor.model import ok
from arcguard.doctor.model import warn
from arcguard.hooks import BACKGROUND
from arcguard.hooks import EVENTS
from arcguard.hooks import RESIDENT_COMMANDS
from arcguard.values import value


if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from arcguard.jsonio import JSONObject


# What to do about a settings file that cannot be used, by what is wrong with it.
BROKEN_HINTS = {
    "permission": "give yourself read access: chmod u+r {path}",
    "not-regular": "replace {path} with a regular file (it is a FIFO, device or directory)",
    "too-large": "{path} is far larger than any settings file: check what wrote it",
    "invalid": "fix the JSON of {path}: standard JSON only, no NaN/Infinity or duplicate keys "
    "(Claude Code ignores a file it cannot parse)",
}
PLUGIN_HINT = "put arcguard on PATH (pipx install <a clone or its git URL>)"
SKIP_HINT = "once you trust this project, run the command by hand to check it"
NOT_RUN = "not run:"


def check_settings_files(setup: Setup) -> list[Check]:
    found = []
    for scope, path in setup.files.items():
        if scope in setup.broken:
            hint = BROKEN_HINTS.get(
                setup.broken_kind.get(scope, ""), "check that you can read {path}"
            )
            found.append(gap("settings", setup.broken[scope], hint.format(path=path)))
        elif scope in setup.loaded:
            if setup.loaded[scope].get("disableAllHooks") is True:
                found.append(
                    gap(
                        "settings",
                        f"{path} sets disableAllHooks: every hook is off",
                        f"remove disableAllHooks from {path}",
                    )
                )
            else:
                found.append(ok("settings", f"{path} parses"))
    return found or [ok("settings", "no Claude Code settings file exists yet")]


def check_wiring(setup: Setup) -> list[Check]:
    by_event, found = _wired_by_event(setup)
    found += _missing(setup, [event for event, wired in by_event.items() if not wired])
    twice: dict[tuple[str, ...], list[str]] = {}
    repeated: dict[tuple[str, ...], list[str]] = {}
    for event, wired in by_event.items():
        wheres = tuple(entry.where for entry in wired)
        if len(distinct(wired)) > 1:
            twice.setdefault(wheres, []).append(event)
        elif len(wired) > 1:
            repeated.setdefault(wheres, []).append(event)
    wired_events = sum(1 for wired in by_event.values() if wired)
    # One line per cause: a second install wires every event again, not one of them.
    found += [
        gap(
            "wiring",
            f"{_events(events, wired_events)} wired {len(wheres)} times "
            f"({', '.join(wheres)}): every hook would run more than once",
            keep_one(setup, wheres),
        )
        for wheres, events in twice.items()
    ]
    if not found:
        scopes = sorted({entry.where for entry in setup.entries()})
        found.append(ok("wiring", f"all {wired_events} events wired once ({', '.join(scopes)})"))
    found += [
        warn(
            "wiring",
            f"{_events(events, wired_events)} wired word for word in {', '.join(wheres)}: "
            "Claude Code runs identical entries once, but once they differ (a reinstall "
            "from elsewhere) every hook runs twice",
            keep_one(setup, wheres),
        )
        for wheres, events in repeated.items()
    ]
    return found


def _wired_by_event(setup: Setup) -> tuple[dict[str, list[HookEntry]], list[Check]]:
    """The entries of each event arcguard wires (resident ones first), and a gap for each
    entry that runs a hook of arcguard's on an event it does not belong to."""
    by_event: dict[str, list[HookEntry]] = {event: [] for event in EVENTS}
    found = []
    for where, event, port in resident_entries(setup):
        by_event[event].append(HookEntry(where, event, {"type": "http", "port": port}))
    for entry in setup.entries():
        name = plan.hook_name(entry.handler) or ""
        ours = (EVENTS.get(entry.event), RESIDENT_COMMANDS.get(entry.event))
        if entry.event in EVENTS and name in ours:
            by_event[entry.event].append(entry)
        elif BACKGROUND.get(name) != entry.event:  # background handlers have their own check
            found.append(
                gap(
                    "wiring",
                    f"{entry.event} runs `hook {name}` ({entry.where})",
                    f"arcguard uninstall --scope {entry.where} && arcguard install",
                )
            )
    return by_event, found


def distinct(wired: list[HookEntry]) -> list[tuple[bool, str]]:
    """The handlers Claude Code runs for one event: an identical handler in several settings
    files runs once (measured on 2.1.78, 2.1.328 and 2.1.332), a plugin's copy runs apart."""
    import json

    keys: list[tuple[bool, str]] = []
    for entry in wired:
        key = (entry.where == "plugin", json.dumps(entry.handler, sort_keys=True))
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
        shown = f"{', '.join(missing)}, which Claude Code {cv.dotted(version)} now knows"
        return [gap("wiring", f"not wired: {shown}", "run arcguard install again")]
    return [
        gap(
            "wiring",
            f"not wired: {', '.join(missing)}",
            "arcguard install (or --scope project/local for one project)",
        )
    ]


def check_background(setup: Setup) -> list[Check]:
    """Each background handler wired once, with the flags that keep it off Claude Code's path."""
    found = []
    for name, event in BACKGROUND.items():
        wired = [
            e for e in setup.entries() if e.event == event and plan.hook_name(e.handler) == name
        ]
        if not wired:
            found.append(
                warn(
                    "wiring",
                    f"{event} does not run `hook {name}`: an arc stopped by an API limit is "
                    "not resumed",
                    "arcguard install",
                )
            )
        elif len(distinct(wired)) > 1:
            wheres = tuple(entry.where for entry in wired)
            found.append(
                gap(
                    "wiring",
                    f"`hook {name}` is wired {len(wired)} times ({', '.join(wheres)})",
                    keep_one(setup, wheres),
                )
            )
        found += [_not_background(name, entry.where) for entry in wired if not _background(entry)]
        if len(distinct(wired)) == 1 and not found:
            found.append(ok("wiring", f"`hook {name}` runs in the background on {event}"))
    return found


def _background(entry: HookEntry) -> bool:
    return entry.handler.get("async") is True and entry.handler.get("asyncRewake") is True


def _not_background(name: str, where: str) -> Check:
    return gap(
        "wiring",
        f'`hook {name}` ({where}) lacks "async": true and "asyncRewake": true: Claude Code '
        "would wait for it and never be woken by it",
        f"arcguard install --scope {where}",
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
        gap(
            "wiring",
            f"PostToolUse runs only for {matcher} ({where}), and Claude "
            f"Code {cv.dotted(version)} has no PostToolBatch to report the other calls: "
            "the repeat guard never sees their outcomes",
            f"arcguard install --scope {where}"
            if where != "plugin"
            else "disable the plugin and run arcguard install",
        )
        for where, matcher in narrowed
    ]


def _our_groups(settings: Mapping[str, object], event: str) -> list[JSONObject]:
    hooks = settings.get("hooks")
    groups = hooks.get(event) if isinstance(hooks, dict) else None
    if not isinstance(groups, list):
        return []
    return [
        g
        for g in groups
        if isinstance(g, dict)
        and isinstance(handlers := g.get("hooks"), list)
        and any(plan.is_ours(h) for h in handlers)
    ]


@value
class Program:
    """A wired program, where it was first found, and whether it resolves to an executable."""

    where: str
    program: str
    found: bool


def executable_checks(programs: list[Program]) -> list[Check]:
    return [
        ok("executable", f"{p.program} ({p.where})") if p.found else _no_program(p)
        for p in programs
    ]


def _no_program(p: Program) -> Check:
    if p.where == "plugin":
        # The plugin's hooks look for it themselves and exit 0 without it.
        return gap(
            "executable",
            f"{p.program} (plugin) is not on PATH: the plugin's hooks do nothing "
            "(each prompt says how to install it)",
            PLUGIN_HINT,
        )
    return gap(
        "executable",
        f"{p.program} ({p.where}) does not exist or is not executable: Claude Code gets "
        "exit 127 and arcguard is off",
        f"arcguard install --scope {p.where}",
    )


@value
class ProbeRun:
    """What running one wired command found: nothing wrong (`problem` ""), what went wrong,
    or (`refused`) why doctor chose not to run it."""

    entry: HookEntry
    problem: str
    refused: bool


def checks_of_runs(runs: list[ProbeRun], suspects: list[HookEntry]) -> list[Check]:
    """The checks of the wired commands' runs: failures that share a cause on one line, each
    command that only looks like arcguard's as a gap of its own, and an ok line when some
    answered and nothing failed (a skip says nothing about whether a command works)."""
    failures: dict[tuple[str, str, str, str], list[str]] = {}
    for run in runs:
        if run.problem:
            status = SKIP if run.refused else GAP
            key = (status, run.entry.where, plan.shown(run.entry.handler), run.problem)
            failures.setdefault(key, []).append(
                plan.hook_name(run.entry.handler) or run.entry.event
            )
    found = [
        Check(
            "runs",
            status,
            f"`{launcher} hook {'|'.join(hooks)}` ({where}): {problem}",
            _run_hint(status, where),
        )
        for (status, where, launcher, problem), hooks in failures.items()
    ]
    found += [_not_run(entry) for entry in suspects]
    answered = sum(1 for run in runs if not run.problem)
    if answered and not any(c.status == GAP for c in found):
        found.insert(
            0, ok("runs", f"{answered} wired commands answer a test payload as hooks must")
        )
    return found


def _run_hint(status: str, where: str) -> str:
    if status == SKIP:
        return SKIP_HINT
    if where == "plugin":
        return PLUGIN_HINT
    return f"run it by hand to see why; arcguard install --scope {where} rewrites it"


def _not_run(entry: HookEntry) -> Check:
    command = str(entry.handler.get("command"))[:120]
    return gap(
        "runs",
        f"{NOT_RUN} {entry.event} command {command!r} ({entry.where}) "
        f"{plan.why_not_ours(entry.handler)}; doctor runs only an exact arcguard invocation",
        f"if it is meant to be arcguard's, arcguard install --scope {entry.where} adds an "
        "exact entry; then remove this one by hand",
    )


def command_checks(setup: Setup, states: dict[str, tuple[Path, str]]) -> list[Check]:
    """The checks of the /autonomous command, from the state of its file in each scope
    (`slash_command.command_state`) and whether the plugin provides it."""
    found = []
    for scope, (path, state) in states.items():
        if state == "old":
            found.append(
                warn(
                    "/autonomous",
                    f"{path} is an older template",
                    f"arcguard install --scope {scope}",
                )
            )
        elif state == "foreign":
            found.append(
                warn(
                    "/autonomous",
                    f"{path} is not arcguard's command; the arc still starts from the prompt",
                )
            )
        elif state in ("current", "edited"):
            note = " (edited by hand)" if state == "edited" else ""
            found.append(ok("/autonomous", f"{path}{note}"))
    if setup.plugin_enabled():
        found.append(ok("/autonomous", "provided by the arcguard plugin as /arcguard:autonomous"))
    return found or [_no_command(setup)]


def _no_command(setup: Setup) -> Check:
    from arcguard.claude_settings import releases as cv

    version, _ = setup.claude_version()
    if cv.rejects_unknown_commands(version):
        shown = f"Claude Code {cv.dotted(version)}" if version else "Claude Code (version unknown)"
        return gap(
            "/autonomous",
            f"no /autonomous command: {shown} rejects a prompt starting with /autonomous in "
            "-p mode, so no arc can start",
            "arcguard install",
        )
    return warn(
        "/autonomous",
        "no /autonomous command: Claude Code tells the model it is not available (the arc "
        "still starts from the prompt)",
        "arcguard install",
    )
