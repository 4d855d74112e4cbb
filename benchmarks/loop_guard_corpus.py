"""Loop-guard interventions on a directory of recorded sessions, per 1,000 tool calls.

    python benchmarks/loop_guard_corpus.py DIR [--json]

Each `*.jsonl` transcript in DIR is replayed through the real hooks (`arcguard replay`) and
its loop-guard decisions are counted: denies, pauses and nudges, with the tool calls the
replay fed to the guard (the `tool_use` blocks of the main conversation, one per id). Every
deny, pause and nudge is listed with its turn and reason, so each can be read against the
transcript. A missing or empty DIR is reported and the script exits 0.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from arcguard import jsonio
from arcguard.replay import replay


KINDS = ("deny", "pause", "nudge")


def tool_calls(path: Path) -> int:
    """Distinct tool_use ids in the main conversation's assistant entries."""
    ids: set[str] = set()
    with path.open("rb") as lines:
        for line in lines:
            if b'"tool_use"' not in line:
                continue
            try:
                entry = jsonio.loads(line)
            except ValueError:
                continue
            if not isinstance(entry, dict) or entry.get("type") != "assistant":
                continue
            if entry.get("isSidechain") is True:
                continue
            content = (entry.get("message") or {}).get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    ids.add(str(block.get("id")))
    return len(ids)


def measure(path: Path) -> dict[str, object]:
    result = replay(str(path))
    found = [d for d in result.decisions if d.kind in KINDS]
    return {
        "file": path.name,
        "tool_calls": tool_calls(path),
        "turns": result.turns,
        **{kind: sum(d.kind == kind for d in found) for kind in KINDS},
        "decisions": [{"turn": d.turn, "kind": d.kind, "reason": d.reason[:160]} for d in found],
    }


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    directory = Path(args[0]) if args else None
    files = sorted(directory.glob("*.jsonl")) if directory and directory.is_dir() else []
    if not files:
        print(f"no transcripts found in {directory}; nothing to measure")
        return 0
    rows = [measure(path) for path in files]
    calls = sum(int(str(r["tool_calls"])) for r in rows)
    totals = {kind: sum(int(str(r[kind])) for r in rows) for kind in KINDS}
    per_k = {kind: round(1000 * n / calls, 2) if calls else 0.0 for kind, n in totals.items()}
    if "--json" in argv:
        print(
            json.dumps(
                {
                    "files": rows,
                    "tool_calls": calls,
                    "totals": totals,
                    "per_1000_tool_calls": per_k,
                },
                indent=1,
            )
        )
        return 0
    for r in rows:
        print(
            f"{r['file']:<50} calls {r['tool_calls']:>5}  turns {r['turns']:>4}  "
            + "  ".join(f"{kind} {r[kind]}" for kind in KINDS)
        )
        for d in r["decisions"]:  # type: ignore[attr-defined]
            print(f"    turn {d['turn']:>4} {d['kind']}: {d['reason']}")
    print(
        f"{len(rows)} sessions, {calls} tool calls: "
        + ", ".join(f"{totals[k]} {k} ({per_k[k]} per 1,000 calls)" for k in KINDS)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
