"""The peers' table script: it reads a session as arcguard's replay does, judges a tiny
labelled suite, and says so rather than failing when there is no corpus."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from testing.benchmarks import EXAMPLES
from testing.benchmarks import run_benchmark
from testing.builders import REPO
from testing.builders import Transcript
from testing.real_sessions import REAL
from testing.real_sessions import labelled


sys.path.insert(0, str(REPO / "benchmarks"))
from peer_sessions import Call
from peer_sessions import Prompt
from peer_sessions import Reply
from peer_sessions import read_session


def spin(path: Path, n: int) -> Path:
    t = Transcript(session_id="peers-spin")
    t.prompt("Make the tests pass.")
    for _ in range(n):
        t.tools(("Bash", {"command": "make test"}, "Exit code 2\nFAIL"), error=True)
    t.text("I could not make them pass.")
    return t.write(path)


def test_a_session_reads_as_prompts_calls_and_replies_numbered_by_turn(tmp_path: Path) -> None:
    session = read_session(spin(tmp_path / "spin.jsonl", 3))
    items = session.agents[None]
    assert [type(i) for i in items] == [Prompt, Call, Call, Call, Reply]
    assert [i.turn for i in items] == [0, 1, 2, 3, 4]
    call = items[1]
    assert isinstance(call, Call)
    assert (call.name, call.error, call.output) == ("Bash", True, "Exit code 2\nFAIL")
    assert session.calls == 3


def test_the_table_judges_a_labelled_suite_without_a_corpus(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    spin(suite / "spin.jsonl", 12)
    label = {"kind": "loop", "by_turn": 8, "what": "the same failing command"}
    (suite / "spin.label.json").write_text(json.dumps(label))
    shutil.copy(EXAMPLES / "2-legitimate-stop.jsonl", suite / "legit.jsonl")
    (suite / "legit.label.json").write_text(json.dumps({"kind": "legit"}))
    out = tmp_path / "peers.json"
    done = run_benchmark(
        "peers.py",
        *("--suite", f"tiny={suite}", "--corpus", str(tmp_path / "absent")),
        *("--jobs", "1", "--json", str(out)),
    )
    assert done.returncode == 0, done.stderr
    assert "No corpus of real sessions at" in done.stdout
    totals = json.loads(out.read_text())["suites"]["tiny"]["totals"]
    assert totals["Roo Code"]["loops: stopped in time"] == "1 of 1"
    assert totals["opencode"]["loops: stopped in time"] == "0 of 1"
    assert totals["arcguard"]["legitimate runs untouched"] == "1 of 1"
    assert totals["gemini-cli"]["stalls sent back"] == "–"


def test_every_real_session_has_a_label_that_the_table_can_judge() -> None:
    sessions = labelled()
    assert {p.parent.name for p, _ in sessions} == {"tuning", "held-out"}
    for path, label in sessions:
        assert label["kind"] in ("loop", "stall", "legit"), path.name
        assert label["what"] and label["why"], path.name
        if label["kind"] != "legit":
            assert isinstance(label["by_turn"], int), path.name
    assert len(list(REAL.glob("*/*.label.json"))) == len(sessions)
