"""The one base of arcguard's own exceptions.

Each error arcguard raises derives from `ArcguardError` as well as from the standard class it
stands for (`OSError` for a refused file, `ValueError` for a refused value), so a caller can
catch everything of arcguard's with one name and the standard handlers still apply.
"""

from __future__ import annotations


class ArcguardError(Exception):
    """Something arcguard refused or could not do."""
