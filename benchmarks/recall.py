"""Recall and precision of the loop guard and the arc keeper on the labelled suite.

    .venv/bin/python benchmarks/recall.py [--suite DIR] [--holdout DIR] [--blind DIR]
                                          [--blind-2 DIR] [--blind-3 DIR] [--blind-4 DIR]
                                          [--blind-5 DIR] [--blind-6 DIR] [--blind-7 DIR]
                                          [--blind-8 DIR] [--blind-9 DIR] [--blind-10 DIR]
                                          [--blind-11 DIR] [--blind-12 DIR]
                                          [--blind-13 DIR]
                                          [--config FILE]
                                          [--json]

Every session of the tuned suite (tests/fixtures/recall/, written by `python -m
testing.recall_suite`), of the held-out fold (tests/fixtures/recall-holdout/, written by
`python -m testing.recall_holdout`, sessions never used to tune the rules) and of the thirteen
blind folds (tests/fixtures/recall-blind/, recall-blind-2/, recall-blind-3/, recall-blind-6/ to
recall-blind-13/: loops and look-alikes; recall-blind-4/ and recall-blind-5/:
stops mid-arc and rightful stops; written and labelled, labels fixed before any run, by someone
who had not read the rules; all of shapes the rules name nowhere but half of blind 6, asked for
one answer asked many ways and its look-alikes) is replayed through the real hooks in this
process, the hooks' clock following the transcript's timestamps, and judged against its label in
`labels.json`:

- a loop gets a word in time when it is denied, asked to check in or paused by the label's
  `by_turn` (counted as "loops worded"), and is stopped in time when it is paused by its
  `stop_by` turn (its last looping turn); it counts as caught when both hold;
- a stall is sent back when the Stop of the label's turn is continued (replayed with `--arc`);
- a completion is released when the Stop of the label's turn releases the arc and nothing in
  that session is continued (replayed with `--arc`);
- a rightful stop (a decision only the user may take, a blocker only the user can lift, work
  done with follow-ups offered) is left alone when nothing in that session is continued, denied
  or paused (replayed with `--arc`);
- a legitimate run is untouched when nothing is denied or paused and it gets at most one
  nudge per 100 tool calls.

`--config FILE` replays every session under that config file instead of the defaults (a file
holding `stop_policy = "strict"` shows what that policy sends back). It prints one line per
session and the totals of each fold apart: recall (loops stopped in time, stalls sent back,
completions released) and precision (legitimate runs and rightful stops untouched, nudges per
100 calls of the legitimate runs). Exit status 1 when any session of the tuned suite misses its
label.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from arcguard.replay import replay


REPO = Path(__file__).resolve().parents[1]
DEFAULT_SUITE = REPO / "tests" / "fixtures" / "recall"
DEFAULT_HOLDOUT = REPO / "tests" / "fixtures" / "recall-holdout"
DEFAULT_BLIND = REPO / "tests" / "fixtures" / "recall-blind"
DEFAULT_BLIND_2 = REPO / "tests" / "fixtures" / "recall-blind-2"
DEFAULT_BLIND_3 = REPO / "tests" / "fixtures" / "recall-blind-3"
DEFAULT_BLIND_4 = REPO / "tests" / "fixtures" / "recall-blind-4"
DEFAULT_BLIND_5 = REPO / "tests" / "fixtures" / "recall-blind-5"
DEFAULT_BLIND_6 = REPO / "tests" / "fixtures" / "recall-blind-6"
DEFAULT_BLIND_7 = REPO / "tests" / "fixtures" / "recall-blind-7"
DEFAULT_BLIND_8 = REPO / "tests" / "fixtures" / "recall-blind-8"
DEFAULT_BLIND_9 = REPO / "tests" / "fixtures" / "recall-blind-9"
DEFAULT_BLIND_10 = REPO / "tests" / "fixtures" / "recall-blind-10"
DEFAULT_BLIND_11 = REPO / "tests" / "fixtures" / "recall-blind-11"
DEFAULT_BLIND_12 = REPO / "tests" / "fixtures" / "recall-blind-12"
DEFAULT_BLIND_13 = REPO / "tests" / "fixtures" / "recall-blind-13"
WORDS = ("deny", "nudge", "pause")
ARC_KINDS = ("stall", "release", "rightful-stop")
NUDGES_PER_100 = 1.0


def judge(
    name: str, label: dict[str, Any], path: Path, config: str | None = None
) -> dict[str, Any]:
    kind = label["kind"]
    result = replay(str(path), arc=kind in ARC_KINDS, recorded_time=True, config_path=config)
    decisions = result.decisions
    calls = sum(1 for step in result.steps if step.event.event == "PreToolUse")
    by_kind: dict[str, list[int]] = {}
    for d in decisions:
        by_kind.setdefault(d.kind, []).append(d.turn)
    first = {k: min(turns) for k, turns in by_kind.items()}
    by_turn = label.get("by_turn")
    nudges = len(by_kind.get("nudge", []))
    word = min((first[k] for k in WORDS if k in first), default=None)
    worded = False
    if kind == "loop":
        stop_by = label.get("stop_by", by_turn)
        assert isinstance(by_turn, int) and isinstance(stop_by, int), name
        worded = word is not None and word <= by_turn
        ok = worded and "pause" in first and first["pause"] <= stop_by
    elif kind == "stall":
        ok = by_turn in by_kind.get("continue", [])
    elif kind == "release":
        ok = by_turn in by_kind.get("release", []) and "continue" not in first
    elif kind == "rightful-stop":
        ok = not {"continue", "deny", "pause"} & set(first)
    else:
        ok = (
            "deny" not in first
            and "pause" not in first
            and nudges * 100 <= NUDGES_PER_100 * max(calls, 1)
        )
    return {
        "file": name,
        "kind": kind,
        "by_turn": by_turn,
        "stop_by": label.get("stop_by"),
        "ok": ok,
        "worded": worded,
        "calls": calls,
        "first": first,
        "nudges": nudges,
        "what": label.get("what", ""),
        "reasons": [f"turn {d.turn} {d.kind}: {d.reason[:100]}" for d in decisions],
    }


def run(suite: Path, config: str | None = None) -> dict[str, Any]:
    labels = json.loads((suite / "labels.json").read_text(encoding="utf-8"))
    rows = [judge(name, labels[name], suite / name, config) for name in sorted(labels)]

    def share(kind: str) -> tuple[int, int]:
        mine = [r for r in rows if r["kind"] == kind]
        return sum(r["ok"] for r in mine), len(mine)

    legit = [r for r in rows if r["kind"] == "legit"]
    legit_calls = sum(r["calls"] for r in legit)
    loops = [r for r in rows if r["kind"] == "loop"]
    return {
        "loops_worded": (sum(r["worded"] for r in loops), len(loops)),
        "loops_stopped": share("loop"),
        "stalls_sent_back": share("stall"),
        "completions_released": share("release"),
        "legit_untouched": share("legit"),
        "rightful_stops_left_alone": share("rightful-stop"),
        "legit_nudges_per_100_calls": round(
            100 * sum(r["nudges"] for r in legit) / max(legit_calls, 1), 2
        ),
        "rows": rows,
    }


def _print(data: dict[str, Any]) -> None:
    for row in data["rows"]:
        mark = "ok  " if row["ok"] else "MISS"
        label = f"by turn {row['by_turn']}" if row["by_turn"] is not None else "untouched"
        if row["stop_by"] is not None:
            label = f"word {row['by_turn']}, stop {row['stop_by']}"
        first = ", ".join(f"{k} at {t}" for k, t in sorted(row["first"].items())) or "nothing"
        print(f"{mark} {row['file']:<28} {row['kind']:<8} {label:<20} {first}")
    print()
    keys = (
        "loops_worded",
        "loops_stopped",
        "stalls_sent_back",
        "completions_released",
        "legit_untouched",
    )
    for key in (*keys, "rightful_stops_left_alone"):
        done, total = data[key]
        print(f"{key.replace('_', ' ')}: {done} of {total}")
    print(f"legit nudges per 100 calls: {data['legit_nudges_per_100_calls']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=DEFAULT_SUITE)
    parser.add_argument("--holdout", type=Path, default=DEFAULT_HOLDOUT)
    parser.add_argument("--blind", type=Path, default=DEFAULT_BLIND)
    parser.add_argument("--blind-2", type=Path, default=DEFAULT_BLIND_2)
    parser.add_argument("--blind-3", type=Path, default=DEFAULT_BLIND_3)
    parser.add_argument("--blind-4", type=Path, default=DEFAULT_BLIND_4)
    parser.add_argument("--blind-5", type=Path, default=DEFAULT_BLIND_5)
    parser.add_argument("--blind-6", type=Path, default=DEFAULT_BLIND_6)
    parser.add_argument("--blind-7", type=Path, default=DEFAULT_BLIND_7)
    parser.add_argument("--blind-8", type=Path, default=DEFAULT_BLIND_8)
    parser.add_argument("--blind-9", type=Path, default=DEFAULT_BLIND_9)
    parser.add_argument("--blind-10", type=Path, default=DEFAULT_BLIND_10)
    parser.add_argument("--blind-11", type=Path, default=DEFAULT_BLIND_11)
    parser.add_argument("--blind-12", type=Path, default=DEFAULT_BLIND_12)
    parser.add_argument("--blind-13", type=Path, default=DEFAULT_BLIND_13)
    parser.add_argument("--config", help="a config file to replay every session under")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    paths = {
        "tuned": args.suite,
        "held out": args.holdout,
        "blind": args.blind,
        "blind 2": args.blind_2,
        "blind 3": args.blind_3,
        "blind 4": args.blind_4,
        "blind 5": args.blind_5,
        "blind 6": args.blind_6,
        "blind 7": args.blind_7,
        "blind 8": args.blind_8,
        "blind 9": args.blind_9,
        "blind 10": args.blind_10,
        "blind 11": args.blind_11,
        "blind 12": args.blind_12,
        "blind 13": args.blind_13,
    }
    folds = {
        name: run(path, args.config)
        for name, path in paths.items()
        if name == "tuned" or path.is_dir()
    }
    if args.json:
        print(json.dumps(folds, indent=2))
    else:
        for name, data in folds.items():
            print(f"== {name} ({paths[name]})")
            _print(data)
            print()
    # The other folds are measurements, never a gate: the status is the tuned suite's.
    return 0 if all(row["ok"] for row in folds["tuned"]["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
