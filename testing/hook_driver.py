"""Run arcguard's hooks in process, through the runner's own `dispatch`: the one in-process
driver the tests use (`builders.run_hook` runs a hook as a process, as Claude Code does).

`dispatch` takes the payload as Claude Code sends it (an object, or the raw bytes of stdin)
and returns the text the hook would print, or None; `decide` parses that text. `context` is
the runner's context for a test that calls a hook's own functions.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from arcguard.core.config import Config
from arcguard.core.config import default_config
from arcguard.hooks import runner


def context(
    hook: str,
    home: Path | str,
    cfg: Config | None = None,
    *,
    now: float | None = None,
    environ: dict[str, str] | os._Environ[str] | None = None,
    command: str = "arcguard",
) -> runner.Context:
    """The runner's context for one run of `hook` against the state directory `home`."""
    at = time.time() if now is None else now
    return runner.Context.begin(
        hook, str(home), cfg or default_config(), at, command, {} if environ is None else environ
    )


def dispatch(
    hook: str,
    payload: Any,
    home: Path | str,
    cfg: Config | None = None,
    *,
    ctx: runner.Context | None = None,
    **kwargs: Any,
) -> str | None:
    """What `hook` prints for `payload`, run in process (None: no decision). `ctx` instead of
    a new `context(hook, home, cfg, **kwargs)`, for a test that changes it first."""
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return runner.dispatch(hook, raw, ctx or context(hook, home, cfg, **kwargs))


def decide(hook: str, payload: Any, home: Path | str, cfg: Config | None = None, **kwargs: Any):
    """`dispatch`'s output, parsed (None: no decision)."""
    text = dispatch(hook, payload, home, cfg, **kwargs)
    return None if text is None else json.loads(text)
