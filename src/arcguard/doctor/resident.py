"""Doctor's check of resident mode: the server runs, on the port and with the secret the
settings name (a mismatch would make every hook fail or get 403)."""

from __future__ import annotations

import os

from arcguard.doctor.model import Check
from arcguard.doctor.model import Setup
from arcguard.doctor.model import gap
from arcguard.doctor.model import ok
from arcguard.doctor.model import warn
from arcguard.doctor.wiring import resident_entries
from arcguard.resident import files


NAME = "resident"


def check_resident(setup: Setup) -> list[Check]:
    wired = resident_entries(setup)
    if not wired:
        return []
    found = []
    port, secret = files.port(setup.home), files.secret(setup.home)
    ports = sorted({p for _, _, p in wired})
    if port is None or secret is None or ports != [port]:
        held = f"port {port}" if port is not None and secret is not None else "no port or secret"
        found.append(
            gap(
                NAME,
                f"http hooks post to port {', '.join(map(str, ports))}, but {setup.home} "
                f"holds {held}",
                "arcguard install --resident",
            )
        )
    if secret is not None and _tokens(setup, {where for where, _, _ in wired}) != {secret}:
        found.append(
            gap(
                NAME,
                f"the {files.SECRET_ENV} in the settings is not the server's secret: every "
                "hook would get 403",
                "arcguard install --resident",
            )
        )
    found.append(_server(setup, port))
    return found + _ignored(setup)


def _ignored(setup: Setup) -> list[Check]:
    """A project's `ARCGUARD_*` settings, which resident mode does not apply (see
    `resident.server.served_environ` for why)."""
    from arcguard.doctor.trust import project_variables

    config = files.config(setup.home) or "the default config file"
    return [
        warn(
            NAME,
            f"{name} set by {path} (env) is ignored in resident mode: one server answers "
            f"every project, with the settings of {config} only",
            "put the setting in that config file, or use the command hooks "
            "(`arcguard install`), which apply a project's settings to its own sessions",
        )
        for path, name in project_variables(setup)
        if name.startswith("ARCGUARD_")
    ]


def _tokens(setup: Setup, scopes: set[str]) -> set[object]:
    """The secrets the `env` blocks of `scopes` give the hooks (None for a block without one)."""
    return {
        env.get(files.SECRET_ENV)
        for scope in scopes
        if isinstance(env := setup.loaded[scope].get("env"), dict)
    }


def _server(setup: Setup, port: int | None) -> Check:
    info = files.server_info(setup.home)
    text = files.describe(setup.home) or files.NOT_RUNNING
    if info is not None:
        if files.stale(info):
            return warn(NAME, text, "start a new Claude Code session: it starts the new server")
        return ok(NAME, text)
    if port is not None and _listening(port):
        return gap(
            NAME,
            f"resident mode: server not running, and another process listens on "
            f"127.0.0.1:{port}: Claude Code would send your hooks, and the secret, to it",
            "find it (ss -ltnp), or take a new port: rm "
            f"{os.path.join(setup.home, files.SETTINGS_NAME)} && arcguard install --resident",
        )
    # Not a gap: this is the state right after install, and after the idle exit; the next
    # session's SessionStart hook starts it. Sessions open meanwhile run unguarded, hence warn.
    return warn(NAME, WAITING, "arcguard serve &  (or start a new Claude Code session)")


WAITING = (
    "resident mode: server not running now; the next Claude Code session starts it (until "
    "then, sessions already open run without arcguard)"
)


def _listening(port: int) -> bool:
    import socket

    try:
        with socket.create_connection((files.HOST, port), timeout=0.5):
            return True
    except OSError:
        return False
