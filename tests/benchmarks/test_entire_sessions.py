"""benchmarks/entire_sessions.py on a repository made here: each Claude Code session once, its
largest copy, other agents' sessions and sessions without a tool call left out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from testing.builders import REPO


SCRIPT = REPO / "benchmarks" / "entire_sessions.py"


def _transcript(session: str, calls: int, version: str = "2.1.100") -> str:
    lines = [{"type": "user", "sessionId": session, "message": {"content": "go"}}]
    for n in range(calls):
        use = {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": "ls"}}
        message = {"content": [use]}
        lines.append(
            {"type": "assistant", "sessionId": session, "version": version, "message": message}
        )
    return "".join(json.dumps(line) + "\n" for line in lines)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_each_claude_code_session_is_written_once_from_its_largest_checkpoint(tmp_path):
    repo = tmp_path / "shop"
    files = {
        "ab/cdef01/0/full.jsonl": _transcript("s-one-1234", 2),
        "ab/cdef01/0/metadata.json": json.dumps({"agent": "Claude Code"}),
        "ab/cdef01/1/full.jsonl": _transcript("s-one-1234", 5),  # the same session, grown
        "cd/ef0123/0/full.jsonl": _transcript("s-two-5678", 3),  # no metadata: read
        "ef/012345/0/full.jsonl": _transcript("s-codex-99", 4),
        "ef/012345/0/metadata.json": json.dumps({"agent": "Codex"}),
        "01/234567/0/full.jsonl": _transcript("s-talk-000", 0),  # no tool call
        "23/456789/0/full.jsonl": _transcript("../../x", 1),  # an id that is no file name
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    _git(repo.parent, "init", "-q", "-b", "entire/checkpoints/v1", str(repo))
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "checkpoints")
    out = tmp_path / "body"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(repo / ".git"), "--out", str(out)],
        capture_output=True,
        text=True,
        check=True,
    )

    written = sorted(p.name for p in out.iterdir())
    assert written == ["shop-s-one-12.jsonl", "shop-s-two-56.jsonl", "shop-x.jsonl"]
    assert (out / "shop-s-one-12.jsonl").read_text() == files["ab/cdef01/1/full.jsonl"]
    assert "tool calls in the sessions written: 9" in done.stdout
