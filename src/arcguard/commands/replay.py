"""`arcguard replay PATH...`: what arcguard would have decided on recorded sessions."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from arcguard.commands.common import json_option


if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    T = TypeVar("T")


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@json_option
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    help="Use this config file instead of your own.",
)
@click.option(
    "--subprocess",
    "as_subprocess",
    is_flag=True,
    help="Run each hook as a subprocess, as Claude Code does (slower; on this machine's clock).",
)
@click.option(
    "--wall-clock",
    is_flag=True,
    help="Run the hooks on this machine's clock instead of the transcript's timestamps.",
)
@click.option(
    "--arc",
    is_flag=True,
    help="Replay as if each session's first prompt had started an arc (/autonomous).",
)
@click.option(
    "--summary",
    "force_summary",
    is_flag=True,
    help="Print the per-file summary even for a single transcript.",
)
def replay(
    paths: tuple[str, ...],
    as_json: bool,
    config_path: str | None,
    as_subprocess: bool,
    wall_clock: bool,
    arc: bool,
    force_summary: bool,
) -> None:
    """Show what arcguard would have done on recorded sessions, before you enable it.

    The hook events Claude Code would have sent are rebuilt from each transcript and run
    through the real hooks, on the transcript's clock, with a throwaway state directory;
    nothing of yours is touched. PATHS are transcript files or folders (searched for
    *.jsonl). With more than one session (or --summary) a summary follows: per file the tool
    calls, turns and decisions by kind, then the totals and the interventions per 1,000 tool
    calls.
    """
    from functools import partial

    from arcguard import jsonio
    from arcguard.commands.printable import printable
    from arcguard.replay import replay as run_replay
    from arcguard.replay import summary
    from arcguard.replay.timeline import render

    executor = "subprocess" if as_subprocess else "in-process"
    one = partial(
        run_replay,
        executor=executor,
        config_path=config_path,
        arc=arc,
        recorded_time=not (wall_clock or as_subprocess),
    )
    results = replay_paths(paths, "replaying", one)
    if len(results) == 1 and not force_summary:
        only = results[0]
        click.echo(jsonio.dumps_pretty(only.as_dict()) if as_json else printable(render(only)))
        return
    data = summary.summarise(results)
    click.echo(jsonio.dumps_pretty(data) if as_json else printable(summary.render(data)))


def replay_paths(paths: tuple[str, ...], label: str, replay_one: Callable[[str], T]) -> list[T]:
    """Replay every transcript under `paths` (`replay_one` each), with a bar on stderr over
    several; a path that is not a regular file is skipped with a message, and none at all is
    a usage error."""
    from arcguard.commands import named_inputs
    from arcguard.commands.printable import printable
    from arcguard.replay import summary
    from arcguard.storage import regular_file

    named_inputs.check(paths)
    refused: list[str] = []
    files = summary.transcripts(paths, refused)
    for line in refused:
        click.echo(printable(line), err=True)
    if not files:
        raise click.UsageError("no transcript (*.jsonl) under the given paths")
    # A bar on stderr for a run over several files, only on a terminal: piped, stderr stays
    # empty (click would still print the label).
    quiet = len(files) < 2 or not sys.stderr.isatty()
    results: list[T] = []
    with click.progressbar(files, label=label, file=sys.stderr, show_pos=True, hidden=quiet) as bar:
        for path in bar:
            try:
                results.append(replay_one(path))
            except regular_file.Refused as exc:  # replaced by something else since listed
                click.echo(printable(f"skipped {exc}"), err=True)
    if not results:
        raise click.UsageError("no readable transcript under the given paths")
    return results
