"""Files named from outside that are not regular files: FIFOs and links to devices.

A FIFO blocks an ordinary open until a writer comes and `/dev/zero` never ends; git stores
symlinks, so a cloned folder of transcripts can hold either. Every verb reads such files
through one reader (`storage.regular_file`) that refuses them at once. Each command here runs
as a real process under a timeout, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arcguard.claude_settings import settings_files
from arcguard.claude_settings.merge_plan import SettingsError
from arcguard.hooks import HOOKS
from arcguard.storage import regular_file
from tests.reliability import support


EXAMPLE = Path(__file__).parents[2] / "src" / "arcguard" / "examples" / "1-stall-continued.jsonl"
TIMEOUT = 30


def arcguard(*args: str, payload: bytes = b"", **env: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-I", "-m", "arcguard", *args],
        input=payload,
        env={**os.environ, **env},
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )


def plant(where: Path, kind: str) -> Path:
    where.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(where)
    else:
        where.symlink_to("/dev/zero")
    return where


# --- the reader ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_the_one_reader_refuses_a_fifo_or_a_device_link_at_once(tmp_path, kind):
    path = str(plant(tmp_path / "f.jsonl", kind))
    for read in (
        lambda: regular_file.read_bytes(path, 1024),
        lambda: regular_file.open_stream(path),
        lambda: regular_file.open_fd(path),
    ):
        with pytest.raises(regular_file.Refused) as refused:
            read()
        assert refused.value.reason == regular_file.NOT_REGULAR


def test_the_one_reader_refuses_a_folder_a_large_file_and_says_when_a_file_is_absent(tmp_path):
    (tmp_path / "big").write_bytes(b"x" * 2000)
    cases = [(tmp_path, regular_file.NOT_REGULAR), (tmp_path / "big", regular_file.TOO_LARGE)]
    cases.append((tmp_path / "absent", regular_file.MISSING))
    for path, reason in cases:
        with pytest.raises(regular_file.Refused) as refused:
            regular_file.read_bytes(str(path), 1000)
        assert refused.value.reason == reason
    (tmp_path / "ok").write_bytes(b"fine")
    (tmp_path / "link").symlink_to(tmp_path / "ok")
    assert regular_file.read_bytes(str(tmp_path / "link"), 1000) == b"fine"


def test_a_refusal_by_the_system_says_why_and_keeps_its_error_number(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(OSError) as refused:
        regular_file.read_bytes(str(loop), 1000)
    assert isinstance(refused.value, regular_file.Refused)
    assert refused.value.reason == regular_file.UNREADABLE
    assert refused.value.errno == errno.ELOOP
    assert str(refused.value) == f"{loop}: unreadable ({os.strerror(errno.ELOOP)})"


def test_settings_files_keep_their_refusals_through_the_one_reader(tmp_path):
    fifo = plant(tmp_path / "settings.json", "fifo")
    with pytest.raises(SettingsError) as refused:
        settings_files.read_regular(fifo)
    assert refused.value.kind == "not-regular"
    assert settings_files.read_regular(tmp_path / "absent.json") is None


# --- item: replay and forensics on FIFOs and device links ----------------------------------


@pytest.mark.parametrize("verb", ["replay", "forensics"])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_replay_and_forensics_skip_a_fifo_or_a_dev_zero_link_in_a_folder_instead_of_hanging(
    tmp_path, verb, kind
):
    folder = tmp_path / "transcripts"
    folder.mkdir()
    shutil.copy(EXAMPLE, folder / "good.jsonl")
    bad = plant(folder / "nested" / "bad.jsonl", kind)
    done = arcguard(verb, "--json", *(["--summary"] if verb == "replay" else []), str(folder))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    if verb == "forensics":
        assert report["skipped"] == {"not a regular file": 1}
        assert report["sessions"] == 1
    else:
        assert [row["transcript"] for row in report["files"]] == [str(folder / "good.jsonl")]
        assert f"skipped {bad}: not a regular file".encode() in done.stderr
        assert done.stderr.count(b"skipped") == 1


@pytest.mark.parametrize("verb", ["replay", "forensics"])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_fifo_or_a_dev_zero_link_named_as_an_argument_is_a_one_line_error_without_a_hang(
    tmp_path, verb, kind
):
    """Named by the user, it is an error, as any other path that is not a transcript is."""
    good = tmp_path / "good.jsonl"
    shutil.copy(EXAMPLE, good)
    bad = plant(tmp_path / "bad.jsonl", kind)
    done = arcguard(verb, str(bad), str(good))
    assert done.returncode == 1 and not done.stdout
    assert done.stderr.count(b"\n") == 1
    assert f"{bad}: not a regular file".encode() in done.stderr


# --- item: a FIFO at the config path ---------------------------------------------------------


SID = "5b1f0c2e-0000-4000-8000-00000000dddd"
PAYLOADS = {
    "posture": {"session_id": SID, "prompt": "hello"},
    "stop": support.stop(SID, message="All set."),
    "pre-tool": support.pre_tool(SID, "ls"),
    "post-tool": support.post_tool(SID, "ls"),
    "post-batch": {"session_id": SID, "hook_event_name": "PostToolBatch", "tool_calls": []},
    "session-start": {"session_id": SID, "hook_event_name": "SessionStart", "source": "startup"},
    "serve-start": {"session_id": SID, "hook_event_name": "SessionStart", "source": "startup"},
    "stop-failure": {"session_id": SID, "hook_event_name": "StopFailure", "error": "unknown"},
    "limit-wait": {"session_id": SID, "hook_event_name": "StopFailure", "error": "unknown"},
}


@pytest.fixture
def fifo_config(tmp_path, monkeypatch):
    config = plant(tmp_path / "config.toml", "fifo")
    monkeypatch.setenv("ARCGUARD_CONFIG", str(config))
    return config


def test_every_hook_is_named_here():
    assert set(PAYLOADS) == set(HOOKS)


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_a_fifo_config_never_holds_up_a_hook(fifo_config, hook):
    done = arcguard("hook", hook, payload=json.dumps(PAYLOADS[hook]).encode())
    assert done.returncode == 0
    support.assert_quiet_output(done.stdout)
    # The config was refused at once, not waited on until the watchdog ended the hook.
    assert "wall budget exceeded" not in support.log_text(Path(os.environ["ARCGUARD_HOME"]))


def test_a_fifo_config_leaves_arcguard_on_with_its_defaults(fifo_config):
    arc = arcguard("arc", "set", SID, "importer", "parse", "load")
    assert arc.returncode == 0, arc.stderr
    stall = support.stop(SID, message="No response requested.")
    done = arcguard("hook", "stop", payload=json.dumps(stall).encode())
    assert done.returncode == 0
    assert json.loads(done.stdout)["decision"] == "block"  # the no-op stall is continued


@pytest.mark.parametrize("verb", [["statusline"], ["status"], ["arc", "status", SID]])
def test_a_fifo_config_never_holds_up_status_or_the_status_line(fifo_config, verb):
    payload = json.dumps({"session_id": SID}).encode() if verb == ["statusline"] else b""
    done = arcguard(*verb, payload=payload)
    assert done.returncode == 0, done.stderr


def test_a_fifo_config_is_reported_as_a_problem_and_the_defaults_apply(tmp_path):
    fifo = plant(tmp_path / "config.toml", "fifo")
    # In a process of its own: a regression would block this one forever.
    code = "import sys, json; from arcguard.storage.config_file import file_values as f"
    code += "; print(json.dumps(f(sys.argv[1])))"
    done = subprocess.run(
        [sys.executable, "-I", "-c", code, str(fifo)],
        capture_output=True,
        timeout=TIMEOUT,
        check=True,
    )
    assert json.loads(done.stdout) == [{}, [f"config file {fifo}: not a regular file (a FIFO)"]]
