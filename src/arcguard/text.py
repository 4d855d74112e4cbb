"""Cutting text to a length, the one way every shown or stored text is cut."""

from __future__ import annotations


ELLIPSIS = "…"


def clip(text: str, limit: int) -> str:
    """`text` if it has at most `limit` characters, else its start and an ellipsis, as long."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + ELLIPSIS
