"""`arcguard uninstall`: take arcguard's entries out of Claude Code's settings, and what
install wrote for them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arcguard import hook_image
from arcguard.claude_settings import launch_forms
from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import settings_files as cc
from arcguard.claude_settings import slash_command as slash
from arcguard.commands import resident_left
from arcguard.commands.settings_edit import apply
from arcguard.commands.settings_edit import scope_options
from arcguard.commands.settings_edit import target


if TYPE_CHECKING:
    from arcguard.claude_settings.hook_table import Settings


@click.command()
@scope_options
def uninstall(scope: str, project: Path | None, dry_run: bool) -> None:
    """Remove arcguard's hooks and /autonomous command from Claude Code.

    Only arcguard's own entries go; other hooks and keys stay, and a status line that
    `install --statusline --force` replaced is put back. The /autonomous command goes only
    if unchanged. Once nothing wires resident mode, its server is stopped and its files are
    deleted. The state directory stays, unless it holds only the hook launcher install wrote
    and nothing runs it any more.

    \b
    Examples:
      arcguard uninstall
      arcguard uninstall --scope local --dry-run
    """
    path, command_file = target(scope, project)
    if not dry_run and _remove_if_only_ours(path):
        click.echo(f"removed {path}: it held only arcguard's hooks")
    elif path.exists() or path.is_symlink():
        _uninstall_settings(path, dry_run=dry_run)
    else:
        click.echo(f"no arcguard hooks in {path} (no such file)")
    _uninstall_command(command_file, dry_run=dry_run)
    if not dry_run:
        _remove_empty_folders(command_file.parent, path.parent if scope != "user" else None)
        root = (project or Path.cwd()).absolute()
        resident_left.forget(root, path)
        _forget_launcher(root)


# What install writes into the state directory: the launcher and the code image beside it.
LAUNCHER = {launch_forms.LAUNCHER_NAME, hook_image.IMAGE_NAME}


def _forget_launcher(root: Path) -> None:
    """Delete the launcher file and its code image, and the state directory install made for
    them, when that directory holds nothing else (no hook has run since) and no settings file
    in reach still names the launcher: install then uninstall from nothing leaves nothing.
    Otherwise they stay: another project's entries may run them, and the next install rewrites
    them anyway."""
    from arcguard.storage import paths

    try:
        home = paths.state_dir(os.environ)
        launcher_file = os.path.join(home, launch_forms.LAUNCHER_NAME)
        left = set(os.listdir(home))
        if launch_forms.LAUNCHER_NAME not in left or left - LAUNCHER:
            return
        if _still_named(root, launcher_file):
            return
        # The image first: a launcher without its image still runs the hooks, not the reverse.
        for name in (hook_image.IMAGE_NAME, launch_forms.LAUNCHER_NAME):
            if name in left:
                os.unlink(os.path.join(home, name))
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

    apply(
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
