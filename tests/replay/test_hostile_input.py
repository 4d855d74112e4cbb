"""Replay and forensics on transcripts written to attack them."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from arcguard.replay import replay
from tests.forensics.builder import Transcript


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize("session_id", [
    "ABSOLUTE", "../../escaped", "../../../escaped-too", "a\x00b", "x" * 10_000,
    "sub/dir/name", "~/home-relative", ".", "..",
])
def test_replay_writes_only_inside_its_scratch_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, session_id: str) -> None:
    if session_id == "ABSOLUTE":
        session_id = str(tmp_path / "victim" / "sub" / "x")
    scratch = tmp_path / "scratch" / "deeper"
    scratch.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    source = Transcript(session_id=session_id).prompt("go").bash("ls", "a").text("done")
    path = source.write(tmp_path / "in" / "t.jsonl")
    before = files_under(tmp_path)
    result = replay(str(path))
    assert result.turns == 2
    assert files_under(tmp_path) == before  # nothing left behind, nothing created elsewhere
    assert os.listdir(scratch) == []
