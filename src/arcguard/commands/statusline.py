"""`arcguard statusline --help`: the status line command itself runs without click."""

from __future__ import annotations

import click


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
def statusline() -> int:
    """Print arcguard's segment of Claude Code's status line for the payload on stdin.

    One short line (the arc, its milestones and continuations, a pause, denials, a wait for
    an API limit), or nothing. It also keeps the payload's rate-limit reset times for
    `hook limit-wait`.

    \b
    Examples:
      arcguard install --statusline
      echo '{"session_id": "3f2a9c1e"}' | arcguard statusline
    """
    from arcguard.hooks.statusline import main

    return main()
