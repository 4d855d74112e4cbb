"""What several verbs share: the state dir, the config, the clock, locked updates."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

import click

from arcguard.storage import paths
from arcguard.storage import store


if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    from arcguard.core.config import Config
    from arcguard.core.state import State
    from arcguard.storage.switch import Switch

    T = TypeVar("T")


def home() -> str:
    try:
        return paths.state_dir(os.environ)
    except paths.UnusablePath as exc:
        raise click.ClickException(str(exc)) from None


def config() -> Config:
    from arcguard.storage.config_file import load_config

    try:
        return load_config(os.environ)[0]
    except paths.UnusablePath as exc:
        raise click.ClickException(str(exc)) from None


def now() -> float:
    return time.time()


def locked_update(
    session_id: str, change: Callable[[State | None], tuple[State | None, T]], *, at: float
) -> T:
    """`store.update` for verbs: a generous wait, errors as click errors."""
    try:
        return store.update(home(), session_id, change, now=at, lock_timeout=10.0)
    except OSError as exc:
        raise click.ClickException(f"cannot update the state of {session_id}: {exc}") from exc


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")

session_switch_option = click.option(
    "--session",
    "session_id",
    metavar="ID",
    help="Only this session (its full id).",
)


def turn_switch(session_id: str | None, *, off: bool) -> Switch:
    """`arcguard off` (`off`) or `arcguard on`, for one session or every one."""
    from arcguard.storage import switch

    if session_id is not None and not session_id.strip():
        raise click.BadParameter("give a session id", param_hint="--session")
    try:
        return switch.write(home(), session_id, off=off)
    except OSError as exc:
        raise click.ClickException(f"cannot write the switch: {exc}") from None
