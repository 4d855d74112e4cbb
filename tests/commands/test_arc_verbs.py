"""`arcguard arc ...`: the helper verbs, their outputs and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from arcguard.storage import paths


def arc(*args):
    return subprocess.run(
        [sys.executable, "-m", "arcguard", "arc", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_lifecycle():
    assert arc("set", "s", "demo", "slice one", "slice two").stdout == "active demo\n"
    assert arc("active", "s").returncode == 0
    assert arc("next", "s").stdout == "slice one\n"
    assert arc("try-block", "s").stdout == "BLOCK\n"
    assert arc("get", "s", "total_blocks").stdout == "1\n"
    assert arc("reset", "s", "reconcile_count").stdout == "0\n"
    assert arc("status", "s").stdout == "active demo\n"
    assert arc("complete", "s").stdout == "inactive\n"
    assert arc("active", "s").returncode == 1
    assert arc("status", "s").stdout == "inactive\n"
    sessions = os.listdir(paths.sessions_dir(os.environ["ARCGUARD_HOME"]))
    assert not [n for n in sessions if ".tmp-" in n]


def test_done_marks_a_milestone_and_next_moves_on():
    arc("set", "s", "importer", "parse", "load")
    assert arc("done", "s", "parse").stdout == "load\n"
    assert arc("next", "s").stdout == "load\n"
    assert arc("done", "s", "load").stdout == "\n"
    assert arc("next", "s").stdout == "\n"
    missing = arc("done", "s", "nope")
    assert missing.returncode == 1 and "no milestone 'nope'" in missing.stderr


def test_try_block_honours_both_caps():
    arc("set", "s")
    assert [arc("try-block", "s", "2", "5").stdout.strip() for _ in range(3)] == [
        "BLOCK",
        "BLOCK",
        "CAP",
    ]
    arc("set", "t")
    out = []
    for _ in range(7):
        out.append(arc("try-block", "t", "9", "5").stdout.strip())
    assert out.count("BLOCK") == 5
    assert arc("try-block", "t", "", "").stdout.strip() == "CAP"  # empty: the configured caps


@pytest.mark.parametrize("caps", [("²",), ("x", "5"), ("9" * 5000,), ("٣", "3"), ("2", "1.5")])
def test_try_block_refuses_caps_that_are_not_whole_numbers_without_a_traceback(caps):
    arc("set", "s")
    result = arc("try-block", "s", *caps)
    assert result.returncode == 2 and result.stdout == ""
    assert "Error: " in result.stderr and "Traceback" not in result.stderr
    assert arc("get", "s", "total_blocks").stdout == "0\n"


def test_verbs_that_store_nothing_leave_no_lock_file_for_an_unknown_session():
    for verb in (
        ("status",),
        ("next",),
        ("active",),
        ("get", "slug"),
        ("complete",),
        ("try-block",),
    ):
        arc(*verb, "nobody")
    sessions = paths.sessions_dir(os.environ["ARCGUARD_HOME"])
    assert not os.path.exists(sessions) or os.listdir(sessions) == []


def test_a_stale_arc_is_inactive_and_get_next_ignore_staleness():
    arc("set", "s", "demo", "m1")
    path = paths.session_path(os.environ["ARCGUARD_HOME"], "s")
    document = json.load(open(path))
    document["arc"]["invoked_at"] = document["arc"]["last_activity"] = "2020-01-01T00:00:00Z"
    json.dump(document, open(path, "w"))
    assert arc("active", "s").returncode == 1
    assert arc("status", "s").stdout == "inactive\n"
    assert arc("next", "s").stdout == "m1\n"
    assert arc("get", "s", "slug").stdout == "demo\n"


def test_missing_arguments_are_usage_errors():
    assert arc("set").returncode == 2
    assert arc("frobnicate", "s").returncode == 2
    assert arc("get", "s", "nothing").stdout == "\n"


def test_a_slug_or_milestone_with_control_characters_is_printed_escaped():
    # What was typed is stored as typed, but never reaches the terminal as control codes.
    done = arc("set", "s", "demo\x1b[2J", "clear\x07 screen")
    assert done.stdout == "active demo\\x1b[2J\n"
    assert arc("next", "s").stdout == "clear\\x07 screen\n"
    assert arc("status", "s").stdout == "active demo\\x1b[2J\n"
