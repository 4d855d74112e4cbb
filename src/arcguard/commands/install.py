"""`arcguard install` and `arcguard uninstall`: wire arcguard into Claude Code, or unwire it."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import settings_files as cc
from arcguard.claude_settings import slash_command as slash
from arcguard.hooks import EVENTS


if TYPE_CHECKING:
    from collections.abc import Callable

    from arcguard.claude_settings.settings_files import Settings


def _options(command: Callable[..., None]) -> Callable[..., None]:
    command = click.option(
        "--dry-run", is_flag=True, help="Print the diff it would apply and change nothing."
    )(command)
    command = click.option(
        "--project",
        "project",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Project directory for project and local scope (default: the current directory).",
    )(command)
    return click.option(
        "--scope",
        type=click.Choice(cc.SCOPES),
        default="user",
        show_default=True,
        help="user: ~/.claude/settings.json; project: <project>/.claude/"
        "settings.json; local: <project>/.claude/settings.local.json.",
    )(command)


def _target(scope: str, project: Path | None) -> tuple[Path, Path]:
    root = (project or Path.cwd()).absolute()
    return (
        cc.settings_path(scope, root, os.environ),
        cc.commands_dir(scope, root, os.environ) / slash.COMMAND_NAME,
    )


# How often a merge is redone when the file changes under it before giving up.
WRITE_ATTEMPTS = 8


def _apply(
    path: Path,
    change: Callable[[Settings], Settings],
    *,
    dry_run: bool,
    done: str,
    nothing: str,
    finish: Callable[[str], str] | None = None,
    before_write: Callable[[Settings, str | None], None] | None = None,
) -> None:
    """Load `path`, apply `change`, then print the diff (dry run) or write it with a backup.

    `finish` may adjust the new text (without changing what it means); `before_write` runs
    with the settings and text being replaced, right before they are, never in a dry run.
    The merge is redone from the new content whenever the file changed between reading and
    replacing it, a bounded number of times.
    """
    from arcguard.claude_settings import json_text

    for attempt in range(WRITE_ATTEMPTS):
        try:
            current, text = cc.load(path)
            new = change(current)
            if json_text.same(new, current):
                click.echo(nothing.format(path=path))
                return
            rendered = json_text.rewrite(text, current, new)
            rendered = finish(rendered) if finish is not None else rendered
            if dry_run:
                click.echo(cc.unified_diff(text, rendered, path), nl=False)
                return
            if before_write is not None:
                before_write(current, text)
            backup = cc.write_if_unchanged(path, rendered, text)
        except cc.Changed:
            _pause(attempt)
            continue
        except (plan.SettingsError, json_text.JsonRefused) as exc:
            raise click.ClickException(f"{exc}\nhint: nothing was written.") from None
        except OSError as exc:
            raise click.ClickException(f"cannot write {path}: {exc}") from None
        saved = f" (previous version saved as {backup})" if backup else ""
        click.echo(done.format(path=path) + saved)
        return
    raise click.ClickException(
        f"{path} kept changing while arcguard was updating it "
        f"({WRITE_ATTEMPTS} tries); nothing was written. Run this again "
        "when Claude Code is not changing its settings."
    )


def _pause(attempt: int) -> None:
    import random
    import time

    # Spread retries so that two writers do not keep colliding in step.
    time.sleep(random.uniform(0, 0.01 * (attempt + 1)))


def _version_option(text: str | None) -> tuple[int, int, int] | None:
    from arcguard.claude_settings import releases

    if text is None:
        return None
    version = releases.parse(text)
    if version is None:
        raise click.BadParameter(
            f"{text!r} is not a version like 2.1.328", param_hint="--claude-version"
        )
    return version


def _events_for(given: str | None) -> tuple[list[str], list[str], bool]:
    """(the events to write, lines saying what was left out and why, whether the release runs
    exec-form entries)."""
    from arcguard.claude_settings import releases as cv

    version, why = _version_option(given), ""
    if version is None:
        version, why = cc.claude_version(os.environ, timeout=5.0)
    events, notes = _known_events(version, why)
    return events, notes, cv.runs_exec_form(version)


def _known_events(version: tuple[int, int, int] | None, why: str) -> tuple[list[str], list[str]]:
    from arcguard.claude_settings import releases as cv

    left_out = cv.unknown_to(version, list(EVENTS))
    events = [e for e in EVENTS if e not in left_out]
    if version is None:
        return events, [
            f"Claude Code's version is unknown ({why}): only the events every "
            f"supported release knows were written; {', '.join(left_out)} left "
            "out. Pass --claude-version, or run `arcguard install` again where "
            "`claude` is on PATH"
        ] if left_out else []
    return events, [
        f"{event} left out: Claude Code {cv.dotted(version)} does not know it; run "
        "`arcguard install` again after upgrading"
        for event in left_out
    ]


@click.command()
@_options
@click.option(
    "--claude-version",
    "claude_version",
    default=None,
    metavar="X.Y.Z",
    help="The Claude Code release to write for (default: ask `claude --version`). "
    "Events it does not know are left out: it would ignore the whole file.",
)
@click.option(
    "--statusline",
    "with_statusline",
    is_flag=True,
    help="Also set Claude Code's status line to `arcguard statusline`, when the "
    "settings file has none.",
)
@click.option(
    "--force",
    is_flag=True,
    help="With --statusline: replace a status line that is not arcguard's (it is kept, "
    "and uninstall puts it back).",
)
@click.option(
    "--resident",
    is_flag=True,
    help="Resident mode: http hooks to one loopback `arcguard serve` per user (started by "
    "the SessionStart hook) instead of a process per hook. User or local scope only.",
)
def install(
    scope: str,
    project: Path | None,
    dry_run: bool,
    claude_version: str | None,
    with_statusline: bool,
    force: bool,
    resident: bool,
) -> None:
    """Wire arcguard's hooks and the /autonomous command into Claude Code.

    Merges one entry per hook event into the settings file of the chosen scope, keeping every
    other key and hook as it was, and writes the /autonomous slash command next to it. The
    hook commands use the absolute path of this arcguard, so they work whatever PATH Claude
    Code runs with. Safe to re-run: a second run changes nothing. The previous settings file
    is kept as settings.json.arcguard.bak; a file that is not valid JSON is never touched.

    Claude Code ignores a whole settings file that names an event its release does not know,
    so only the events of the installed release (`claude --version`, or --claude-version) are
    written; without a version, only those every supported release knows.

    \b
    Examples:
      arcguard install                       # every session of this user
      arcguard install --scope local         # this project, not committed
      arcguard install --scope project --dry-run
      arcguard install --resident            # http hooks to a resident server
    """
    _refuse_unsupported()
    path, command_file = _target(scope, project)
    long_prefix = plan.own_prefix(sys.executable, _package_location())
    served = _resident_files(scope, dry_run=dry_run) if resident else None
    events, notes, exec_form = _events_for(claude_version)
    prefix = _short_prefix(exec_form, dry_run=dry_run) or long_prefix
    lookalikes: list[tuple[str, dict[str, object]]] = []

    still: list[str] = []

    def change(settings: Settings) -> Settings:
        lookalikes[:] = plan.lookalike_entries(settings)
        new = plan.plan_install(settings, prefix, events, resident=served)
        still[:] = [e for e in EVENTS if e not in events and e in new.get("hooks", {})]
        return new

    _apply(
        path,
        change,
        dry_run=dry_run,
        done="installed arcguard hooks in {path}",
        nothing="arcguard hooks already installed in {path}",
    )
    for event, handler in lookalikes:
        click.echo(
            f"left as it is: {event} command {handler.get('command')!r} "
            f"({plan.why_not_ours(handler)}); it is not an exact arcguard invocation, so "
            "it is treated as your own: remove it by hand if it is an old copy"
        )
    for note in notes:
        click.echo(note)
    for event in still:
        click.echo(
            f"warning: {path} still names {event} in an entry that is not arcguard's: "
            "a Claude Code release that does not know it ignores this whole file, your "
            "permission rules included"
        )
    _install_command(command_file, dry_run=dry_run)
    if with_statusline:
        _install_statusline(path, long_prefix, force=force, dry_run=dry_run)
    if served is not None and not dry_run:
        _keep_private(path)
        click.echo(
            f"resident mode: hooks post to 127.0.0.1:{served[0]}; the server starts with the "
            "next Claude Code session (or run `arcguard serve &`)"
        )


def _resident_files(scope: str, *, dry_run: bool) -> tuple[int, str]:
    """The resident port and secret (made once, kept in the state directory)."""
    from arcguard.resident import files
    from arcguard.storage import paths

    if scope == "project":
        raise click.UsageError(
            "--resident writes the server's secret into the settings file, and a project's "
            "settings are committed: use --scope user or --scope local"
        )
    try:
        home = paths.state_dir(os.environ)
        if dry_run:
            known = files.port(home), files.secret(home)
            return (known[0] or 0, known[1] or "<new secret>")
        return files.prepare(home)
    except (OSError, paths.UnusablePath) as exc:
        raise click.ClickException(f"cannot prepare resident mode: {exc}") from None


def _keep_private(path: Path) -> None:
    """The settings file now holds the secret: readable by this user alone."""
    import stat

    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
        if mode & 0o077:
            os.chmod(path, mode & 0o700)
            click.echo(f"made {path} readable by you alone (it holds the resident secret)")
    except OSError as exc:
        click.echo(f"warning: could not restrict {path} to you alone: {exc}")


def _refuse_unsupported() -> None:
    from arcguard.storage.support import unsupported

    why = unsupported()
    if why:
        raise click.ClickException(f"{why}: nothing was written")


def _install_statusline(path: Path, prefix: str, *, force: bool, dry_run: bool) -> None:
    from arcguard.claude_settings import statusline_plan as sl

    try:
        outcome = sl.plan(cc.load(path)[0], prefix, force=force)[1]
    except plan.SettingsError as exc:
        raise click.ClickException(f"{exc}\nhint: nothing was written.") from None
    if outcome == sl.KEPT:
        click.echo(
            f"status line in {path} left as it is (not arcguard's): use --force to "
            "replace it, or have it pass its payload on to `arcguard statusline` "
            "(see the README)"
        )
        return
    _apply(
        path,
        lambda s: sl.plan(s, prefix, force=force)[0],
        dry_run=dry_run,
        done="set the status line to arcguard's in {path}",
        nothing="arcguard's status line already set in {path}",
        before_write=lambda current, text: _keep_replaced(path, current, text, prefix),
    )


def _keep_replaced(path: Path, current: Settings, text: str | None, prefix: str) -> None:
    """Before a status line of the user's own is replaced, keep it where uninstall finds it;
    once none is left to give back (the file had no status line), drop what was kept."""
    from arcguard.claude_settings import json_text
    from arcguard.claude_settings import replaced
    from arcguard.claude_settings import statusline_plan as sl

    member = json_text.member_text(text, sl.KEY)
    if sl.KEY not in current:
        try:
            replaced.forget(os.environ, path)
        except replaced.RecordError:
            pass  # an entry left behind is dropped by the next uninstall
        return
    if sl.plan(current, prefix, force=True)[1] != sl.REPLACED or member is None:
        return
    try:
        replaced.keep(os.environ, path, member)
    except replaced.RecordError as exc:
        raise click.ClickException(
            f"cannot keep the status line being replaced: {exc}\nhint: nothing was written."
        ) from None


def _short_prefix(exec_form: bool, *, dry_run: bool) -> str | tuple[str, ...] | None:
    """The short entry form: the launcher file written (not in a dry run) into the state
    directory, and the words that run it, as exec form or as one shell line; None (the
    one-liner is written) where that cannot be done."""
    import shlex

    from arcguard.storage import paths

    try:
        home = paths.state_dir(os.environ)
        launcher_file = os.path.join(home, plan.LAUNCHER_NAME)
        words = plan.short_prefix(sys.executable, launcher_file)
        if words is None:
            return None
        if not dry_run:
            _write_launcher(home, launcher_file, plan.launcher_text(_package_location()))
    except (OSError, paths.UnusablePath) as exc:
        click.echo(f"note: the long entry form is written: no launcher file ({exc})")
        return None
    return words if exec_form else shlex.join(words)


def _write_launcher(home: str, path: str, text: str) -> None:
    """Write the launcher atomically, readable and writable by this user alone, in the state
    directory (made private if new): it is code every hook runs."""
    import contextlib
    import tempfile

    from arcguard.storage import paths

    paths.ensure_dir(home)
    try:
        with open(path, encoding="utf-8") as fh:
            if fh.read() == text:
                return
    except OSError:
        pass
    fd, scratch = tempfile.mkstemp(dir=home, prefix=".hook-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(scratch, 0o600)
        os.replace(scratch, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(scratch)
        raise


def _package_location() -> str:
    """The folder this arcguard package is imported from (what the hook command puts on
    sys.path)."""
    import arcguard

    return os.path.dirname(os.path.dirname(os.path.abspath(arcguard.__file__)))


def _install_command(path: Path, *, dry_run: bool) -> None:
    state = slash.command_state(slash.read_text(path))
    if state == "current":
        click.echo(f"/autonomous command already installed at {path}")
    elif state in ("edited", "foreign"):
        whose = "arcguard's, edited by hand" if state == "edited" else "not arcguard's"
        click.echo(f"/autonomous command at {path} left as it is ({whose})")
    elif dry_run:
        click.echo(f"would install the /autonomous command at {path}")
    else:
        try:
            cc.write(path, slash.command_template())
        except OSError as exc:
            raise click.ClickException(f"cannot write {path}: {exc}") from None
        _remove_backup(path)
        click.echo(f"installed the /autonomous command at {path}")


def _remove_backup(path: Path) -> None:
    # A backup of our own template (an upgrade) is noise in the user's commands folder.
    try:
        path.with_name(path.name + cc.BACKUP_SUFFIX).unlink()
    except OSError:
        pass


@click.command()
@_options
def uninstall(scope: str, project: Path | None, dry_run: bool) -> None:
    """Remove arcguard's hooks and /autonomous command from Claude Code.

    Only arcguard's own entries go (an event left with no hook goes too); other hooks and
    keys stay as they were. A status line of your own that `install --statusline --force`
    replaced is put back as it was. The /autonomous command is deleted only if it is
    arcguard's unchanged template. The state directory is left alone, unless it holds only
    the hook launcher install wrote and no settings file in reach still runs it.

    \b
    Examples:
      arcguard uninstall
      arcguard uninstall --scope local --dry-run
    """
    path, command_file = _target(scope, project)
    if not dry_run and _remove_if_only_ours(path):
        click.echo(f"removed {path}: it held only arcguard's hooks")
    elif path.exists() or path.is_symlink():
        _uninstall_settings(path, dry_run=dry_run)
    else:
        click.echo(f"no arcguard hooks in {path} (no such file)")
    _uninstall_command(command_file, dry_run=dry_run)
    if not dry_run:
        _remove_empty_folders(command_file.parent, path.parent if scope != "user" else None)
        _forget_launcher((project or Path.cwd()).absolute())


def _forget_launcher(root: Path) -> None:
    """Delete the launcher file, and the state directory install made for it, when that
    directory holds nothing else (no hook has run since) and no settings file in reach still
    names the launcher: install then uninstall from nothing leaves nothing. Otherwise it stays:
    another project's entries may run it, and the next install rewrites it anyway."""
    from arcguard.storage import paths

    try:
        home = paths.state_dir(os.environ)
        launcher_file = os.path.join(home, plan.LAUNCHER_NAME)
        if os.listdir(home) != [plan.LAUNCHER_NAME] or _still_named(root, launcher_file):
            return
        os.unlink(launcher_file)
        os.rmdir(home)
    except (OSError, paths.UnusablePath, plan.SettingsError):
        pass


def _still_named(root: Path, launcher_file: str) -> bool:
    for scope in cc.SCOPES:
        settings = cc.load(cc.settings_path(scope, root, os.environ))[0]
        if any(plan.code_location(h) == launcher_file for _, h in plan.our_entries(settings)):
            return True
    return False


def _without_ours(settings: Settings) -> Settings:
    from arcguard.claude_settings import statusline_plan as sl

    return sl.remove(plan.remove_ours(settings))


def _remove_if_only_ours(path: Path) -> bool:
    """Delete a settings file that install wrote from nothing: it holds arcguard's entries and
    nothing else, and no backup shows that it held anything before (a backup holding only
    arcguard's entries is an earlier install's, and goes too). Install then uninstall from no
    file leaves no file; a file that was `{}` before install is written back as `{}`."""
    from arcguard.claude_settings import replaced

    backup = path.with_name(path.name + cc.BACKUP_SUFFIX)
    try:
        if replaced.kept(os.environ, path) is not None:
            return False  # a status line of the user's is to come back into this file
        current, text = cc.load(path)
        if path.is_symlink() or text is None or not current or _without_ours(current):
            return False
        if backup.exists() or backup.is_symlink():
            before = cc.load(backup)[0]
            if not before or _without_ours(before):
                return False
    except (plan.SettingsError, replaced.RecordError, OSError):
        return False
    if not _unlink_if_unchanged(path, text):
        return False
    try:
        backup.unlink()
    except OSError:
        pass
    return True


def _unlink_if_unchanged(path: Path, text: str) -> bool:
    """Delete `path` if it still holds `text`: it is moved aside in one step, then checked, so
    a change Claude Code made meanwhile is put back rather than lost."""
    aside = path.with_name(f"{path.name}.arcguard-removing-{os.getpid()}")
    try:
        os.rename(path, aside)
    except OSError:
        return False
    try:
        same = cc.read_regular(aside) == text.encode("utf-8")
    except (plan.SettingsError, OSError):
        same = False
    if not same:
        try:
            os.link(aside, path)  # fails if a newer file took its place: that one is kept
        except FileExistsError:
            pass
        except OSError:
            os.replace(aside, path)  # no hard links here: put it back as it was
            return False
    os.unlink(aside)
    return same


def _remove_empty_folders(*folders: Path | None) -> None:
    # The folders install created (commands/, a project's .claude/), once nothing is left in
    # them: rmdir removes only an empty folder.
    for folder in folders:
        if folder is not None:
            try:
                folder.rmdir()
            except OSError:
                pass


def _uninstall_settings(path: Path, *, dry_run: bool) -> None:
    """Remove arcguard's entries; a status line `install --force` replaced comes back, byte for
    byte, and its record goes once it is back (or once nothing of arcguard's is left to undo)."""
    from arcguard.claude_settings import json_text
    from arcguard.claude_settings import replaced
    from arcguard.claude_settings import statusline_plan as sl

    theirs: list[str] = []

    def change(settings: Settings) -> Settings:
        theirs[:] = []
        if sl.is_ours(settings.get(sl.KEY)):
            try:
                kept = replaced.kept(os.environ, path)
            except replaced.RecordError as exc:
                raise click.ClickException(
                    f"cannot read the status line arcguard replaced: {exc}\nhint: nothing "
                    "was written; move that file aside to uninstall without restoring it."
                ) from None
            theirs[:] = [kept] if kept is not None else []
        return sl.remove(plan.remove_ours(settings), json_text.loads(theirs[0]) if theirs else None)

    def finish(text: str) -> str:
        return json_text.with_member_text(text, sl.KEY, theirs[0]) if theirs else text

    _apply(
        path,
        change,
        dry_run=dry_run,
        done="removed arcguard hooks from {path}",
        nothing="no arcguard hooks in {path}",
        finish=finish,
    )
    if theirs and not dry_run:
        click.echo(f"put back the status line arcguard had replaced in {path}")
    if not dry_run:
        _forget_replaced(path)


def _forget_replaced(path: Path) -> None:
    from arcguard.claude_settings import replaced
    from arcguard.claude_settings import statusline_plan as sl

    try:
        if not sl.is_ours(cc.load(path)[0].get(sl.KEY)):
            replaced.forget(os.environ, path)
    except (plan.SettingsError, replaced.RecordError):
        pass  # a stale record only waits for the next uninstall


def _uninstall_command(path: Path, *, dry_run: bool) -> None:
    state = slash.command_state(slash.read_text(path))
    if state == "missing":
        return
    if state in ("edited", "foreign"):
        whose = "edited by hand" if state == "edited" else "not arcguard's"
        click.echo(f"/autonomous command at {path} kept ({whose})")
    elif dry_run:
        click.echo(f"would remove the /autonomous command at {path}")
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass  # a parallel uninstall got there first: the result is the same
        click.echo(f"removed the /autonomous command at {path}")
