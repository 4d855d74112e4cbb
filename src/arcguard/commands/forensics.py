"""`arcguard forensics [PATH...]`: measure stalls and loops over Claude Code transcripts."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from arcguard.commands.common import config
from arcguard.commands.common import json_option


if TYPE_CHECKING:
    from collections.abc import Callable

# Below this much data the scan is over before a progress bar would help.
PROGRESS_MIN_BYTES = 64 * 1024 * 1024


def default_root() -> str:
    base = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    return os.path.join(base, "projects")


def parse_since(value: str | None) -> float | None:
    if value is None:
        return None
    from arcguard.core.state import parse_iso

    text = value.strip()
    stamp = parse_iso(text if "T" in text else text + "T00:00:00Z")
    if stamp is None:
        raise click.BadParameter(f"{value!r} is not a date (YYYY-MM-DD)", param_hint="--since")
    return stamp


def _progress() -> Callable[[int, int], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        if total < PROGRESS_MIN_BYTES:
            return
        end = "\n" if done >= total else ""
        sys.stderr.write(
            f"\rscanning {done / 1e6:.0f} / {total / 1e6:.0f} MB"
            f" ({100 * done // max(total, 1)}%){end}"
        )
        sys.stderr.flush()

    return show


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@json_option
@click.option(
    "--since", metavar="DATE", help="Only transcripts modified on or after DATE (YYYY-MM-DD, UTC)."
)
def forensics(paths: tuple[str, ...], as_json: bool, since: str | None) -> None:
    """Measure stalls and loops in Claude Code transcripts and suggest thresholds.

    PATHS are transcript files or folders (default: ~/.claude/projects). Suggested thresholds
    are printed next to the current config and never applied. --json prints aggregates only.
    """
    from arcguard import jsonio
    from arcguard.commands import named_inputs
    from arcguard.commands.printable import printable
    from arcguard.forensics import scan_paths
    from arcguard.forensics.text_report import render

    named_inputs.check(paths)
    cfg = config()
    report = scan_paths(
        list(paths) or [default_root()], cfg, since=parse_since(since), progress=_progress()
    )
    data = report.as_dict(dict(cfg.as_dict()))
    click.echo(jsonio.dumps_pretty(data) if as_json else printable(render(data)))
