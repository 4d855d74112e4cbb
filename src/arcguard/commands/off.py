"""`arcguard off [--session ID]`: hold arcguard's decisions back, everywhere or in one session."""

from __future__ import annotations

import click

from arcguard.commands.common import session_switch_option
from arcguard.commands.common import turn_switch
from arcguard.commands.printable import printable
from arcguard.storage import switch


@click.command()
@session_switch_option
def off(session_id: str | None) -> None:
    """Switch arcguard's decisions off, for every session or for one.

    The hooks stay wired but decide and record nothing until `arcguard on`. To switch only
    the loop guard off, set `loop_guard` instead.

    \b
    Examples:
      arcguard off
      arcguard off --session 3f2a9c1e-5b7d-4c1a-9e2f-0a1b2c3d4e5f
    """
    click.echo(printable(switch.announce(turn_switch(session_id, off=True), session_id)))
