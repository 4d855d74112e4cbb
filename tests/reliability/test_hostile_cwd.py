"""A repository's own code never runs when arcguard starts a process from inside it.

Claude Code runs hooks from the project's directory, and `replay` or `demo` are often run from
inside a repository under inspection. A repository that ships an `arcguard/` package or a
`sitecustomize.py` / `usercustomize.py` at its root must not get it imported by any Python
arcguard starts: each of these writes a marker file if it ever runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest


SID = "5b1f0c2e-0000-4000-8000-00000000cccc"
RECORDER = "import sys; open(sys.argv[1], 'a').write(sys.stdin.read() + '\\n')"
EXAMPLE = Path(__file__).parents[2] / "src" / "arcguard" / "examples" / "1-stall-continued.jsonl"


def hostile_project(root: Path) -> tuple[Path, Path]:
    """(a project folder whose code writes into the markers folder when imported, markers)"""
    project, markers = root / "project", root / "markers"
    (project / "arcguard" / "hooks").mkdir(parents=True)
    markers.mkdir()
    for relative in (
        "arcguard/__init__.py",
        "arcguard/__main__.py",
        "arcguard/hooks/__init__.py",
        "arcguard/hooks/notify.py",
        "sitecustomize.py",
        "usercustomize.py",
    ):
        mark = markers / relative.replace("/", "-")
        (project / relative).write_text(f"open({str(mark)!r}, 'w').write('ran')\n")
    return project, markers


def arcguard_from(project: Path, *args: str, payload: object = None, **env: str):
    """An arcguard command started from `project`, isolated itself, as the hooks are."""
    return subprocess.run(
        [sys.executable, "-I", "-m", "arcguard", *args],
        input=json.dumps(payload).encode() if payload is not None else b"",
        cwd=project,
        env={**os.environ, **env},
        capture_output=True,
        timeout=120,
        check=False,
    )


def wait_for(path: Path) -> bool:
    for _ in range(400):
        if path.exists() and path.read_text().strip():
            return True
        time.sleep(0.05)
    return False


def test_a_repository_package_never_runs_when_arcguard_notifies(tmp_path):
    project, markers = hostile_project(tmp_path)
    events = tmp_path / "events.jsonl"
    env = {
        "ARCGUARD_MAX_CONTINUATIONS_PER_ARC": "1",
        "ARCGUARD_NOTIFY_COMMAND": json.dumps([sys.executable, "-c", RECORDER, str(events)]),
    }
    prompt = {"session_id": SID, "prompt": "/autonomous go"}
    stall = {
        "session_id": SID,
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": "No response requested.",
    }
    assert arcguard_from(project, "hook", "posture", payload=prompt, **env).returncode == 0
    for _ in range(2):  # the arc's one continuation, then the cap: a notification
        assert arcguard_from(project, "hook", "stop", payload=stall, **env).returncode == 0
    assert wait_for(events)  # the notify command did run
    assert json.loads(events.read_text().splitlines()[0])["kind"] == "cap"
    assert sorted(os.listdir(markers)) == []


def test_a_repository_package_never_runs_when_replay_runs_hooks_as_subprocesses(tmp_path):
    project, markers = hostile_project(tmp_path)
    done = arcguard_from(project, "replay", "--subprocess", "--json", str(EXAMPLE))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["decisions"]  # the hooks ran and decided
    assert sorted(os.listdir(markers)) == []


def test_a_repository_package_never_runs_during_demo(tmp_path):
    project, markers = hostile_project(tmp_path)
    done = arcguard_from(project, "demo")
    assert done.returncode == 0, done.stderr
    assert b"sends the model back to work" in done.stdout
    assert sorted(os.listdir(markers)) == []


SCRIPT = Path(sys.executable).parent / "arcguard"


@pytest.mark.skipif(not SCRIPT.exists(), reason="no arcguard console script")
def test_a_repository_package_never_runs_when_the_console_script_replays(tmp_path):
    # The console script, run from the repository, starts the same isolated children.
    project, markers = hostile_project(tmp_path)
    done = subprocess.run(
        [str(SCRIPT), "replay", "--subprocess", str(EXAMPLE)],
        cwd=project,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(markers)) == []
