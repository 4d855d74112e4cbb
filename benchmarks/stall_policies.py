"""What each stop policy continues on the calibration corpus, and what the operator answered.

    .venv/bin/python benchmarks/stall_policies.py [--corpus DIR] [--jobs N] [--list] [--out FILE]

Every transcript is replayed with `--arc` (as if its first prompt had started an arc) under
`stop_policy` noop, ask and strict, with the default caps. For each continuation the recorded
session shows what the operator typed after that stop: a bare affirmation means the
continuation saved a round trip; a choice, decision, instruction or correction means it would
have run over the operator (the cost side). It also counts the stops that ended with a
permission question the operator only affirmed, and how many of them each policy continued or
refused at a cap. The corpus is `--corpus DIR` or $CALIBRATION_CORPUS (one is required); when
that folder is absent the script says so and exits 0.
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

from arcguard.forensics import handbacks as hb
from arcguard.replay import replay
from arcguard.replay import summary
from arcguard.report import decisions


REPO = Path(__file__).resolve().parents[1]
# A folder of real session transcripts (`*.jsonl`): `--corpus DIR`, else $CALIBRATION_CORPUS.
DEFAULT_CORPUS = os.environ.get("CALIBRATION_CORPUS")
POLICIES = ("noop", "ask", "strict")
NO_ANSWER = decisions.NO_ANSWER


def steps_of(result: Any) -> list[tuple[Any, list[str]]]:
    """A replay's hook events, each with the kinds of decision arcguard took on it."""
    return [(step.event, [d.kind for d in step.decisions]) for step in result.steps]


# The stops, what the operator answered each, and the listing are the report's own
# (`arcguard report` shows each continuation beside the operator's reply).
handbacks = decisions.handbacks


def affirmed_questions(stops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stops that asked for permission or a choice and got only a bare yes."""
    return [
        s
        for s in stops
        if s["reply"] is not None
        and hb.stop_class(s["text"]) == hb.QUESTION
        and hb.reply_class(s["reply"]) == hb.AFFIRMATION
    ]


def _answer(stop: dict[str, Any]) -> str:
    return decisions.answer(stop["reply"])


def _replay_one(job: tuple[str, str]) -> list[dict[str, Any]]:
    path, config = job
    stops = handbacks(steps_of(replay(path, config_path=config, arc=True)))
    return [{**s, "file": Path(path).name, "answer": _answer(s)} for s in stops]


def run_policy(files: list[str], policy: str, jobs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        config = Path(scratch) / "config.toml"
        config.write_text(f'stop_policy = "{policy}"\n', encoding="utf-8")
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            stops = [
                s
                for found in pool.map(_replay_one, [(f, str(config)) for f in files])
                for s in found
            ]
    continued = [s for s in stops if "continue" in s["kinds"]]
    answers = {
        a: sum(1 for s in continued if s["answer"] == a) for a in (*hb.REPLY_CLASSES, NO_ANSWER)
    }
    affirmed = affirmed_questions(stops)
    return {
        "continuations": len(continued),
        "answered_by": answers,
        "ran_over": answers[hb.CHOICE] + answers[hb.INSTRUCTION],
        "caps": sum(1 for s in stops if "cap" in s["kinds"]),
        "affirmed_questions": len(affirmed),
        "affirmed_questions_continued": sum(1 for s in affirmed if "continue" in s["kinds"]),
        "affirmed_questions_capped": sum(1 for s in affirmed if "cap" in s["kinds"]),
        "continued": [
            {k: s[k] for k in ("file", "turn", "answer", "reply", "text")} for s in continued
        ],
    }


def render(results: dict[str, dict[str, Any]]) -> str:
    lines = [
        "| stop_policy | continuations | then a bare yes | then a choice or decision"
        " | then an instruction or correction | then no answer | refused at a cap"
        " | affirmed permission questions continued |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for policy, r in results.items():
        a = r["answered_by"]
        lines.append(
            f"| `{policy}` | {r['continuations']} | {a[hb.AFFIRMATION]}"
            f" | {a[hb.CHOICE]} | {a[hb.INSTRUCTION]} | {a[NO_ANSWER]} | {r['caps']}"
            f" | {r['affirmed_questions_continued']} of {r['affirmed_questions']}"
            f" ({r['affirmed_questions_capped']} at a cap) |"
        )
    return "\n".join(lines)


def _listing(results: dict[str, dict[str, Any]]) -> str:
    lines = []
    for policy, r in results.items():
        lines.append(f"\n## {policy}")
        for s in r["continued"]:
            line = decisions.listing_line(
                s["file"], s["turn"], s["answer"], str(s["text"]), s["reply"]
            )
            lines.append(line)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=DEFAULT_CORPUS, required=DEFAULT_CORPUS is None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--list", action="store_true", help="list every continuation")
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args(argv)
    if not Path(args.corpus).is_dir():
        print(f"No corpus at {args.corpus}: nothing to measure.")
        return 0
    files = summary.transcripts([args.corpus])
    results = {p: run_policy(files, p, args.jobs) for p in POLICIES}
    print(f"{len(files)} transcripts replayed with --arc, default caps\n")
    print(render(results))
    if args.list:
        print(_listing(results))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
