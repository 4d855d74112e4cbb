"""How long session state files are kept: the rule, without the files.

A state file holds labels of the commands a session ran (masked and clipped, see
`core.redact`), its decisions and its arc. Nothing needs them once the session is long over,
so a file untouched for `state_retention_days` is removed, except where removing it would
change what arcguard does: a session whose arc is still active (a pending wait for an API limit
keeps it so until its wake) or that has a wait pending. The current session is never a
candidate: the shell leaves it out.
"""

from __future__ import annotations

from arcguard.core.arc_keeper import limits


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.state import State

DAY_SECONDS = 86400.0


def expired(modified: float, cfg: Config, now: float) -> bool:
    """A file last written at `modified` is past the retention age."""
    return now - modified > cfg.state_retention_days * DAY_SECONDS


def must_keep(state: State | None, cfg: Config, now: float) -> bool:
    """A session's state that stays whatever its age (None: unreadable, nothing to keep)."""
    if state is None:
        return False
    return limits.arc_active(state, cfg, now) or limits.pending(state) is not None
