"""Open a page in headless Chromium (Debian's `chromium`, installed by `.ci/run`): its DOM after
scripts ran, what it logged, and optionally a screenshot. Nothing is fetched: the profile is
fresh and every background service is off."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path


TIMEOUT_S = 120
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--enable-logging=stderr",
    "--v=0",
)


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def open_page(
    page: Path, screenshot: Path | None = None, size: str = "1200,1400"
) -> tuple[str, str]:
    """(the DOM as Chromium serialises it, what it logged on stderr)."""
    binary = chromium()
    assert binary is not None, "chromium is not installed (apt-get install chromium)"
    with tempfile.TemporaryDirectory(prefix="arcguard-chromium-") as profile:
        argv = [binary, *FLAGS, f"--user-data-dir={profile}", f"--window-size={size}"]
        dom = subprocess.run(
            [*argv, "--dump-dom", page.resolve().as_uri()],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
        if screenshot is not None:
            subprocess.run(
                [*argv, f"--screenshot={screenshot.resolve()}", page.resolve().as_uri()],
                capture_output=True,
                timeout=TIMEOUT_S,
                check=False,
            )
    return dom.stdout, dom.stderr


def console_errors(log: str) -> list[str]:
    """The lines of Chromium's log that report a script error or a console error."""
    return [
        line
        for line in log.splitlines()
        if "Uncaught" in line or ("CONSOLE" in line and ":ERROR:" in line)
    ]
