"""Run a script of `benchmarks/` as a user would, for the tests that check it still works."""

from __future__ import annotations

import subprocess
import sys

from testing.builders import REPO


# Example sessions shipped with the package: a small corpus the scripts can be pointed at.
EXAMPLES = REPO / "src" / "arcguard" / "examples"


def run_benchmark(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`python benchmarks/SCRIPT ARGS...` with this interpreter; never raises on exit status."""
    return subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
