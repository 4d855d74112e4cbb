"""Hook latency, transcript-size, state-size, import-cost and forensics benchmarks.

Run with the project's own interpreter (the one arcguard is installed in):

    .venv/bin/python benchmarks/bench_hooks.py [--quick] [--out FILE]

Every sample is a fresh process, as Claude Code runs hooks. Variants are measured in one run on
the same machine, after a warm-up, interleaved (the order alternates between rounds) so that
background load hits them all alike; results are ratios to a bare `python -c pass` of the same
run. It writes a JSON result and prints Markdown tables. It never touches the real state dir:
every child gets a private ARCGUARD_HOME, HOME and config path under a temp directory.

bench_data.py builds the inputs, bench_harness.py runs and measures the processes, and
bench_report.py holds the budgets, the verdicts and the Markdown; this file is the command.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_data import SESSION
from bench_data import arc_state
from bench_data import payloads
from bench_harness import SCRIPT
from bench_harness import bare_launcher
from bench_harness import bench_forensics
from bench_harness import bench_history
from bench_harness import bench_hooks
from bench_harness import bench_sizes
from bench_harness import child_env
from bench_harness import import_cost
from bench_harness import import_time
from bench_harness import installed_launcher
from bench_report import machine
from bench_report import markdown
from bench_report import verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="fewer rounds, a 20 MB instead of a 200 MB transcript, small corpus",
    )
    parser.add_argument("--out", default="bench-result.json", help="where to write the JSON")
    args = parser.parse_args(argv)
    if sys.prefix == sys.base_prefix:
        print(
            "warning: not running in a virtualenv; use the project's .venv/bin/python",
            file=sys.stderr,
        )
    rounds, warmup = (8, 2) if args.quick else (30, 3)
    big = ("20 MB", 20 * 2**20) if args.quick else ("200 MB", 200 * 2**20)
    root = Path(tempfile.mkdtemp(prefix="arcguard-bench-"))
    try:
        env = child_env(root)
        home = env["ARCGUARD_HOME"]
        os.environ.update({k: env[k] for k in ("ARCGUARD_HOME", "ARCGUARD_CONFIG", "HOME")})
        from arcguard.storage import paths

        state_path = paths.session_path(home, SESSION)
        result: dict[str, Any] = {
            "machine": machine(),
            "rounds": rounds,
            "quick": args.quick,
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        print("hooks ...", file=sys.stderr)
        result["hooks"] = bench_hooks(root, env, home, state_path, warmup=warmup, rounds=rounds)
        print("transcript sizes ...", file=sys.stderr)
        result["transcript_sizes"] = bench_sizes(
            root,
            env,
            home,
            state_path,
            warmup=warmup,
            rounds=rounds,
            sizes={"10 KB": 10 * 1024, "10 MB": 10 * 2**20, big[0]: big[1]},
        )
        print("state history ...", file=sys.stderr)
        result["history"] = bench_history(root, env, home, state_path, warmup=warmup, rounds=rounds)
        print("import cost ...", file=sys.stderr)
        stdin = json.dumps(
            payloads(root, root / "small.jsonl", root / "batch.jsonl", ("t", {}))["pre-tool"]
        ).encode()
        arc_state(home)
        result["import_cost"] = {
            "installed": import_cost(
                [*installed_launcher(root)[1:], "hook", "pre-tool"], stdin, env
            ),
            "no image": import_cost([*bare_launcher(root)[1:], "hook", "pre-tool"], stdin, env),
            "module": import_cost(["-m", "arcguard", "hook", "pre-tool"], stdin, env),
            "script": import_cost([SCRIPT, "hook", "pre-tool"], stdin, env),
            "bare": import_cost(["-c", "pass"], b"", env),
        }
        print("import time ...", file=sys.stderr)
        result["import_time"] = import_time(root, rounds=rounds * 3)
        print("forensics ...", file=sys.stderr)
        result["forensics"] = bench_forensics(
            root, env, total=(40 if args.quick else 200) * 2**20, rounds=2 if args.quick else 3
        )
        # The budget applies to the command `arcguard install` writes.
        result["budget_launcher"] = "installed"
        result["verdicts"] = verdicts(result, "installed")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(markdown(result))
    return 0 if all(row["ok"] for row in result["verdicts"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
