"""The `/autonomous` slash command arcguard installs: its template and who owns a copy."""

from __future__ import annotations

from pathlib import Path


# --- the /autonomous command ---------------------------------------------------------------

COMMAND_NAME = "autonomous.md"
# Present in every template arcguard ships: tells an edited copy of ours from someone else's.
COMMAND_MARKER = "(arcguard)"
# sha256 of earlier shipped templates: files still holding one of them are ours to replace.
PRIOR_COMMAND_DIGESTS: tuple[str, ...] = (
    "4fb2dc71a6a4d19f652b14ece2f22847677815d68bf45983f2533c0459bd2f24",  # before DECISION NEEDED
    "a848932dc7162f4ba8d59ab1c3155b0d282ca1d6e6982cf05be199a82383098e",  # before /autonomous stop
)


def command_template() -> str:
    from importlib.resources import files

    return files("arcguard").joinpath("resources", COMMAND_NAME).read_text(encoding="utf-8")


def command_state(text: str | None) -> str:
    """`missing`, `current` (our template), `old` (an earlier template of ours, unchanged),
    `edited` (ours, changed by hand) or `foreign` (someone else's /autonomous)."""
    import hashlib

    if text is None:
        return "missing"
    if text == command_template():
        return "current"
    if hashlib.sha256(text.encode("utf-8")).hexdigest() in PRIOR_COMMAND_DIGESTS:
        return "old"
    return "edited" if _has_marker(text) else "foreign"


def _has_marker(text: str) -> bool:
    head = text.split("\n---", 1)[0] if text.startswith("---") else ""
    return any(
        line.startswith("description:") and COMMAND_MARKER in line for line in head.splitlines()
    )


def read_text(path: Path) -> str | None:
    """The command file's text; None if absent, "" if it cannot be read as a small text file
    (a FIFO or a device planted in its place is never read)."""
    from arcguard.claude_settings import settings_files
    from arcguard.claude_settings.merge_plan import SettingsError

    try:
        data = settings_files.read_regular(path)
        return None if data is None else data.decode("utf-8")
    except (SettingsError, UnicodeDecodeError):
        return ""
