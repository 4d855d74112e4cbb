"""How long session state files are kept: the rule, without the files.

A state file holds labels of the commands a session ran (masked and clipped, see
`core.words.redact`), its decisions and its arc. Nothing needs them once the session is long over,
so a file untouched for `state_retention_days` is removed, except where removing it would
change what arcguard does: a session whose arc is still active (a pending wait for an API limit
keeps it so until its wake) or that has a wait pending. The current session is never a
candidate: the shell leaves it out. A killed writer's temporary copy goes much sooner
(`orphan_temp`).
"""

from __future__ import annotations

from arcguard.core.arc_keeper import limits


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.state import State

DAY_SECONDS = 86400.0
# A state file's temporary copy (`<file>.tmp-<pid>-<n>`) lives for one write, well under a
# second: its writer renames it over the state file, or removes it on failure. One that stays
# was left by a writer killed mid-write, and holds a full copy of the session's state, which
# the next write of that session would clear, but a session that never writes again would
# keep it forever. It goes once older than the grace if its writer is gone, and once older
# than the bound whatever its pid says (a pid may have gone to another process since).
TEMP_GRACE_S = 60.0
TEMP_MAX_AGE_S = 3600.0


def expired(modified: float, cfg: Config, now: float) -> bool:
    """A file last written at `modified` is past the retention age."""
    return now - modified > cfg.state_retention_days * DAY_SECONDS


def orphan_temp(modified: float, now: float, *, writer_running: bool) -> bool:
    """A temporary copy last written at `modified` was left by a writer that will never
    finish it (`writer_running`: the pid in its name is a live process)."""
    age = now - modified
    return age > TEMP_MAX_AGE_S or (age > TEMP_GRACE_S and not writer_running)


def must_keep(state: State | None, cfg: Config, now: float) -> bool:
    """A session's state that stays whatever its age (None: unreadable, nothing to keep)."""
    if state is None:
        return False
    return limits.arc_active(state, cfg, now) or limits.pending(state) is not None
