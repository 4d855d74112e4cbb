"""`install --statusline --force` then `uninstall` gives back the user's own status line.

The backup beside the settings file is overwritten by every later write, so the line arcguard
replaced must be kept in a record of its own and restored, byte for byte, by uninstall.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from testing.cli import invoke

from arcguard.claude_settings import replaced
from arcguard.claude_settings import settings_files as cc
from arcguard.claude_settings import statusline_plan as sl


VERSION = ("--claude-version", "2.1.328")

ORIGINALS = [
    '{"statusLine": {"type": "command", "command": "~/bin/my-status.sh"}}\n',
    '{\n  "model": "opus",\n  "statusLine": {\n    "command": "~/bin/s.sh",\n'
    '    "type": "command",\n    "padding": 2\n  },\n  "env": {"A": "1"}\n}\n',
    '{\n\t"statusLine":{"type":"command","command":"printf \'%s\' \\"\\u00e9\\""},\n'
    '\t"permissions": {"allow": ["Bash(ls)"]}\n}',
    '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "my-stop.sh"}]}]},'
    ' "statusLine": {"type": "command", "command": "status", "padding": 0}}',
    '{ "statusLine" : { "type" : "command" , "command" : "a b c" } , "x" : [ 1.50, -0 ] }\n',
]


def settings_file(project: Path) -> Path:
    return cc.settings_path("project", project, os.environ)


def run(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.output


def round_trip(project: Path, original: str) -> None:
    path = settings_file(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(original)
    where = ("--scope", "project", "--project", str(project))
    run("install", *where, *VERSION)
    run("install", *where, *VERSION)
    run("install", *where, *VERSION, "--statusline", "--force")
    assert sl.is_ours(json.loads(path.read_text())["statusLine"])
    run("install", *where, *VERSION, "--statusline", "--force")  # a second one keeps the record
    assert "put back the status line" in run("uninstall", *where)
    assert path.read_text() == original
    assert replaced.kept(os.environ, path) is None


@pytest.mark.parametrize("original", ORIGINALS)
def test_item7_force_then_uninstall_gives_back_the_original_bytes(tmp_path, original):
    round_trip(tmp_path, original)


def test_item7_the_users_line_survives_the_backup_being_overwritten(tmp_path):
    original = ORIGINALS[0]
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(original)
    where = ("--scope", "project", "--project", str(tmp_path))
    run("install", *where, *VERSION, "--statusline", "--force")
    run("install", *where, "--claude-version", "2.1.78")  # other events: the file is rewritten
    backup = path.with_name(path.name + cc.BACKUP_SUFFIX)
    assert "my-status.sh" not in backup.read_text()  # the backup alone has lost it
    run("uninstall", *where)
    assert path.read_text() == original


def test_item7_a_line_set_by_hand_after_the_force_is_kept_and_the_record_dropped(tmp_path):
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(ORIGINALS[0])
    where = ("--scope", "project", "--project", str(tmp_path))
    run("install", *where, *VERSION, "--statusline", "--force")
    mine = {"type": "command", "command": "newer.sh"}
    path.write_text(json.dumps({**json.loads(path.read_text()), "statusLine": mine}))
    run("uninstall", *where)
    assert json.loads(path.read_text()) == {"statusLine": mine}
    assert replaced.kept(os.environ, path) is None


def test_item7_no_forced_install_when_the_record_cannot_be_kept(tmp_path, monkeypatch):
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(ORIGINALS[0])
    monkeypatch.setenv("ARCGUARD_HOME", "relative/state")
    result = invoke(
        "install", "--scope", "project", "--project", str(tmp_path), *VERSION,
        "--statusline", "--force",
    )  # fmt: skip
    assert result.exit_code != 0 and "nothing was written" in result.output
    assert "my-status.sh" in path.read_text()


def test_item7_a_dry_run_keeps_no_record(tmp_path):
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(ORIGINALS[0])
    where = ("--scope", "project", "--project", str(tmp_path))
    run("install", *where, *VERSION, "--statusline", "--force", "--dry-run")
    assert path.read_text() == ORIGINALS[0] and replaced.kept(os.environ, path) is None


texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
entries = st.fixed_dictionaries(
    {"type": st.just("command"), "command": texts.filter(bool)},
    optional={"padding": st.integers(0, 4), "note": texts},
)
others = st.dictionaries(
    st.sampled_from(["model", "env", "permissions", "x"]),
    st.one_of(texts, st.integers(), st.lists(texts, max_size=2)),
    max_size=3,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entry=entries,
    rest=others,
    first=st.booleans(),
    indent=st.sampled_from([None, 2, 4, "\t"]),
    ascii_only=st.booleans(),
)
def test_item7_round_trip_over_generated_settings(entry, rest, first, indent, ascii_only):
    document = {"statusLine": entry, **rest} if first else {**rest, "statusLine": entry}
    original = json.dumps(document, indent=indent, ensure_ascii=ascii_only)
    with tempfile.TemporaryDirectory() as scratch:
        round_trip(Path(scratch), original)


def test_item7_a_kept_text_is_spliced_back_only_where_it_means_the_same_value():
    from arcguard.claude_settings import json_text

    text = '{"a": 1, "statusLine": {"command": "\\u00e9"}}'
    assert json_text.member_text(text, "statusLine") == '{"command": "\\u00e9"}'
    assert json_text.member_text(text, "missing") is None
    rendered = '{"a": 1, "statusLine": {"command": "é"}}'
    assert json_text.with_member_text(rendered, "statusLine", '{"command": "\\u00e9"}') == text
    assert json_text.with_member_text(rendered, "statusLine", '{"command": "x"}') == rendered
    assert json_text.with_member_text(rendered, "statusLine", "{") == rendered


def test_item7_install_and_uninstall_without_a_forced_line_create_no_state_directory(tmp_path):
    from arcguard.storage import paths

    where = ("--scope", "project", "--project", str(tmp_path))
    run("install", *where, *VERSION, "--statusline")
    run("uninstall", *where)
    assert not os.path.exists(paths.state_dir(os.environ))


def test_item7_a_plain_statusline_install_does_not_need_the_record(tmp_path, monkeypatch):
    monkeypatch.setenv("ARCGUARD_HOME", "relative/state")
    where = ("--scope", "project", "--project", str(tmp_path))
    run("install", *where, *VERSION, "--statusline")
    assert sl.is_ours(json.loads(settings_file(tmp_path).read_text())["statusLine"])
