"""`arcguard on [--session ID]`: let arcguard decide again, everywhere or in one session."""

from __future__ import annotations

import click

from arcguard.commands.common import session_switch_option
from arcguard.commands.common import turn_switch
from arcguard.commands.printable import printable
from arcguard.storage import switch


@click.command()
@session_switch_option
def on(session_id: str | None) -> None:
    """Switch arcguard's decisions back on, for every session or for one.

    Without --session, every session is on again; with it, only that one.

    \b
    Examples:
      arcguard on
      arcguard on --session 3f2a9c1e-5b7d-4c1a-9e2f-0a1b2c3d4e5f
    """
    click.echo(printable(switch.announce(turn_switch(session_id, off=False), session_id)))
