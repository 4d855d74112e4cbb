"""Field trial: what arcguard would have done on the calibration corpus of real sessions.

    .venv/bin/python benchmarks/field_trial.py [--corpus DIR] [--jobs N] [--out FILE]
                                                [--recorded-time]

Every transcript is replayed through the real hooks (`arcguard replay`), once as recorded and
once with `--arc` (as if its first prompt had started an arc), with the default config. It
prints the interventions per 1,000 tool calls by kind for both runs, then every intervention
with its file, turn and reason, so each can be judged. The corpus is the folder of real sessions
kept next to the repository unless given; when it is absent the script says so and exits 0.
With `--recorded-time` the hooks' clock follows the transcripts' timestamps, so the rules
bounded by wall time (a poll's patience, an arc's staleness) see the gaps the sessions had.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from arcguard.replay import replay
from arcguard.replay import summary
from arcguard.replay.timeline import short


REPO = Path(__file__).resolve().parents[1]
# A folder of real session transcripts (`*.jsonl`): `--corpus DIR`, else $CALIBRATION_CORPUS.
DEFAULT_CORPUS = os.environ.get("CALIBRATION_CORPUS")
MODES = {"as recorded": False, "with --arc": True}
WINDOW_TURNS = 25  # the check-in window: long enough to show what the work was


def _replay_one(
    job: tuple[str, bool, str, bool],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    path, arc, config, recorded_time = job
    result = replay(path, config_path=config, arc=arc, recorded_time=recorded_time)
    row: dict[str, Any] = dict(summary.summarise([result])["files"][0])
    found = [
        {
            "file": Path(path).name,
            "turn": d.turn,
            "kind": d.kind,
            "reason": short(d.reason, 160),
            "tools_before": _tools_before(result, d.turn),
        }
        for d in result.decisions
        if d.kind in summary.INTERVENTIONS
    ]
    return row, found


def _tools_before(result: Any, turn: int) -> dict[str, int]:
    """The tool calls of the turns leading up to an intervention, by tool: what the session
    was doing when arcguard stepped in."""
    counts: dict[str, int] = {}
    for step in result.steps:
        event = step.event
        if event.event == "PreToolUse" and turn - WINDOW_TURNS < event.turn <= turn:
            name = str(event.fields.get("tool_name"))
            counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def trial(
    files: list[str], arc: bool, jobs: int, config: str, recorded_time: bool = False
) -> dict[str, Any]:
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        done = list(pool.map(_replay_one, [(f, arc, config, recorded_time) for f in files]))
    rows = [row for row, _ in done]
    totals: dict[str, int] = {}
    for row in rows:
        for kind, n in row["decisions"].items():
            totals[kind] = totals.get(kind, 0) + n
    calls = sum(row["tool_calls"] for row in rows)
    return {
        "sessions": len(rows),
        "tool_calls": calls,
        "turns": sum(row["turns"] for row in rows),
        "interventions": {k: totals.get(k, 0) for k in summary.INTERVENTIONS},
        "per_1000_tool_calls": summary.rates(totals, calls),
        "list": [item for _, found in done for item in found],
    }


def table(results: dict[str, dict[str, Any]]) -> str:
    kinds = summary.INTERVENTIONS
    lines = [
        "| replay | sessions | tool calls | turns | " + " | ".join(kinds) + " |",
        "|---|---:|---:|---:|" + "---:|" * len(kinds),
    ]
    for mode, data in results.items():
        cells = " | ".join(
            f"{data['per_1000_tool_calls'][k]:.2f} ({data['interventions'][k]})" for k in kinds
        )
        lines.append(
            f"| {mode} | {data['sessions']} | {data['tool_calls']} | {data['turns']} | {cells} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus", type=Path, default=DEFAULT_CORPUS, required=DEFAULT_CORPUS is None
    )
    parser.add_argument("--jobs", type=int, default=2, help="replays run in parallel")
    parser.add_argument("--out", type=Path, help="also write the results as JSON here")
    parser.add_argument(
        "--recorded-time",
        action="store_true",
        help="the hooks' clock follows the transcripts' timestamps",
    )
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"No corpus at {args.corpus}: nothing to measure.")
        return 0
    files = summary.transcripts([str(args.corpus)])
    if not files:
        print(f"No transcript (*.jsonl) in {args.corpus}: nothing to measure.")
        return 0
    with tempfile.TemporaryDirectory(prefix="arcguard-trial-") as tmp:
        config = str(Path(tmp) / "defaults.toml")  # no such file: the defaults apply
        results = {
            mode: trial(files, arc, max(1, args.jobs), config, args.recorded_time)
            for mode, arc in MODES.items()
        }
    print("Interventions per 1,000 tool calls (count in brackets), default config:\n")
    print(table(results))
    for mode, data in results.items():
        print(f"\nInterventions {mode}:")
        if not data["list"]:
            print("- none")
        for item in data["list"]:
            print(f"- {item['file']} turn {item['turn']}: {item['kind']}  {item['reason']}")
            if item.get("tools_before"):
                mix = ", ".join(f"{name} {n}" for name, n in item["tools_before"].items())
                print(f"    calls in the {WINDOW_TURNS} turns up to it: {mix}")
    if args.out is not None:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
