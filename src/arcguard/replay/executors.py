"""Two ways to run a hook on a payload: in this process, or as Claude Code runs it.

Both get the same environment (a throwaway `ARCGUARD_HOME`, the chosen config) and return the
hook's stdout text (or None), so a test can prove they decide alike.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import arcguard
from arcguard import child
from arcguard.values import value


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping

    from arcguard.core.config import Config

SUBPROCESS_TIMEOUT_S = 30


def hook_environment(
    home: str, config_path: str | None, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    environ = dict(os.environ if base is None else base)
    environ["ARCGUARD_HOME"] = home
    if config_path is not None:
        # Made absolute here: a relative ARCGUARD_CONFIG is refused (it would follow the cwd).
        environ["ARCGUARD_CONFIG"] = os.path.abspath(config_path)
    environ.pop("ARCGUARD_DEBUG", None)
    return environ


def own_command() -> str:
    """How a hook run as `python -m arcguard` names arcguard in its messages."""
    from arcguard.hooks.runner import own_command as hook_command

    # Under `-m`, a hook's argv[0] is the package's __main__.py.
    main_py = os.path.join(os.path.dirname(arcguard.__file__), "__main__.py")
    return hook_command(main_py, sys.executable)


@value
class InProcess:
    """Calls the hook runner's `dispatch`, with the same config and state dir a hook would use.
    `at`: the hooks' clock, the event's recorded time when the replay follows it (None: now)."""

    environ: dict[str, str]
    home: str
    cfg: Config
    at: float | None = None
    name = "in-process"

    @classmethod
    def for_environment(cls, environ: dict[str, str]) -> InProcess:
        from arcguard.storage.config_file import load_config

        cfg, _ = load_config(environ)
        return cls(environ, environ["ARCGUARD_HOME"], cfg)

    def run(self, hook: str, raw: bytes) -> str | None:
        from arcguard.hooks.runner import Context
        from arcguard.hooks.runner import dispatch

        now = time.time() if self.at is None else self.at
        ctx = Context.begin(hook, self.home, self.cfg, now, own_command(), self.environ)
        return dispatch(hook, raw, ctx)


@value
class Subprocess:
    """Runs `python -m arcguard hook NAME` with the payload on stdin, as Claude Code would,
    isolated and in the replay's scratch directory: a replay is often run from inside the
    repository whose sessions it replays, and that repository's code must not be imported."""

    environ: dict[str, str]
    scratch: str
    name = "subprocess"

    @classmethod
    def for_environment(cls, environ: dict[str, str]) -> Subprocess:
        # The state dir does not exist before the first hook makes it; its parent does.
        return cls(environ, os.path.dirname(environ["ARCGUARD_HOME"]))

    def run(self, hook: str, raw: bytes) -> str | None:
        done = subprocess.run(
            child.python_argv("arcguard", "hook", hook),
            cwd=child.working_directory(self.scratch),
            input=raw,
            env=self.environ,
            capture_output=True,
            timeout=SUBPROCESS_TIMEOUT_S,
            check=False,
        )
        text = done.stdout.decode("utf-8", "replace").strip()
        return text or None


EXECUTORS: dict[str, Callable[[dict[str, str]], InProcess | Subprocess]] = {
    "in-process": InProcess.for_environment,
    "subprocess": Subprocess.for_environment,
}
