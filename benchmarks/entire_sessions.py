"""Claude Code sessions out of the Entire checkpoints of git repositories, one file each.

    python benchmarks/entire_sessions.py GIT_DIR... --out DIR [--max-bytes N]

Repositories that use Entire keep each agent session's transcript on checkpoint refs: the
branch `entire/checkpoints/v1` (`<id[0:2]>/<id[2:]>/<n>/full.jsonl`, with a `metadata.json`
beside it naming the agent) or, in newer ones, refs under `refs/entire/checkpoints/` (a
`full.jsonl` or `raw_transcript` per checkpoint). GIT_DIR is a clone's `.git` folder or a bare
mirror (`git clone --mirror` fetches every ref). The script reads those refs with `git
ls-tree` and `git cat-file` (it checks nothing out and runs nothing the repository holds) and
writes each Claude Code session once, as `<repository>-<session id prefix>.jsonl` in DIR: a
session stored at several checkpoints keeps its largest copy. A transcript is Claude Code's
when its metadata names Claude Code or, without metadata, when it has an assistant entry
calling a tool and a `2.x` release number; sessions with no tool call are left out, and so
are blobs of `--max-bytes` (4 MiB) or more. It prints what it kept and left out, and the tool
calls kept; `arcguard replay DIR --summary` or `benchmarks/field_trial.py --corpus DIR` then
run arcguard over them. The files are other people's work: keep them out of the repository.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any


TRANSCRIPTS = frozenset({"full.jsonl", "raw_transcript"})
MAX_BYTES = 4 * 1024 * 1024


class Blobs:
    """One `git cat-file --batch` process: blob contents by id, None when absent."""

    def __init__(self, git_dir: Path) -> None:
        self.proc = subprocess.Popen(
            ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def get(self, sha: str) -> bytes | None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(sha.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3:
            return None  # "<sha> missing": a blob the clone does not have
        data = self.proc.stdout.read(int(header[2]))
        self.proc.stdout.read(1)
        return data

    def close(self) -> None:
        self.proc.communicate()


def _git(git_dir: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "--git-dir", str(git_dir), *args], capture_output=True, check=False
    )
    return done.stdout.decode("utf-8", "replace")


def checkpoint_refs(git_dir: Path) -> list[str]:
    refs = _git(git_dir, "for-each-ref", "--format=%(refname)").split()
    return [ref for ref in refs if "entire/checkpoints" in ref]


def tree(git_dir: Path, ref: str) -> dict[str, tuple[str, int]]:
    """Every blob under `ref`: path -> (id, size)."""
    found = {}
    for line in _git(git_dir, "ls-tree", "-r", "-l", ref).splitlines():
        meta, _, path = line.partition("\t")
        parts = meta.split()
        if len(parts) == 4 and parts[1] == "blob":
            found[path] = (parts[2], int(parts[3]) if parts[3].isdigit() else 0)
    return found


def _entries(data: bytes) -> list[dict[str, Any]]:
    found = []
    for line in data.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            found.append(entry)
    return found


def _tool_uses(entry: dict[str, Any]) -> int:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if entry.get("type") != "assistant" or not isinstance(content, list):
        return 0
    return sum(isinstance(b, dict) and b.get("type") == "tool_use" for b in content)


def looks_like_claude_code(entries: list[dict[str, Any]]) -> bool:
    release = any(str(e.get("version", "")).startswith("2.") for e in entries)
    return release and any(_tool_uses(e) for e in entries)


def agent_of(blobs: Blobs, files: dict[str, tuple[str, int]], path: str) -> str | None:
    meta = files.get(str(Path(path).parent / "metadata.json"))
    data = blobs.get(meta[0]) if meta else None
    try:
        agent = json.loads(data).get("agent") if data else None
    except (ValueError, AttributeError):
        return None
    return agent if isinstance(agent, str) else None


def collect(git_dir: Path, max_bytes: int, counts: Counter[str]) -> dict[str, bytes]:
    """Session id -> its largest Claude Code transcript in this repository."""
    blobs, seen = Blobs(git_dir), set()
    kept: dict[str, bytes] = {}
    for ref in checkpoint_refs(git_dir):
        files = tree(git_dir, ref)
        for path, (sha, size) in files.items():
            if Path(path).name not in TRANSCRIPTS or sha in seen:
                continue
            seen.add(sha)
            agent = agent_of(blobs, files, path)
            data = blobs.get(sha) if size < max_bytes else None
            if data is None:
                counts["too large or absent"] += 1
                continue
            entries = _entries(data)
            claude = "claude" in agent.lower() if agent else looks_like_claude_code(entries)
            session = next((e["sessionId"] for e in entries if e.get("sessionId")), None)
            if not claude or not isinstance(session, str):
                counts["another agent's, or no session id"] += 1
            elif len(data) > len(kept.get(session, b"")):
                kept[session] = data
    blobs.close()
    return kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dirs", nargs="+", type=Path, metavar="GIT_DIR")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--max-bytes", type=int, default=MAX_BYTES)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    counts: Counter[str] = Counter()
    calls = 0
    for git_dir in args.git_dirs:
        path = git_dir.absolute()
        name = path.name.removesuffix(".git") or path.parent.name  # a clone's `.git`: its folder
        for session, data in collect(git_dir, args.max_bytes, counts).items():
            tools = sum(_tool_uses(e) for e in _entries(data))
            if not tools:
                counts["no tool call"] += 1
                continue
            # The id is the transcript's text: only its letters, digits and dashes name a file.
            stem = "".join(c for c in session[:8] if c.isalnum() or c == "-") or "session"
            (args.out / f"{name}-{stem}.jsonl").write_bytes(data)
            counts["sessions written"] += 1
            calls += tools
    for what, n in sorted(counts.items()):
        print(f"{what}: {n}")
    print(f"tool calls in the sessions written: {calls}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
