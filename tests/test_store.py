"""The state store: locked read-modify-write, quarantine, file names that cannot escape."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from arcguard.core.state import SCHEMA
from arcguard.core.state import fresh_state
from arcguard.storage import paths
from arcguard.storage import store


def arcguard(*args, check=True):
    return subprocess.run(
        [sys.executable, "-m", "arcguard", *args], capture_output=True, text=True, check=check
    )


def state_file(sid):
    return paths.session_path(os.environ["ARCGUARD_HOME"], sid)


def test_sixteen_processes_bumping_and_blocking_lose_no_update():
    arcguard("arc", "set", "busy", "demo")
    jobs = [("arc", "bump", "busy", "reconcile_count")] * 8 + [
        ("arc", "try-block", "busy", "100", "100")
    ] * 8
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


@pytest.mark.parametrize(
    "sid",
    [
        "../../etc/x",
        "/abs/path",
        "",
        "..",
        ".",
        ".hidden",
        "a/../../b",
        "x" * 10_000,
        "nul\0byte",
        "日本語",
    ],
)
def test_hostile_session_ids_stay_inside_the_sessions_directory(sid, tmp_path):
    home = str(tmp_path / "state")
    path = paths.session_path(home, sid)
    assert os.path.dirname(path) == os.path.join(home, "sessions")
    name = os.path.basename(path)
    assert name not in (".json", "..json") and not name.startswith(".")
    assert len(name) < 200 and set(name) <= paths.SAFE_CHARS | {".", paths.DIGEST_MARK}
    store.update(home, sid, lambda s: (fresh_state(sid, 1.0), None), now=1.0, lock_timeout=1)
    assert os.listdir(os.path.join(home, "sessions"))


def test_distinct_ids_that_sanitise_alike_get_distinct_files(tmp_path):
    assert paths.session_file_name("a/b") != paths.session_file_name("a_b")
    assert paths.session_file_name("plain-id_1") == "plain-id_1.json"


def test_an_id_named_like_another_ids_digest_name_gets_its_own_file():
    # Under CRC32 suffixes `a/b` and `a_b-07f4401c` shared a file.
    digest_named = paths.session_file_name("a/b").removesuffix(".json")
    assert paths.session_file_name(digest_named) != paths.session_file_name("a/b")
    assert paths.session_file_name("a/b") != paths.session_file_name("a_b-07f4401c")


def test_ids_differing_only_in_case_get_distinct_files():
    # A case-insensitive file system would otherwise give both one file.
    names = {paths.session_file_name(sid).lower() for sid in ("abc", "ABC", "aBc")}
    assert len(names) == 3


def test_a_claude_code_session_id_keeps_its_plain_file_name():
    sid = "5e39b687-9b89-42b8-bcfe-86a4a62bd8b6"
    assert paths.session_file_name(sid) == sid + ".json"


def test_unsafe_ids_are_named_by_a_256_bit_digest_of_the_exact_id():
    name = paths.session_file_name("x" * 500 + "/1")
    digest = name.removesuffix(".json").rpartition(paths.DIGEST_MARK)[2]
    assert len(digest) == 64 and name != paths.session_file_name("x" * 500 + "/2")


def test_orphan_cleanup_leaves_a_session_named_like_a_temp_file_alone(tmp_path):
    home = str(tmp_path / "state")
    store.update(
        home,
        "a.json.tmp-1",
        lambda s: (fresh_state("a.json.tmp-1", 1.0), None),
        now=1.0,
        lock_timeout=1,
    )
    other = paths.session_path(home, "a.json.tmp-1")
    # The shape the old name scheme gave this id, which also began with `a.json.tmp-`.
    legacy_like = os.path.join(paths.sessions_dir(home), "a.json.tmp-1.json")
    with open(legacy_like, "w") as handle:
        handle.write("{}")
    store.update(home, "a", lambda s: (fresh_state("a", 1.0), None), now=1.0, lock_timeout=1)
    assert os.path.exists(other) and os.path.exists(legacy_like)


def test_orphan_cleanup_removes_a_killed_writers_temp_file(tmp_path):
    home = str(tmp_path / "state")
    path = paths.session_path(home, "a")
    paths.ensure_sessions_dir(home)
    orphan = f"{path}.tmp-123-456789"
    open(orphan, "w").close()
    store.update(home, "a", lambda s: (fresh_state("a", 1.0), None), now=1.0, lock_timeout=1)
    assert not os.path.exists(orphan)


def _write_legacy(home, sid, state):
    paths.ensure_sessions_dir(home)
    legacy = os.path.join(paths.sessions_dir(home), paths.legacy_session_file_name(sid))
    with open(legacy, "w") as handle:
        json.dump(state, handle)
    return legacy


def test_state_under_the_old_file_name_is_read_and_moved_to_the_new_one(tmp_path):
    home, sid = str(tmp_path / "state"), "Mixed.Case/id"
    legacy = _write_legacy(home, sid, {**fresh_state(sid, 1.0), "arc": {"slug": "kept"}})
    assert store.read_session(home, sid)["arc"] == {"slug": "kept"}
    seen = store.update(home, sid, lambda s: (s, s and s["arc"]), now=2.0, lock_timeout=1)
    assert seen == {"slug": "kept"}
    assert not os.path.exists(legacy)
    with open(paths.session_path(home, sid)) as handle:
        assert json.load(handle)["arc"] == {"slug": "kept"}


def test_an_old_file_name_shared_with_another_id_is_not_taken_over(tmp_path):
    home = str(tmp_path / "state")
    legacy = _write_legacy(home, "a/b", fresh_state("a_b-07f4401c", 1.0))
    assert store.read_session(home, "a/b") is None
    store.update(
        home,
        "a/b",
        lambda s: (fresh_state("a/b", 2.0) if s is None else s, None),
        now=2.0,
        lock_timeout=1,
    )
    assert os.path.exists(legacy)


def test_a_change_that_stores_nothing_leaves_no_lock_file(tmp_path):
    home = str(tmp_path / "state")
    assert store.update(home, "nobody", lambda s: (None, "no"), now=1.0, lock_timeout=1) == "no"
    assert not os.path.exists(paths.sessions_dir(home))


def test_writes_are_atomic_and_leave_no_temp_files(tmp_path):
    home = str(tmp_path / "state")
    for n in range(5):
        store.update(
            home,
            "s",
            lambda s, n=n: ({**fresh_state("s", 1.0), "n": n}, None),
            now=1.0,
            lock_timeout=1,
        )
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


def test_an_unsafe_id_costs_the_hook_path_no_hashlib_import(tmp_path):
    payload = json.dumps(
        {
            "session_id": "Odd/Id",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "t1",
        }
    )
    for _ in range(2):  # the second run finds the state file under its new name
        result = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "arcguard", "hook", "pre-tool"],
            input=payload,
            capture_output=True,
            text=True,
            check=True,
        )
        loaded = {line.split("|")[-1].strip() for line in result.stderr.splitlines()}
        assert "hashlib" not in loaded
    assert "zlib" not in loaded
    assert os.path.exists(state_file("Odd/Id"))


def test_a_state_file_invalid_deep_inside_is_quarantined_and_the_hook_still_decides(tmp_path):
    arcguard("arc", "set", "deep", "demo")
    path = state_file("deep")
    document = json.load(open(path))
    document["guard"]["tracks"] = [1]
    json.dump(document, open(path, "w"))
    assert store.read_session(os.environ["ARCGUARD_HOME"], "deep") is None
    payload = json.dumps(
        {
            "session_id": "deep",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "t1",
        }
    )
    result = subprocess.run(
        [sys.executable, "-m", "arcguard", "hook", "pre-tool"],
        input=payload,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout == ""
    aside = [n for n in os.listdir(os.path.dirname(path)) if ".corrupt-" in n]
    assert len(aside) == 1
    assert store.read_state(path)["guard"]["tracks"]["main"]["seq"] == 1
    log = open(paths.error_log(os.environ["ARCGUARD_HOME"])).read()
    assert "state.guard.tracks: expected an object" in log


def test_session_state_is_written_without_a_disk_sync_but_user_files_are_synced(
    tmp_path, monkeypatch
):
    # A hook writes the state on every tool call; a sync there costs each call milliseconds.
    # A file of the user's (settings) is still synced before and after its rename.
    from arcguard.storage import atomic

    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    home = str(tmp_path / "state")
    store.update(home, "s", lambda s: (fresh_state("s", 1.0), None), now=1.0, lock_timeout=1)
    assert synced == []
    atomic.atomic_write(str(tmp_path / "settings.json"), b"{}")
    assert len(synced) == 2  # the file, then its directory


def test_a_verb_waits_for_the_lock_a_hook_holds_and_never_imports_filelock(tmp_path):
    from arcguard.storage import atomic

    arcguard("arc", "set", "shared", "demo")
    path = state_file("shared")
    # Held as a hook holds it: the verb's update must wait, whatever holds the file.
    with atomic.locked(path, 1.0):
        waiting = subprocess.Popen(
            [sys.executable, "-X", "importtime", "-m", "arcguard", "arc", "done", "shared", "x"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        with pytest.raises(subprocess.TimeoutExpired):
            waiting.wait(timeout=1.0)
    _, stderr = waiting.communicate(timeout=30)
    loaded = {line.split("|")[-1].strip() for line in stderr.splitlines()}
    assert "click" in loaded and "filelock" not in loaded
