"""Rewrite docs/report.png: the HTML report of the bundled example sessions, as headless
Chromium draws it (the docs show it; tests/report/test_report_browser.py renders the same page).

    python scripts/report_screenshot.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path


REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from testing import browser  # noqa: E402
from testing.cli import invoke  # noqa: E402


def main() -> int:
    with tempfile.TemporaryDirectory() as scratch:
        page = Path(scratch) / "report.html"
        invoke("report", "--arc", "--html", str(page), str(REPO / "src" / "arcguard" / "examples"))
        _, log = browser.open_page(page, REPO / "docs" / "report.png", size="1100,1500")
    errors = browser.console_errors(log)
    for line in errors:
        print(line, file=sys.stderr)
    print("wrote docs/report.png")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
