"""Whether this system can run arcguard.

State files are guarded by POSIX file locks (`fcntl.flock`) and opened with `O_NOFOLLOW`, so a
symlink planted in the state directory is never followed. A system without them (Windows
outside WSL) cannot keep that promise: there arcguard says so and does nothing, rather than
wiring hooks that would fail on every call.
"""

from __future__ import annotations

import os
import sys


SUPPORTED = "Linux and macOS (on Windows, inside WSL)"


def missing() -> str | None:
    """What this system lacks that arcguard needs, or None when it has everything."""
    try:
        import fcntl  # noqa: F401  (the state lock; a builtin module, cheap to import)
    except ImportError:
        return "no POSIX file locks (fcntl)"
    if not hasattr(os, "O_NOFOLLOW"):
        return "no O_NOFOLLOW"
    return None


def unsupported() -> str | None:
    """One line saying this system is not supported, or None when it is."""
    lacks = missing()
    if lacks is None:
        return None
    return f"arcguard runs on {SUPPORTED}; this system ({sys.platform}) has {lacks}"
