"""The real labelled sessions under tests/fixtures/real-sessions/, each with its label."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from testing.builders import REPO


REAL = REPO / "tests" / "fixtures" / "real-sessions"


def labelled() -> list[tuple[Path, dict[str, Any]]]:
    """Every session of both folds, in order, with the `<name>.label.json` beside it."""
    return [
        (path, json.loads(path.with_name(path.stem + ".label.json").read_text("utf-8")))
        for path in sorted(REAL.glob("*/*.jsonl"))
    ]
