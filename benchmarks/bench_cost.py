"""What recording a hook's cost costs the hook: the import of the recorder and one record.

    .venv/bin/python benchmarks/bench_cost.py [--runs N]

Each hook run reads its process start time and appends one line to `cost.log`
(`arcguard.storage.cost`). This times both in a fresh interpreter that has already imported
the hook runner, as a hook has, against a private state directory, and prints the medians.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile


CHILD = """
import json, os, sys, time
from arcguard.hooks import runner  # what a hook has loaded before it records
home = sys.argv[1]
started = time.perf_counter()
from arcguard.storage import cost
imported = time.perf_counter() - started
samples = []
for _ in range(int(sys.argv[2])):
    a = time.perf_counter()
    cost.record(home, cost.COMMAND, "pre-tool", cost.since_process_start() or 0.0)
    samples.append(time.perf_counter() - a)
print(json.dumps({"import_s": imported, "record_s": samples}))
"""


def measure(runs: int, processes: int) -> dict[str, float]:
    imports, records = [], []
    with tempfile.TemporaryDirectory(prefix="bench-cost-") as home:
        for _ in range(processes):
            done = subprocess.run(
                [sys.executable, "-c", CHILD, home, str(runs)],
                capture_output=True,
                text=True,
                check=True,
                timeout=120,
            )
            result = json.loads(done.stdout)
            imports.append(result["import_s"])
            records += result["record_s"]
    return {
        "import_us": statistics.median(imports) * 1e6,
        "record_us": statistics.median(records) * 1e6,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=2000, help="records per process")
    parser.add_argument("--processes", type=int, default=10, help="fresh interpreters")
    args = parser.parse_args(argv)
    found = measure(args.runs, args.processes)
    print(
        f"import of the recorder: {found['import_us']:.0f} us (median of {args.processes} "
        f"processes); one record: {found['record_us']:.0f} us (median of "
        f"{args.runs * args.processes})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
