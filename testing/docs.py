"""The user documentation as one text: README.md, then every page under docs/.

Tests that check what the documentation says read this rather than README.md alone, so a
section may move between the README and a docs page without a test noticing.
"""

from __future__ import annotations

from pathlib import Path

from testing.builders import REPO


def doc_pages(root: Path = REPO, *, generated: bool = True) -> list[Path]:
    """README.md and the docs pages; `generated=False` leaves out the CLI reference, which is
    written from `--help` and so cannot show that a person documented something."""
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    return [page for page in pages if generated or page.name != "cli.md"]


def user_docs(root: Path = REPO, *, generated: bool = True) -> str:
    return "\n".join(
        page.read_text(encoding="utf-8") for page in doc_pages(root, generated=generated)
    )
