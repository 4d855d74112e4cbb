"""`arcguard install`: wire arcguard into Claude Code (`uninstall.py` takes it out again)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arcguard import hook_image
from arcguard.claude_settings import launch_forms
from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import settings_files as cc
from arcguard.claude_settings import slash_command as slash
from arcguard.commands import install_plan
from arcguard.commands.settings_edit import apply
from arcguard.commands.settings_edit import scope_options
from arcguard.commands.settings_edit import target


if TYPE_CHECKING:
    from arcguard.claude_settings.hook_table import Settings


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
    events, notes = install_plan.known_events(version, why)
    return events, notes, cv.runs_exec_form(version)


@click.command()
@scope_options
@click.option(
    "--claude-version",
    "claude_version",
    default=None,
    metavar="X.Y.Z",
    help="The Claude Code release to write for (default: ask `claude --version`).",
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
    help="Resident mode: http hooks to one loopback `arcguard serve` per user instead of a "
    "process per hook. User or local scope only. Each run makes a new secret.",
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
    other key and hook, and writes the /autonomous command next to it; the previous file is
    kept as settings.json.arcguard.bak, and one that is not valid JSON is never touched. Safe
    to re-run. Only the events the installed Claude Code release knows are written: it ignores
    a whole settings file that names one it does not.

    \b
    Examples:
      arcguard install                       # every session of this user
      arcguard install --scope local         # this project, not committed
      arcguard install --scope project --dry-run
      arcguard install --resident            # http hooks to a resident server
    """
    _refuse_unsupported()
    path, command_file = target(scope, project)
    long_prefix = launch_forms.own_prefix(sys.executable, hook_image.package_location())
    if resident:
        _refuse_checkout(scope, path)
    served = _resident_files(scope, dry_run=dry_run) if resident else None
    events, notes, exec_form = _events_for(claude_version)
    prefix = _short_prefix(exec_form, dry_run=dry_run) or long_prefix
    wired = [install_plan.Wiring(settings={}, lookalikes=(), still=())]

    def change(settings: Settings) -> Settings:
        wired[0] = install_plan.wire(settings, prefix, events, served)
        return wired[0].settings

    was_shared = _shared_mode(path) if served is not None else False
    apply(
        path,
        change,
        dry_run=dry_run,
        done="installed arcguard hooks in {path}",
        nothing="arcguard hooks already installed in {path}",
        private=served is not None,
    )
    for line in install_plan.notices(path, wired[0], notes):
        click.echo(line)
    _install_command(command_file, dry_run=dry_run)
    if with_statusline:
        _install_statusline(path, long_prefix, force=force, dry_run=dry_run)
    if not dry_run:
        _resident_after(path, served, was_shared=was_shared, project=project)


def _resident_after(
    path: Path, served: tuple[int, str] | None, *, was_shared: bool, project: Path | None
) -> None:
    """Resident mode installed: say so. Not (any more): take away what it leaves."""
    if served is not None:
        _resident_written(path, served[0], was_shared=was_shared)
        return
    from arcguard.commands import resident_left

    resident_left.forget((project or Path.cwd()).absolute(), path)


def _resident_files(scope: str, *, dry_run: bool) -> tuple[int, str]:
    """The resident port (chosen once) and a new secret, both kept in the state directory."""
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
            return (files.port(home) or 0, "<new secret>")
        # The server reads this config file whichever session starts it (see resident.server).
        return files.prepare(home, paths.config_path(os.environ))
    except (OSError, paths.UnusablePath) as exc:
        raise click.ClickException(f"cannot prepare resident mode: {exc}") from None


def _refuse_checkout(scope: str, path: Path) -> None:
    """Refuse --resident where the settings file is (or links to) a file in a git checkout, a
    dotfiles repository say: the secret would be committed with it, as with project scope.
    A local-scope file is Claude Code's own uncommitted file, inside a checkout by design."""
    if scope == "local":
        return
    real = Path(os.path.realpath(path))
    for folder in real.parents:
        if (folder / ".git").exists():
            link = f" (a link to {real})" if path.is_symlink() else ""
            raise click.UsageError(
                f"--resident writes the server's secret into {path}{link}, which is in the git "
                f"checkout {folder}: it would be committed with it. Make {path} a plain file "
                "outside any checkout, or use --scope local in a project"
            )


def _shared_mode(path: Path) -> bool:
    """Whether the settings file is readable by others now (it will not be once written)."""
    try:
        return bool(os.stat(path).st_mode & 0o077)
    except OSError:
        return False


def _resident_written(path: Path, port: int, *, was_shared: bool) -> None:
    from arcguard.resident import files
    from arcguard.storage import paths

    if was_shared:
        click.echo(f"made {path} readable by you alone (it holds the resident secret)")
    try:
        stopped = files.stop(paths.state_dir(os.environ))
    except (OSError, paths.UnusablePath):
        stopped = False
    if stopped:
        click.echo(
            "stopped the running server: it had the old secret (sessions already open keep "
            "the old one: restart them)"
        )
    click.echo(
        f"resident mode: hooks post to 127.0.0.1:{port} with a new secret; the server starts "
        "with the next Claude Code session (or run `arcguard serve &`)"
    )


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
    apply(
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
        launcher_file = os.path.join(home, launch_forms.LAUNCHER_NAME)
        words = launch_forms.short_prefix(sys.executable, launcher_file)
        if words is None:
            return None
        if not dry_run:
            image = os.path.join(home, hook_image.IMAGE_NAME)
            text = launch_forms.launcher_text(hook_image.package_location(), image)
            _write_launcher(home, launcher_file, text)
            _write_image(image)
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
            found = os.fstat(fh.fileno())
            # The entries' stub refuses a file that is not this user's alone: rewrite that too.
            if found.st_uid == os.getuid() and found.st_mode & 0o777 == 0o600 and fh.read() == text:
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


def _write_image(path: str) -> None:
    """The code image the launcher loads arcguard from (`hook_image`); without it the hooks
    import module by module: slower, the same decisions. A current one is left as it is."""
    if hook_image.stale(path) is None:
        return
    try:
        hook_image.write(path)
    except hook_image.ImageError as exc:
        click.echo(f"note: {exc}; the hooks import arcguard module by module (slower)")


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
