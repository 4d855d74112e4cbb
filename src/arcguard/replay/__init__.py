"""Replay: what arcguard would have decided on a recorded Claude Code session.

`replay(path)` rebuilds the hook events from the transcript and runs them through the real
hooks (in this process, or as subprocesses exactly as Claude Code calls them).
"""

from __future__ import annotations

from arcguard.replay.replayer import Result
from arcguard.replay.replayer import replay


__all__ = ["Result", "replay"]
