"""Load a Claude Code settings file, change it, then print the diff or write it: what
`arcguard install` and `arcguard uninstall` share, with their common options."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import settings_files as cc
from arcguard.claude_settings import slash_command as slash


if TYPE_CHECKING:
    from collections.abc import Callable

    from arcguard.claude_settings.hook_table import Settings


def scope_options(command: Callable[..., None]) -> Callable[..., None]:
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


def target(scope: str, project: Path | None) -> tuple[Path, Path]:
    root = (project or Path.cwd()).absolute()
    return (
        cc.settings_path(scope, root, os.environ),
        cc.commands_dir(scope, root, os.environ) / slash.COMMAND_NAME,
    )


# How often a merge is redone when the file changes under it before giving up.
WRITE_ATTEMPTS = 8


def apply(
    path: Path,
    change: Callable[[Settings], Settings],
    *,
    dry_run: bool,
    done: str,
    nothing: str,
    finish: Callable[[str], str] | None = None,
    before_write: Callable[[Settings, str | None], None] | None = None,
    private: bool = False,
) -> None:
    """Load `path`, apply `change`, then print the diff (dry run) or write it with a backup.

    `finish` may adjust the new text (without changing what it means); `before_write` runs
    with the settings and text being replaced, right before they are, never in a dry run.
    The merge is redone from the new content whenever the file changed between reading and
    replacing it, a bounded number of times. `private`: the new text holds a secret, so the
    file (and its backup) are written readable by this user alone.
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
            backup = cc.write_if_unchanged(path, rendered, text, private=private)
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
