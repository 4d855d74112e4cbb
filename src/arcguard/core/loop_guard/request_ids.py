"""Ids a service makes up for each request, as a print shows them: volatile, like a time.

AWS prints one with every refused call (`RequestID: 7QH0J8A4KQ2R9V1S6O3BDMMF2JVV4KQNSO5AE...`),
so a poll failing the same way twice shows two answers unless the id is set aside
(`answers.lines`). An id is a word of at least `MIN_CHARS` letters and digits, with at least
`MIN_DIGITS` of each, either in capitals alone (base 32: AWS, ULIDs) or, from `MIXED_CHARS`
on, in both cases (base 62 tokens). Hex ids are numbers already (`shape`).
"""

from __future__ import annotations


MIN_CHARS = 16
MIXED_CHARS = 20
MIN_DIGITS = 3
ID = "0"  # what an id reads as: a number, as hex ids do
EDGES = "\"'`()[]{}<>,;:.="


def without(text: str) -> str:
    """`text` with every id in it read as `ID`."""
    found = {w.strip(EDGES) for w in text.split() if len(w) >= MIN_CHARS}
    for word in found:
        if is_id(word):
            text = text.replace(word, ID)
    return text


def is_id(word: str) -> bool:
    if len(word) < MIN_CHARS or not word.isalnum() or not word.isascii():
        return False
    digits = sum(c.isdigit() for c in word)
    letters = len(word) - digits
    if digits < MIN_DIGITS or letters < MIN_DIGITS:
        return False
    return word.isupper() or (len(word) >= MIXED_CHARS and not word.islower())
