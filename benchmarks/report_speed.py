"""How long `arcguard report` takes on the largest transcript of the calibration corpus.

    .venv/bin/python benchmarks/report_speed.py [--corpus DIR] [--file NAME]

Builds both forms (the terminal text and the HTML page) in this process and prints the
transcript's size and the CPU and wall seconds each part took: the replay (the hooks run on
every recorded event), the timeline, and the rendering. CPU time is the figure to compare;
wall time depends on what else the machine runs. Without the corpus it says so and exits 0.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import orjson

from arcguard.replay import replay
from arcguard.report import html
from arcguard.report import text
from arcguard.report.session import build
from arcguard.report.session import totals


REPO = Path(__file__).resolve().parents[1]
# A folder of real session transcripts (`*.jsonl`): `--corpus DIR`, else $CALIBRATION_CORPUS.
DEFAULT_CORPUS = os.environ.get("CALIBRATION_CORPUS")


def _timed(step: str, clocks: dict[str, tuple[float, float]], work):  # type: ignore[no-untyped-def]
    cpu, wall = time.process_time(), time.perf_counter()
    value = work()
    clocks[step] = (time.process_time() - cpu, time.perf_counter() - wall)
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=DEFAULT_CORPUS, required=DEFAULT_CORPUS is None)
    parser.add_argument("--file", help="a transcript of the corpus (default: the largest)")
    args = parser.parse_args(argv)
    corpus = Path(args.corpus)
    files = (
        sorted(corpus.glob("*.jsonl"), key=lambda p: p.stat().st_size) if corpus.is_dir() else []
    )
    if not files:
        print(f"No corpus at {args.corpus}: nothing to measure.")
        return 0
    path = str(corpus / args.file) if args.file else str(files[-1])
    clocks: dict[str, tuple[float, float]] = {}
    result = _timed("replay", clocks, lambda: replay(path, recorded_time=True))
    report = _timed("timeline", clocks, lambda: build(path, result, orjson.loads))
    summed = totals([report])
    _timed("text", clocks, lambda: text.render([report], summed, redacted=False, paint=text.plain))
    _timed("html", clocks, lambda: html.page([report], summed, redacted=False))
    size = Path(path).stat().st_size / 1e6
    print(f"{Path(path).name}: {size:.1f} MB, {report.turns} turns, {report.calls} tool calls")
    for step, (cpu, wall) in clocks.items():
        print(f"  {step:<9} {cpu:6.2f} s CPU  {wall:6.2f} s wall")
    cpu = sum(c for c, _ in clocks.values())
    print(f"  {'total':<9} {cpu:6.2f} s CPU  {sum(w for _, w in clocks.values()):6.2f} s wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
