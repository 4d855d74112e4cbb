"""`clip`, the one way arcguard cuts a text to a length."""

from __future__ import annotations

import pytest

from arcguard.text import clip


@pytest.mark.parametrize(
    "text, limit, expected",
    [
        ("short", 10, "short"),
        ("exactly10!", 10, "exactly10!"),
        ("eleven char", 10, "eleven ch…"),
        ("abc", 1, "…"),
        ("abc", 0, "…"),
    ],
)
def test_a_cut_text_ends_in_an_ellipsis_and_keeps_to_the_limit(
    text: str, limit: int, expected: str
) -> None:
    assert clip(text, limit) == expected
    assert len(clip(text, limit)) <= max(limit, 1)
