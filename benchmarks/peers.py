"""arcguard beside other coding agents' loop rules, on the same labelled sessions and real corpus.

    .venv/bin/python benchmarks/peers.py [--suite NAME=DIR ...] [--corpus DIR] [--jobs N]
                                         [--sessions] [--json FILE]

Every labelled session is read once by each peer detector (benchmarks/peer_rules.py,
benchmarks/peer_counters.py) and replayed once through arcguard's real hooks in this process,
on the transcript's own clock (`arcguard.replay`); a stall is replayed as if its first prompt
had started an arc. The suites, unless given: the synthetic suite (tests/fixtures/recall/,
`labels.json`) and the real sessions (tests/fixtures/real-sessions/, tuning and held-out folds,
a `<name>.label.json` beside each `<name>.jsonl`). Per suite and detector it prints:

- loops with a word in time: a warning or a stop by the label's `by_turn`;
- loops stopped in time: a stop (arcguard: a deny or a pause) by the label's `stop_by`
  (`by_turn` when the label has none);
- stalls sent back: arcguard continues the Stop of the label's turn (no peer sends a stopped
  model back to work: "n/a");
- legitimate runs untouched: no stop, and at most one warning per 100 tool calls.

Then, on the corpus of real sessions (skipped with a message when absent), warnings and stops
per 1,000 real tool calls. `--sessions` lists, per labelled session, each detector's first
warning and first stop.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import json
import os
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import peer_counters
import peer_rules
from peer_rules import STOP
from peer_rules import WARN
from peer_rules import Detector
from peer_rules import Hit
from peer_sessions import read_session

from arcguard.replay import Result
from arcguard.replay import replay


REPO = Path(__file__).resolve().parents[1]
REAL = REPO / "tests" / "fixtures" / "real-sessions"
SUITES = {
    "synthetic": REPO / "tests" / "fixtures" / "recall",
    "real, tuning fold": REAL / "tuning",
    "real, held-out fold": REAL / "held-out",
}
# A folder of real session transcripts (`*.jsonl`): `--corpus DIR`, else $CALIBRATION_CORPUS.
DEFAULT_CORPUS = os.environ.get("CALIBRATION_CORPUS")
ARCGUARD = "arcguard"
PEERS: dict[str, Detector] = {
    "gemini-cli": peer_rules.gemini,
    "OpenHands V1": peer_rules.openhands_v1,
    "OpenHands V0": peer_rules.openhands_v0,
    "opencode": peer_counters.opencode,
    "opencode (docs)": peer_counters.opencode_docs,
    "crush": peer_counters.crush,
    "Cline": peer_counters.cline,
    "Roo Code": peer_counters.roo,
    "OpenClaw (opt-in)": peer_counters.openclaw,
}
DETECTORS = (ARCGUARD, *PEERS)
ARC_KINDS = ("stall", "release")
ARCGUARD_KINDS = {"nudge": WARN, "deny": STOP, "pause": STOP}
WARNINGS_PER_100 = 1.0
Label = dict[str, object]
Row = dict[str, object]


def labels_of(folder: Path) -> dict[str, Label]:
    """The labels of a suite folder: one `labels.json`, or a `.label.json` per session."""
    shared = folder / "labels.json"
    if shared.is_file():
        found: dict[str, Label] = json.loads(shared.read_text(encoding="utf-8"))
        return found
    return {
        path.name.removesuffix(".label.json") + ".jsonl": json.loads(path.read_text("utf-8"))
        for path in sorted(folder.glob("*.label.json"))
    }


def arcguard_hits(path: Path, *, arc: bool, config: str) -> tuple[list[Hit], set[int]]:
    """arcguard's interventions as hits, and the turns whose Stop it continued."""
    run_replay: Callable[..., Result] = replay
    if "recorded_time" in inspect.signature(replay).parameters:
        # Where the recorded clock is not yet replay's default, ask for it.
        run_replay = functools.partial(run_replay, recorded_time=True)
    result = run_replay(str(path), config_path=config, arc=arc)
    hits = [
        Hit(d.turn, ARCGUARD_KINDS[d.kind], d.kind)
        for d in result.decisions
        if d.kind in ARCGUARD_KINDS
    ]
    return hits, {d.turn for d in result.decisions if d.kind == "continue"}


def peer_hits(path: Path) -> tuple[dict[str, list[Hit]], int]:
    """Each peer's hits on the session (each agent read apart), and its tool calls."""
    session = read_session(path)
    found = {
        name: [h for items in session.agents.values() for h in peer_rules.until_halt(rule(items))]
        for name, rule in PEERS.items()
    }
    return found, session.calls


def _first(hits: list[Hit], kind: str | None = None) -> int | None:
    turns = [h.turn for h in hits if kind is None or h.kind == kind]
    return min(turns) if turns else None


def verdicts(label: Label, hits: list[Hit], continued: set[int] | None, calls: int) -> Row:
    """What a detector's hits on one session mean against its label (None: not judged)."""
    kind = label["kind"]
    by_turn = label.get("by_turn")
    stop_by = label.get("stop_by", by_turn)
    word, stopped = _first(hits), _first(hits, STOP)
    row: Row = {"word": word, "stop": stopped}
    if kind == "loop":
        assert isinstance(by_turn, int) and isinstance(stop_by, int)
        row["word_ok"] = word is not None and word <= by_turn
        row["stop_ok"] = stopped is not None and stopped <= stop_by
    elif kind == "stall":
        row["sent_back"] = None if continued is None else by_turn in continued
    elif kind == "legit":
        warnings = sum(h.kind == WARN for h in hits)
        row["untouched"] = stopped is None and warnings * 100 <= WARNINGS_PER_100 * max(calls, 1)
    return row


def judge_session(job: tuple[str, str, Label, str]) -> dict[str, Row]:
    """Every detector's verdicts on one labelled session."""
    _, path_text, label, config = job
    path = Path(path_text)
    peers, calls = peer_hits(path)
    mine, continued = arcguard_hits(path, arc=label["kind"] in ARC_KINDS, config=config)
    rows = {ARCGUARD: verdicts(label, mine, continued, calls)}
    for name, hits in peers.items():
        rows[name] = verdicts(label, hits, None, calls)
    return rows


def corpus_session(job: tuple[str, str]) -> tuple[int, dict[str, tuple[int, int]]]:
    """Tool calls of one real session, and each detector's (warnings, stops) on it."""
    path_text, config = job
    path = Path(path_text)
    peers, calls = peer_hits(path)
    peers[ARCGUARD] = arcguard_hits(path, arc=False, config=config)[0]
    return calls, {
        name: (sum(h.kind == WARN for h in hits), sum(h.kind == STOP for h in hits))
        for name, hits in peers.items()
    }


def score_suites(suites: dict[str, Path], jobs: int, config: str) -> dict[str, object]:
    """Per suite: the sessions' verdicts by detector, and the counts per column."""
    work = []
    for suite, folder in suites.items():
        for name, label in labels_of(folder).items():
            work.append((suite, str(folder / name), label, config))
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        done = list(pool.map(judge_session, work))
    out: dict[str, object] = {}
    for suite in suites:
        sessions = {
            Path(job[1]).name: {"label": job[2], "verdicts": rows}
            for job, rows in zip(work, done, strict=True)
            if job[0] == suite
        }
        out[suite] = {"sessions": sessions, "totals": _totals(sessions)}
    return out


COLUMNS = (
    ("loops: a word in time", "loop", "word_ok"),
    ("loops: stopped in time", "loop", "stop_ok"),
    ("stalls sent back", "stall", "sent_back"),
    ("legitimate runs untouched", "legit", "untouched"),
)


def _totals(sessions: dict[str, dict[str, object]]) -> dict[str, dict[str, str]]:
    table: dict[str, dict[str, str]] = {}
    for detector in DETECTORS:
        cells: dict[str, str] = {}
        for title, kind, field in COLUMNS:
            rows = [
                s["verdicts"][detector]  # type: ignore[index]
                for s in sessions.values()
                if s["label"]["kind"] == kind  # type: ignore[index]
            ]
            answers = [r[field] for r in rows]
            if not answers:
                cells[title] = "–"
            elif all(a is None for a in answers):
                cells[title] = "n/a"
            else:
                cells[title] = f"{sum(a is True for a in answers)} of {len(answers)}"
        table[detector] = cells
    return table


def score_corpus(corpus: Path | None, jobs: int, config: str) -> dict[str, object] | None:
    found = corpus is not None and corpus.is_dir()
    files = sorted(str(p) for p in corpus.glob("*.jsonl")) if corpus and found else []
    if not files:
        return None
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        done = list(pool.map(corpus_session, [(f, config) for f in files]))
    calls = sum(n for n, _ in done)
    rates: dict[str, dict[str, float | int]] = {}
    for detector in DETECTORS:
        warns = sum(found[detector][0] for _, found in done)
        stops = sum(found[detector][1] for _, found in done)
        rates[detector] = {
            "warnings": warns,
            "stops": stops,
            "warnings_per_1000": round(1000 * warns / max(calls, 1), 2),
            "stops_per_1000": round(1000 * stops / max(calls, 1), 2),
            "sessions_stopped": sum(found[detector][1] > 0 for _, found in done),
        }
    return {"sessions": len(files), "tool_calls": calls, "rates": rates}


def suite_table(totals: dict[str, dict[str, str]]) -> str:
    titles = [title for title, _, _ in COLUMNS]
    lines = ["| detector | " + " | ".join(titles) + " |", "|---|" + "---:|" * len(titles)]
    for detector, cells in totals.items():
        lines.append(f"| {detector} | " + " | ".join(cells[t] for t in titles) + " |")
    return "\n".join(lines)


def corpus_table(data: dict[str, object]) -> str:
    lines = [
        "| detector | warnings per 1,000 calls | stops per 1,000 calls | sessions stopped |",
        "|---|---:|---:|---:|",
    ]
    rates: dict[str, dict[str, float | int]] = data["rates"]  # type: ignore[assignment]
    for detector, r in rates.items():
        lines.append(
            f"| {detector} | {r['warnings_per_1000']:.2f} ({r['warnings']}) "
            f"| {r['stops_per_1000']:.2f} ({r['stops']}) | {r['sessions_stopped']} |"
        )
    return "\n".join(lines)


def session_lines(sessions: dict[str, dict[str, object]]) -> list[str]:
    out = []
    for name, s in sessions.items():
        label: Label = s["label"]  # type: ignore[assignment]
        verdicts: dict[str, Row] = s["verdicts"]  # type: ignore[assignment]
        want = f"by turn {label['by_turn']}" if label.get("by_turn") is not None else "none"
        out.append(f"- {name} ({label['kind']}, {want}):")
        for detector, row in verdicts.items():
            if row["word"] is not None:
                out.append(f"    {detector}: first word at {row['word']}, stop at {row['stop']}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--jobs", type=int, default=2, help="sessions read in parallel")
    parser.add_argument("--sessions", action="store_true", help="list each session's verdicts")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    suites = dict(s.split("=", 1) for s in args.suite) if args.suite else SUITES
    suites = {name: Path(folder) for name, folder in suites.items() if Path(folder).is_dir()}
    jobs = max(1, args.jobs)
    with tempfile.TemporaryDirectory(prefix="arcguard-peers-") as tmp:
        config = str(Path(tmp) / "defaults.toml")  # no such file: the defaults apply
        scored = score_suites(suites, jobs, config)
        corpus = score_corpus(args.corpus, jobs, config)
    for suite, data in scored.items():
        sessions = data["sessions"]  # type: ignore[index]
        print(f"\n{suite} ({len(sessions)} sessions):\n")
        print(suite_table(data["totals"]))  # type: ignore[index]
        if args.sessions:
            print("\n".join(["", *session_lines(sessions)]))
    if corpus is None:
        where = "given (--corpus DIR)" if args.corpus is None else f"at {args.corpus}"
        print(f"\nNo corpus of real sessions {where}: interventions not measured.")
    else:
        print(
            f"\nreal corpus ({corpus['sessions']} sessions, {corpus['tool_calls']} tool calls),"
            " interventions per 1,000 real tool calls (count in brackets):\n"
        )
        print(corpus_table(corpus))
    if args.json is not None:
        args.json.write_text(json.dumps({"suites": scored, "corpus": corpus}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
