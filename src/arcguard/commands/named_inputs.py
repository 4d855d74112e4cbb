"""The transcripts a person names on the command line (`forensics`, `replay`): a missing path or
a file that is not a Claude Code transcript is a one-line error, not an empty report."""

from __future__ import annotations

import os

import click


# Enough to hold the first entries of any transcript; a longer first line is given the benefit
# of the doubt.
HEAD_BYTES = 1024 * 1024
HEAD_LINES = 20


def check(paths: tuple[str, ...]) -> None:
    """Raise a ClickException (exit 1, one line) for the first path that cannot be a transcript
    or a folder of them."""
    for path in paths:
        why = _problem(path)
        if why:
            raise click.ClickException(f"{path}: {why}")


def _problem(path: str) -> str | None:
    from arcguard.storage import regular_file

    if os.path.isdir(path):
        return None
    try:
        # The one reader for files named from outside: a FIFO or a device is refused before
        # anything waits on it.
        fd, _ = regular_file.open_fd(path)
    except regular_file.Refused as exc:
        if exc.reason == regular_file.MISSING:
            return "no such file or folder"
        return exc.reason + (f" ({exc.detail})" if exc.detail else "")
    try:
        head = os.read(fd, HEAD_BYTES)
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    finally:
        os.close(fd)
    return (
        None
        if _looks_like_a_transcript(head)
        else ("not a Claude Code transcript (no JSON entry with a type among its first lines)")
    )


def _looks_like_a_transcript(head: bytes) -> bool:
    import json

    lines = head.split(b"\n")
    complete = lines if len(head) < HEAD_BYTES else lines[:-1]
    if not complete or (len(complete) == 1 and not complete[0] and len(head) >= HEAD_BYTES):
        return True  # one line longer than the head: not judged here
    for line in [line for line in complete if line.strip()][:HEAD_LINES]:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("type"), str):
            return True
    return False
