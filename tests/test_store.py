"""The state store: locked read-modify-write, quarantine, file names that cannot escape."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from arcguard import paths
from arcguard import store
from arcguard.core.state import SCHEMA
from arcguard.core.state import fresh_state


def arcguard(*args, check=True):
    return subprocess.run([sys.executable, "-m", "arcguard", *args], capture_output=True,
                          text=True, check=check)


def state_file(sid):
    return paths.session_path(os.environ["ARCGUARD_HOME"], sid)


def test_sixteen_processes_bumping_and_blocking_lose_no_update():
    arcguard("arc", "set", "busy", "demo")
    jobs = [("arc", "bump", "busy", "reconcile_count")] * 8 + \
           [("arc", "try-block", "busy", "100", "100")] * 8
    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(lambda job: arcguard(*job), jobs))
    assert sum(r.stdout.strip() == "BLOCK" for r in results) == 8
    with open(state_file("busy")) as handle:
        arc = json.load(handle)["arc"]
    assert arc["reconcile_count"] == 16 and arc["total_blocks"] == 8


def test_a_corrupt_state_file_is_quarantined_and_read_as_no_arc(tmp_path):
    arcguard("arc", "set", "broken", "demo")
    path = state_file("broken")
    with open(path, "w") as handle:
        handle.write('{"schema": 1, "arc": {"active": tru')
    assert arcguard("arc", "status", "broken").stdout.strip() == "inactive"
    aside = [n for n in os.listdir(os.path.dirname(path)) if ".corrupt-" in n]
    assert len(aside) == 1 and aside[0].startswith(os.path.basename(path))
    log = open(paths.error_log(os.environ["ARCGUARD_HOME"])).read()
    assert "quarantined" in log


def test_a_wrong_schema_is_not_used():
    arcguard("arc", "set", "old", "demo")
    path = state_file("old")
    document = json.load(open(path))
    document["schema"] = SCHEMA + 1
    json.dump(document, open(path, "w"))
    assert arcguard("arc", "status", "old").stdout.strip() == "inactive"


@pytest.mark.parametrize("sid", ["../../etc/x", "/abs/path", "", "..", ".", ".hidden",
                                 "a/../../b", "x" * 10_000, "nul\0byte", "日本語"])
def test_hostile_session_ids_stay_inside_the_sessions_directory(sid, tmp_path):
    home = str(tmp_path / "state")
    path = paths.session_path(home, sid)
    assert os.path.dirname(path) == os.path.join(home, "sessions")
    name = os.path.basename(path)
    assert name not in (".json", "..json") and not name.startswith(".")
    assert len(name) < 200 and set(name) <= paths.SAFE_CHARS
    store.update(home, sid, lambda s: (fresh_state(sid, 1.0), None), now=1.0, lock_timeout=1)
    assert os.listdir(os.path.join(home, "sessions"))


def test_distinct_ids_that_sanitise_alike_get_distinct_files(tmp_path):
    assert paths.session_file_name("a/b") != paths.session_file_name("a_b")
    assert paths.session_file_name("plain-id_1.x") == "plain-id_1.x.json"


def test_writes_are_atomic_and_leave_no_temp_files(tmp_path):
    home = str(tmp_path / "state")
    for n in range(5):
        store.update(home, "s", lambda s, n=n: ({**fresh_state("s", 1.0), "n": n}, None),
                     now=1.0, lock_timeout=1)
    names = os.listdir(os.path.join(home, "sessions"))
    assert sorted(names) == ["s.json", "s.json.lock"]
    assert oct(os.stat(os.path.join(home, "sessions", "s.json")).st_mode & 0o777) == "0o600"
    assert oct(os.stat(home).st_mode & 0o777) == "0o700"


def test_an_unchanged_state_is_not_rewritten(tmp_path):
    home = str(tmp_path / "state")
    store.update(home, "s", lambda s: (fresh_state("s", 1.0), None), now=1.0, lock_timeout=1)
    path = paths.session_path(home, "s")
    before = os.stat(path).st_ino
    store.update(home, "s", lambda s: (None, None), now=2.0, lock_timeout=1)
    assert os.stat(path).st_ino == before
