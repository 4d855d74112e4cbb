"""Text for a terminal: recorded data made inert before any human-facing verb prints it.

Transcripts, state files and settings hold text arcguard did not write (a model's command, a
repository's settings). Printed raw, an escape sequence in it could clear the screen, retitle
the window or hide what arcguard reports; so every control character is shown as a visible
escape instead. Newline and tab stay: the verbs lay out their own lines and columns with them.
"""

from __future__ import annotations


_KEPT = frozenset({"\n", "\t"})
# C0 controls and DEL, C1 controls, and the bidirectional overrides that reorder what is shown.
_CONTROLS = [
    *range(0x20),
    0x7F,
    *range(0x80, 0xA0),
    0x061C,
    0x200E,
    0x200F,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
]
_TABLE = {
    code: (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    for code in _CONTROLS
    if chr(code) not in _KEPT
}


def printable(text: str) -> str:
    """`text` with every control character but newline and tab written as a visible escape."""
    return text.translate(_TABLE)


_ONE_LINE = {**_TABLE, ord("\n"): "\\x0a", ord("\t"): "\\x09"}


def one_line(text: str) -> str:
    """`printable`, newline and tab escaped too: for a line that must stay one line."""
    return text.translate(_ONE_LINE)
