"""What resident mode leaves once nothing wires it any more: the server, its files, and a
settings backup holding the secret. `uninstall` and a plain `install` (back to the command
hooks) both take it away."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import settings_files as cc


if TYPE_CHECKING:
    from pathlib import Path

    from arcguard.claude_settings.hook_table import Settings


def forget(root: Path, path: Path) -> None:
    """Once no settings file in reach of `root` wires resident mode: stop the server, delete
    its files (the secret included), and a backup of `path` that still holds the secret."""
    from arcguard.resident import files
    from arcguard.storage import paths

    try:
        home = paths.state_dir(os.environ)
        if files.port(home) is None and not files.running(home):
            return
        for scope in cc.SCOPES:
            if _wires_resident(cc.load(cc.settings_path(scope, root, os.environ))[0]):
                return
    except (OSError, paths.UnusablePath, plan.SettingsError):
        return
    if files.forget(home):
        click.echo(f"stopped resident mode: removed its server and secret from {home}")
    backup = path.with_name(path.name + cc.BACKUP_SUFFIX)
    try:
        if files.SECRET_ENV.encode() in (cc.read_regular(backup) or b""):
            backup.unlink()
            click.echo(f"removed {backup}: it held the resident secret")
    except (OSError, plan.SettingsError):
        pass


def _wires_resident(settings: Settings) -> bool:
    return any(plan.resident_port(h) is not None for _, h in plan.all_entries(settings))
