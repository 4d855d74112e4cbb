"""SessionStart in resident mode: start the resident server if none runs, then do what the
`session-start` hook does.

Claude Code does not send http hooks for SessionStart, and a server is needed before the
session's first http hook, so this one stays a command hook. The server is a detached process
of its own; the hook waits only until it listens (the session's first prompt is posted right
after this hook ends, and a refused connection would lose it), within a bound.
"""

from __future__ import annotations

import os

from arcguard.hooks import session_start


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.render import Output
    from arcguard.hooks.runner import Context
    from arcguard.jsonio import JSONObject


def serve_argv() -> list[str]:
    """How to start `arcguard serve` with this interpreter and this package, isolated."""
    from arcguard import child

    return child.python_argv("arcguard", "serve")


# How long the hook waits for a server it started to listen, and how often it looks.
READY_WAIT_S = 1.5
READY_POLL_S = 0.01


def ensure_server(home: str, environ: dict[str, str] | os._Environ[str], wait_s: float) -> bool:
    """Start a detached server unless one runs, and wait up to `wait_s` for it to listen;
    True if one was started."""
    from arcguard.resident import files

    port = files.port(home)
    if port is None:
        return False
    if files.running(home):
        info = files.server_info(home)  # None: it is starting and has not written it yet
        if info is None or not files.stale(info):
            return False
        files.stop(home, wait_s)  # it runs other code: the installed code takes its place
    import subprocess
    import time

    from arcguard import child

    subprocess.Popen(
        serve_argv(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(environ),
        cwd=child.working_directory(home),
        close_fds=True,
        start_new_session=True,  # outlives the hook and the session's process group
    )
    deadline = time.monotonic() + wait_s
    # Listening, and its server.json written: `status` right after this hook tells the truth.
    while time.monotonic() < deadline and not (_listening(port) and files.server_info(home)):
        time.sleep(READY_POLL_S)
    return True


def _listening(port: int) -> bool:
    import socket

    from arcguard.resident import files

    try:
        with socket.create_connection((files.HOST, port), timeout=0.2):
            return True
    except OSError:
        return False


def handle(payload: JSONObject, ctx: Context) -> Output | None:
    """Start the server, then hand the payload, unread, to `session_start`."""
    try:
        ensure_server(ctx.home, ctx.environ, ctx.wait_left(READY_WAIT_S))
    except Exception as exc:
        from arcguard.storage import error_log

        error_log.log_line(ctx.home, "hook serve-start", f"server not started: {exc}")
    from arcguard.storage import store

    # The server runs even while `arcguard off` holds decisions back: it answers every hook
    # of the session, and answers nothing while the switch is off.
    if store.switched_off(ctx.home, payload.get("session_id")):
        return None
    return session_start.handle(payload, ctx)
