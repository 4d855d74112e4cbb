"""The HTML report as a person sees it: rendered by a real headless Chromium, with no console
error, with the elements the report promises, and looking like the screenshot the docs show
(`docs/report.png`, rewritten by `python scripts/report_screenshot.py`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from testing import browser
from testing.builders import REPO
from testing.cli import invoke


EXAMPLES = REPO / "src" / "arcguard" / "examples"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, Path]:
    if browser.chromium() is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed: .ci/run installs it", pytrace=False)
        pytest.skip("chromium is not installed (apt-get install chromium)")
    folder = tmp_path_factory.mktemp("report")
    page = folder / "report.html"
    invoke("report", "--arc", "--html", str(page), str(EXAMPLES))
    shot = folder / "report.png"
    dom, log = browser.open_page(page, shot)
    return dom, log, shot


def test_the_page_loads_without_a_script_or_console_error(rendered) -> None:
    dom, log, _ = rendered
    assert "<body" in dom, log[-2000:]
    assert browser.console_errors(log) == []
    assert 'data-errors="' not in dom.split("</script>", 1)[1]  # the recorder's attribute


def test_the_page_has_what_the_report_promises(rendered) -> None:
    dom, _, _ = rendered
    for part in (
        'id="privacy"',
        'id="chart-interventions"',
        'id="chart-stalls"',
        'id="chart-dead-time"',
        'class="timeline"',
        'class="decision',
    ):
        assert part in dom, part
    sessions = dom.count('<section class="session"')
    assert sessions == len(list(EXAMPLES.glob("*.jsonl")))
    # Every decision the page lists links to its place, and that place exists.
    for target in set(__import__("re").findall(r'href="#(s\d+-d\d+)"', dom)):
        assert f'id="{target}"' in dom


def test_the_screenshot_is_taken_and_the_docs_keep_one(rendered) -> None:
    _, _, shot = rendered
    assert shot.read_bytes()[:8] == PNG and shot.stat().st_size > 10_000
    kept = REPO / "docs" / "report.png"
    assert kept.read_bytes()[:8] == PNG
    assert "report.png" in (REPO / "docs" / "forensics-and-replay.md").read_text()
