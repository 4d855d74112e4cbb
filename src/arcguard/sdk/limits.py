"""What replaces `limit-wait` in an SDK application: the application resumes the session.

A command-hook session is woken after an API limit by a background StopFailure hook whose
exit 2 Claude Code turns into a new turn. An SDK callback has no such channel: when the
limit stops the query, the application gets an `AssistantMessage` whose `error` is
`"rate_limit"` and whose text names the reset time. `wait_for_limit` reads that time with
arcguard's own parser (the one `limit-wait` uses, with the same margin), sleeps until then,
and returns; the application then resumes the session (`resume=<session id>`).
"""

from __future__ import annotations

import asyncio
import os
import time

from arcguard.core.arc_keeper import reset_text
from arcguard.hooks.limit_wait import resolve


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


def limit_reset(text: str, now: float | None = None) -> float | None:
    """When the limit named in `text` lets requests through again (seconds since the epoch,
    with arcguard's margin), or None when the text names no time it can read."""
    return resolve(reset_text.parse_reset(text), time.time() if now is None else now)


async def wait_for_limit(
    text: str, *, environ: Mapping[str, str] | None = None, max_seconds: float | None = None
) -> float | None:
    """Sleep until the limit named in `text` resets; return the seconds slept.

    None, at once, when the text names no reset time, or when the wait would be longer than
    `max_seconds` (default: the `limit_wait_max_seconds` setting): then the application
    decides, as a person would, whether to wait that long.
    """
    from arcguard.storage.config_file import load_config

    if max_seconds is None:
        cfg, _ = load_config(dict(os.environ if environ is None else environ))
        max_seconds = float(cfg.limit_wait_max_seconds)
    now = time.time()
    at = limit_reset(text, now)
    if at is None or at - now > max_seconds:
        return None
    seconds = max(0.0, at - now)
    await asyncio.sleep(seconds)
    return seconds
