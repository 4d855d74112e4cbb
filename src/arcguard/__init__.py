"""arcguard: Claude Code hooks that keep an autonomous session on its arc.

Imports nothing: the hook path pays for every module it loads.
"""

from __future__ import annotations


__version__ = "0.1.0"
