"""Sentences and paragraphs of a model's prose, for word tests on what it says.

Deterministic and without `re` (the hooks read final messages with it). `prose` sets aside
what a message shows rather than says (fenced code, block quotes, inline code, quoted
strings); `paragraphs`, `is_list` and `split` cut the rest into paragraphs, list items and
sentences; `normal` is the form the word lists are written in: lower case, plain quotes, no
markdown emphasis, single spaces.
"""

from __future__ import annotations


# What a quoted string reads as once set aside ("Say 'go' to continue." reads "say q to continue").
QUOTED = "Q"


def prose(text: str) -> str:
    """The text without fenced code, block-quote lines, inline code and quoted strings."""
    kept: list[str] = []
    fenced = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            kept.append("")
        elif fenced or stripped.startswith(">"):
            kept.append("")
        else:
            kept.append(unquoted(line))
    return "\n".join(kept)


def unquoted(line: str) -> str:
    """Drop `code`, "quoted" and 'quoted' spans (a quoted question is shown, not asked).

    A single quote opens a span only at the start of a word and closes it only at the end of
    one, so the apostrophe in "don't" or "I'll" is left alone.
    """
    out: list[str] = []
    closer = ""
    for i, c in enumerate(line):
        before = out[-1] if out else " "
        after = line[i + 1] if i + 1 < len(line) else " "
        if closer:
            if c == closer and (c != "'" or not after.isalnum()):
                closer = ""
            continue
        if c in '`"“‘' or (c == "'" and not before.isalnum() and after.isalnum()):
            closer = {"“": "”", "‘": "’"}.get(c, c)
            out.append(QUOTED)  # a word in its place, so "`x`'s" keeps its apostrophe
            continue
        out.append(c)
    return "".join(out)


def paragraphs(text: str) -> list[str]:
    blocks: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip():
            blocks[-1].append(line.strip())
        elif blocks[-1]:
            blocks.append([])
    return ["\n".join(b) for b in blocks if b]


def is_list(paragraph: str) -> bool:
    lines = paragraph.splitlines()
    return all(_is_item(line) for line in lines)


def _is_item(line: str) -> bool:
    if line[:2] in ("- ", "* ", "+ ", "• "):
        return True
    head = line.split(" ", 1)[0]
    return len(head) >= 2 and head[:-1].isdigit() and head[-1] in ".)"


def normal(text: str) -> str:
    text = text.replace("’", "'").replace("‘", "'").replace("…", "...")
    text = "".join(c for c in text if c not in "*_#")
    return " ".join(text.lower().split())


def split(text: str) -> list[str]:
    """Split after `.`, `!`, `?` or `:` followed by a space (dots inside words stay)."""
    out: list[str] = []
    start = 0
    for i, c in enumerate(text):
        if c in ".!?" and (i + 1 == len(text) or text[i + 1] == " "):
            if c == "." and _is_abbreviation(text[start : i + 1]):
                continue
            out.append(text[start : i + 1].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def _is_abbreviation(sentence: str) -> bool:
    last = sentence.rsplit(" ", 1)[-1].lstrip("([{")  # "(e.g." is still "e.g."
    return last in ("e.g.", "i.e.", "etc.", "vs.", "approx.", "cf.") or (
        len(last) == 2 and last[0].isdigit()
    )


def has_words(text: str) -> bool:
    return any(c.isalnum() for c in text)
