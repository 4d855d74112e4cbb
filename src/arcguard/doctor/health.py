"""Doctor checks of health: state directory, lock, config, state files, log, Claude Code."""

from __future__ import annotations

import os
import time

from arcguard.doctor.model import Check
from arcguard.doctor.model import Setup
from arcguard.doctor.model import gap
from arcguard.doctor.model import ok
from arcguard.doctor.model import warn
from arcguard.storage import paths


# The Claude Code version whose Stop payload carries last_assistant_message (changelog
# 2.1.47). Which release knows which hook event is in `arcguard.claude_settings.releases`.
LAST_MESSAGE_VERSION = (2, 1, 47)
STALE_DAYS = 30
RECENT_ERRORS_S = 24 * 3600
FILES, CAP = "state files", "stop cap"


def _nearest_existing(path: str) -> str:
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return path


def check_state_dir(setup: Setup) -> list[Check]:
    import stat

    home = setup.home
    if setup.home_problem:
        hint = "set ARCGUARD_HOME to an absolute path (or unset it)"
        return [gap("state dir", f"{setup.home_problem}: hooks give no decision", hint)]
    try:
        info = os.lstat(home)
    except FileNotFoundError:
        parent = _nearest_existing(home)
        if os.access(parent, os.W_OK | os.X_OK):
            return [ok("state dir", f"{home} will be created on the first hook run")]
        hint = "set ARCGUARD_HOME to a writable directory"
        return [gap("state dir", f"{home} cannot be created ({parent} is not writable)", hint)]
    fix = f"chmod 700 {home}"
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        hint = "move it away; arcguard recreates it"
        return [gap("state dir", f"{home} is not a plain directory (hooks refuse it)", hint)]
    if info.st_uid != os.getuid():
        hint = "set ARCGUARD_HOME to a directory of your own"
        return [gap("state dir", f"{home} belongs to uid {info.st_uid}", hint)]
    mode = info.st_mode & 0o777
    if mode & 0o022:
        return [
            gap("state dir", f"{home} is writable by others (mode {mode:o}); hooks refuse it", fix)
        ]
    if mode & 0o077:
        return [warn("state dir", f"{home} is readable by others (mode {mode:o})", fix)]
    return [ok("state dir", f"{home} (mode {mode:o})")]


def check_hook_image(setup: Setup) -> list[Check]:
    """The code image beside the launcher (`hook_image`): without a usable one the hooks still
    decide the same, only each starts slower."""
    from arcguard import hook_image

    launcher = os.path.join(setup.home, hook_image.LAUNCHER_NAME)
    if setup.home_problem or not os.path.isfile(launcher):
        return []  # no launcher file: the entries do not use one
    image = os.path.join(setup.home, hook_image.IMAGE_NAME)
    why = hook_image.stale(image)
    if why is None:
        return [ok("hook image", f"{image} is current: hooks load arcguard's code from it")]
    hint = "run `arcguard install` again (the next session start also makes a new one)"
    detail = f"{image} is not used: {why}; hooks import arcguard module by module (slower)"
    return [warn("hook image", detail, hint)]


def check_lock(setup: Setup) -> list[Check]:
    from arcguard.storage import atomic

    if not os.path.isdir(setup.home):
        return [ok("lock", "not checked: no state directory yet")]
    probe = os.path.join(setup.home, "doctor")
    try:
        with atomic.locked(probe, 2.0):
            pass
    except OSError as exc:
        hint = "check the directory's permissions and free space"
        return [gap("lock", f"cannot take a lock in {setup.home}: {exc}", hint)]
    finally:
        try:
            os.unlink(probe + ".lock")
        except OSError:
            pass
    return [ok("lock", "a state lock can be taken")]


def check_config(setup: Setup) -> list[Check]:
    from arcguard.storage.config_file import load_config

    ignored = [
        warn("config", problem, "set it to an absolute path or unset it")
        for problem in paths.ignored_xdg(setup.environ)
    ]
    try:
        path = paths.config_path(setup.environ)
    except paths.UnusablePath as exc:
        hint = "set ARCGUARD_CONFIG to an absolute path (or unset it)"
        return [*ignored, gap("config", f"{exc}: hooks give no decision", hint)]
    _, problems = load_config(setup.environ)
    if ignored or problems:
        hint = f"fix {path} or the ARCGUARD_* variable; the default applies meanwhile"
        return ignored + [gap("config", problem, hint) for problem in problems]
    where = path if os.path.exists(path) else f"{path} absent, defaults apply"
    return [ok("config", where)]


def check_switch(setup: Setup) -> list[Check]:
    """`arcguard off`, and where the loop guard acts (`loop_guard`): not faults, but a
    session that seems unguarded is explained here first."""
    from arcguard.storage import store
    from arcguard.storage import switch
    from arcguard.storage.config_file import load_config

    try:
        turned = switch.read(setup.home)
    except (store.Unreadable, OSError) as exc:
        detail = f"{paths.switch_path(setup.home)}: {exc}; hooks treat every session as off"
        return [gap("switch", detail, "arcguard on (rewrites it)")]
    scope = load_config(setup.environ)[0].loop_guard
    acts = {
        "always": "the loop guard acts in every session",
        "arcs": "the loop guard acts only while an arc or a /goal is active",
        "off": "the loop guard is off (the arc keeper still acts)",
    }.get(scope, scope)
    if turned.every:
        back = f", except {len(turned.on)} session(s) switched back on" if turned.on else ""
        return [warn("switch", f"arcguard is off for every session{back}", "arcguard on")]
    if turned.off:
        detail = f"arcguard is off for {len(turned.off)} session(s); {acts} in the others"
        return [warn("switch", detail, "arcguard on --session ID, or arcguard on for all")]
    return [ok("switch", f"on; {acts} (loop_guard = {scope})")]


def check_state_files(setup: Setup) -> list[Check]:
    from arcguard.storage import atomic
    from arcguard.storage import store

    directory = paths.sessions_dir(setup.home)
    try:
        names = os.listdir(directory)
    except OSError:
        return [ok("state files", "none yet")]
    corrupt = sorted(n for n in names if ".corrupt-" in n)
    temps = [n for n in names if atomic.TEMP_MARK in n]
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
        detail = f"{len(corrupt)} quarantined corrupt file(s) in {directory}, newest {corrupt[-1]}"
        found.append(warn(FILES, detail, "look at them if you want to know why, then delete them"))
    if bad:
        detail = f"unreadable: {', '.join(bad[:3])} (the next hook run quarantines them)"
        found.append(warn(FILES, detail, "nothing to do unless it recurs"))
    if temps:
        detail = f"{len(temps)} temp file(s) left by a killed writer"
        found.append(warn(FILES, detail, f"delete {directory}/*{atomic.TEMP_MARK}*"))
    if stale:
        detail = f"{stale} session file(s) untouched for more than {STALE_DAYS} days"
        hint = f"find {directory} -name '*.json*' -mtime +{STALE_DAYS} -delete"
        found.append(warn(FILES, detail, hint))
    return found or [ok(FILES, f"{good} session file(s), all readable")]


def check_error_log(setup: Setup) -> list[Check]:
    path = paths.error_log(setup.home)
    try:
        if os.path.getmtime(path) < time.time() - RECENT_ERRORS_S:
            return [ok("error log", "no errors in the last 24 hours")]
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return [ok("error log", "no errors logged")]
    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - RECENT_ERRORS_S))
    recent = [line for line in lines if line[:20] >= since]
    if not recent:
        return [ok("error log", "no errors in the last 24 hours")]
    detail = f"{len(recent)} hook error(s) in the last 24 hours, last: {recent[-1][:160]}"
    return [warn("error log", detail, f"see {path}")]


def parse_version(text: str) -> tuple[int, int, int] | None:
    from arcguard.claude_settings import releases

    return releases.parse(text)


def check_claude(setup: Setup) -> list[Check]:
    """The installed release, and each arcguard feature that runs degraded on it."""
    from arcguard.claude_settings import releases as cv

    version, why = setup.claude_version()
    if version is None:
        hint = "run doctor where Claude Code is installed"
        return [warn("claude", f"{why}; its version was not checked", hint)]
    shown = cv.dotted(version)
    found = []
    if version < LAST_MESSAGE_VERSION:
        detail = (
            f"Claude Code {shown} sends no last_assistant_message (added in "
            f"{cv.dotted(LAST_MESSAGE_VERSION)}): the Stop hook reads the transcript instead"
        )
        found.append(warn("claude", detail, "update Claude Code"))
    for event, feature in cv.EVENT_FEATURES.items():
        since = cv.EVENT_SINCE.get(event)
        if since is not None and not cv.knows(event, version):
            detail = (
                f"{feature} ({event} arrived in Claude Code {cv.dotted(since)}; this is {shown})"
            )
            found.append(
                warn("claude", detail, "update Claude Code, then run arcguard install again")
            )
    return found or [ok("claude", f"Claude Code {shown}")]


def check_event_support(setup: Setup) -> list[Check]:
    """A settings file naming an event the installed release does not know is ignored whole."""
    from arcguard.claude_settings import releases as cv

    version, _ = setup.claude_version()
    if version is None:
        return []
    found = []
    for scope, settings in setup.loaded.items():
        hooks = settings.get("hooks")
        unknown = cv.unknown_to(version, list(hooks) if isinstance(hooks, dict) else [])
        if unknown:
            found.append(
                gap(
                    "events",
                    f"{setup.files[scope]} names {', '.join(unknown)}, "
                    f"which Claude Code {cv.dotted(version)} does not know: Claude "
                    "Code ignores that whole file, including your permission rules",
                    f"arcguard install --scope {scope} (it leaves out what this "
                    "release does not know), or remove those entries by hand",
                )
            )
    return found


def _claude_stop_cap(setup: Setup) -> tuple[str | None, str]:
    """(CLAUDE_CODE_STOP_HOOK_BLOCK_CAP as Claude Code will see it, where it is set)."""
    from arcguard.core.arc_keeper.stop import CAP_ENV

    if CAP_ENV in setup.environ:
        return setup.environ[CAP_ENV], "the environment"
    for scope, settings in setup.loaded.items():
        env = settings.get("env")
        if isinstance(env, dict) and isinstance(env.get(CAP_ENV), str | int):
            return str(env[CAP_ENV]), str(setup.files[scope])
    return None, ""


def check_stop_cap(setup: Setup) -> list[Check]:
    """Claude Code's own cap on consecutive Stop blocks, against arcguard's consecutive cap:
    past it Claude Code overrides the hook and ends the turn as if it had completed."""
    from arcguard.claude_settings import releases as cv
    from arcguard.core.arc_keeper.stop import CAP_ENV
    from arcguard.core.arc_keeper.stop import claude_stop_cap
    from arcguard.core.arc_keeper.stop import consecutive_cap
    from arcguard.storage.config_file import load_config

    version, _ = setup.claude_version()
    if version is not None and not cv.has_stop_cap(version):
        return [ok(CAP, f"Claude Code {cv.dotted(version)} has no Stop-hook cap")]
    raw, where = _claude_stop_cap(setup)
    cap = claude_stop_cap(raw)
    ours = load_config(setup.environ)[0].max_consecutive_continuations
    source = f"{CAP_ENV}={raw} in {where}" if raw is not None else "its default"
    if cap == 0:
        detail = (
            f"Claude Code's Stop-hook cap is off ({source}): arcguard's own caps bound"
            f" the continuations ({ours} in a row)"
        )
        return [ok(CAP, detail)]
    if consecutive_cap(ours, cap) < ours:
        detail = (
            f"Claude Code overrides a Stop hook after {cap} consecutive blocks ({source}),"
            f" fewer than arcguard's max_consecutive_continuations ({ours}): arcguard"
            f" continues at most {cap} stops in a row"
        )
        hint = f"raise {CAP_ENV} to at least {ours}, or lower max_consecutive_continuations"
        return [warn(CAP, detail, hint)]
    detail = (
        f"Claude Code overrides a Stop hook after {cap} consecutive blocks ({source});"
        f" arcguard stops at {ours}"
    )
    return [ok(CAP, detail)]
