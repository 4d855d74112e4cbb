"""`arcguard doctor`: is arcguard wired into Claude Code, does it run, is its state healthy?"""

from __future__ import annotations

import os
from pathlib import Path

import click

from arcguard.commands.common import json_option
from arcguard.doctor import run_checks
from arcguard.doctor.model import GAP
from arcguard.doctor.model import OK
from arcguard.doctor.model import Check
from arcguard.doctor.reading import read_setup


def render(results: list[Check]) -> str:
    lines = []
    for result in results:
        lines.append(f"{result.status:<4}  {result.name}: {result.detail}")
        if result.hint and result.status != OK:
            lines.append(f"      hint: {result.hint}")
    return "\n".join(lines)


@click.command()
@json_option
@click.option(
    "--project",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Project whose .claude settings to check (default: the current directory).",
)
@click.pass_context
def doctor(ctx: click.Context, as_json: bool, project: Path | None) -> None:
    """Check that arcguard is wired into Claude Code, runs, and has healthy state.

    One line per check: ok, warn (worth knowing), skip (a command it chose not to run) or gap
    (arcguard is not doing its job here), with a hint for each problem. It runs each wired
    hook once on a test payload (not one whose code lies inside the project). Exits 1 when
    there is any gap.

    \b
    Examples:
      arcguard doctor
      arcguard doctor --project ~/src/app
      arcguard doctor --json | jq '.checks[] | select(.status != "ok")'
    """
    import json

    from arcguard.storage.support import unsupported

    why = unsupported()
    if why:
        results = [Check("platform", GAP, f"{why}: nothing was checked", "")]
    else:
        setup = read_setup(
            (project or Path.cwd()).absolute(), dict(os.environ), given=project is not None
        )
        results = run_checks(setup)
    failed = any(r.status == GAP for r in results)
    if as_json:
        click.echo(
            json.dumps(
                {"schema": 1, "ok": not failed, "checks": [r._asdict() for r in results]}, indent=2
            )
        )
    else:
        from arcguard.commands.printable import printable

        click.echo(printable(render(results)))
    ctx.exit(1 if failed else 0)
