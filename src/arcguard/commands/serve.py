"""`arcguard serve`: the resident server for http hooks (see `arcguard install --resident`)."""

from __future__ import annotations

import os

import click


@click.command()
def serve() -> None:
    """Answer Claude Code's http hooks from one resident process (resident mode).

    Listens on 127.0.0.1 at the port `arcguard install --resident` chose, answers only
    requests that carry this user's secret, and runs the same code and state as the command
    hooks. One server per user; it exits after `resident_idle_seconds` without a request, and
    the SessionStart hook starts it again.

    \b
    Examples:
      arcguard serve &            # start it by hand
    """
    from arcguard.resident import files
    from arcguard.resident import server
    from arcguard.storage import paths

    def say_where(running: server.Running) -> None:
        # Started by hand, the user sees what runs and where to look; started by the
        # SessionStart hook, this goes nowhere.
        click.echo(
            f"arcguard serve: answering Claude Code's http hooks for {home} at "
            f"http://{files.HOST}:{running.port}/hook/<event> (pid {os.getpid()}); "
            f"errors go to {paths.error_log(home)}; it exits after "
            f"{running.idle_s:g} s without a request, or on Ctrl-C"
        )

    try:
        home = paths.state_dir(os.environ)
        server.serve(home, os.environ, ready=say_where)
    except server.AlreadyRunning as exc:
        click.echo(f"arcguard serve: {exc}; nothing to do")
    except files.NotInstalled as exc:
        raise click.ClickException(str(exc)) from None
    except (OSError, paths.UnusablePath) as exc:
        raise click.ClickException(f"cannot serve: {exc}") from None
