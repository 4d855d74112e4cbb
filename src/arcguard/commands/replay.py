"""`arcguard replay TRANSCRIPT`: what arcguard would have decided on a recorded session."""

from __future__ import annotations

import click

from arcguard.commands.common import json_option


@click.command()
@click.argument("transcript", type=click.Path(exists=True, dir_okay=False))
@json_option
@click.option("--config", "config_path", type=click.Path(dir_okay=False),
              help="Use this config file instead of your own.")
@click.option("--subprocess", "as_subprocess", is_flag=True,
              help="Run each hook as a subprocess, exactly as Claude Code does (slower).")
def replay(transcript: str, as_json: bool, config_path: str | None,
           as_subprocess: bool) -> None:
    """Show what arcguard would have done on a recorded session, before you enable it.

    The hook events Claude Code would have sent (prompts, tool calls and results, turn ends)
    are rebuilt from TRANSCRIPT and run through the real hooks with a throwaway state
    directory; nothing of yours is touched. Decisions that would have changed the session are
    reported while the recorded events keep coming; a pause ends the replay.
    """
    from arcguard import jsonio
    from arcguard.replay import replay as run_replay
    from arcguard.replay.timeline import render

    result = run_replay(transcript, executor="subprocess" if as_subprocess else "in-process",
                        config_path=config_path)
    click.echo(jsonio.dumps_pretty(result.as_dict()) if as_json else render(result))
