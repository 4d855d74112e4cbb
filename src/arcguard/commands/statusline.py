"""`arcguard statusline --help`: the status line command itself runs without click."""

from __future__ import annotations

import click


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
def statusline() -> int:
    """Print arcguard's segment of Claude Code's status line for the payload on stdin.

    One short line: the arc and its milestones done/total, continuations spent in a row and
    in the arc, a pause or repeated calls denied, a pending wait for an API limit; nothing
    for a session with no arc and nothing to report. It also keeps the payload's rate-limit
    reset times for `hook limit-wait`. `arcguard install --statusline` wires it.

    \b
    Examples:
      arcguard install --statusline
      echo '{"session_id": "3f2a9c1e"}' | arcguard statusline
    """
    from arcguard.hooks.statusline import main

    return main()
