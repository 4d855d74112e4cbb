"""Run the click CLI in process, the way the command tests do."""

from __future__ import annotations

from click.testing import CliRunner
from click.testing import Result

from arcguard.commands.group import cli


def invoke(*args: str) -> Result:
    """`arcguard ARGS...` in process; exceptions propagate so a crash shows its traceback."""
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)
