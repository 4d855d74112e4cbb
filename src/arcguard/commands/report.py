"""`arcguard report [PATH...] [--html FILE] [--redact]`: each session's timeline with what
arcguard decided on it, in the terminal or as one self-contained HTML page."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click


if TYPE_CHECKING:
    from collections.abc import Mapping

    from arcguard.report.session import SessionReport


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False),
    help="Write the report as one self-contained HTML page to FILE.",
)
@click.option("--redact", is_flag=True, help="Leave out every message text; keep the shape.")
@click.option(
    "--arc",
    is_flag=True,
    help="Replay as if each session's first prompt had started an arc (/autonomous).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    help="Use this config file instead of your own.",
)
def report(
    paths: tuple[str, ...], html_path: str | None, redact: bool, arc: bool, config_path: str | None
) -> None:
    """Show each session as a timeline, with what arcguard decided (or would have) on it.

    PATHS are transcript files or folders (default: ~/.claude/projects). Per session: the
    prompts, the model's words and tool calls by turn, with what happened as recorded; beside
    them, arcguard's decisions from a replay, each with what happened next and whether it
    looks right or costly. Then the totals. Secrets are masked; --redact leaves every message
    text out. Colour only on a terminal, and never with NO_COLOR set.
    """
    from functools import partial

    from arcguard.commands.forensics import default_root
    from arcguard.commands.replay import replay_paths
    from arcguard.report import text
    from arcguard.report.session import totals

    one = partial(_session, config_path=config_path, arc=arc)
    reports = replay_paths(paths or (default_root(),), "reading sessions", one)
    summed = totals(reports)
    if html_path is not None:
        from arcguard.report import html
        from arcguard.storage.atomic import atomic_write

        page = html.page(reports, summed, redacted=redact).encode("utf-8")
        try:
            atomic_write(html_path, page)  # private like the state (0600): it holds their text
        except OSError as exc:
            raise click.FileError(html_path, hint=exc.strerror or str(exc)) from exc
        click.echo("\n".join(text.total_lines(summed, text.plain)))
        click.echo(f"wrote {html_path}", err=True)
        return
    colour = wants_colour(sys.stdout.isatty(), os.environ)
    paint = _paint if colour else text.plain
    click.echo(text.render(reports, summed, redacted=redact, paint=paint), color=colour)


def wants_colour(tty: bool, environ: Mapping[str, str]) -> bool:
    """Colour on a terminal only, and never with NO_COLOR set to anything but empty."""
    return tty and not environ.get("NO_COLOR")


def _session(path: str, *, config_path: str | None, arc: bool) -> SessionReport:
    import orjson

    from arcguard.replay import replay
    from arcguard.report.session import build

    result = replay(path, config_path=config_path, arc=arc, recorded_time=True)
    return build(path, result, orjson.loads, arc=arc)


def _paint(text: str, colour: str) -> str:
    if colour == "bold":
        return click.style(text, bold=True)
    return click.style(text, fg=colour)
