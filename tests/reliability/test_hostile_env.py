"""A hostile file system: escaping session ids, unsafe state dirs, planted symlinks, a read-only
or full disk, transcripts that are not regular files. Every case fails open (exit 0, no
decision) and never writes outside the state directory.
"""

from __future__ import annotations

import errno
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from testing import hook_driver

from arcguard.core.config_input import build_config
from arcguard.storage import atomic
from arcguard.storage import store
from arcguard.storage.config_file import env_values
from tests.reliability import support


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if not p.is_dir()}


def _dispatch(hook: str, payload: dict[str, object], home: Path, **environ: str) -> str | None:
    cfg, _ = build_config({}, env_values(environ))
    return hook_driver.dispatch(hook, support.json_bytes(payload), home, cfg, environ=environ)


# --- session ids built to escape (protection: paths.session_file_name) ------------------------

ESCAPES = [
    "../../etc/x",
    "..",
    ".",
    "",
    "../..",
    "sessions/../../../x",
    "a/../../b",
    "..\\..\\x",
    "x\x00y",
    "a" * 10_000,
    "\u202e/etc",
    ".hidden",
    "-rf",
]


@pytest.mark.parametrize("sid", ESCAPES, ids=lambda s: repr(s[:20]))
def test_session_ids_never_leave_the_sessions_directory(tmp_path: Path, sid: str) -> None:
    home = tmp_path / "a" / "state"
    (tmp_path / "a" / "etc").mkdir(parents=True)  # so that an escape would succeed
    out = _dispatch("pre-tool", support.pre_tool(sid, "ls"), home)
    assert out is None
    created = _files(tmp_path)
    sessions = home / "sessions"
    assert all(p.parent == sessions for p in created), created
    assert len(created) <= 2  # the state file and its lock, nothing else


def test_an_absolute_session_id_stays_inside(tmp_path: Path) -> None:
    home = tmp_path / "state"
    target = tmp_path / "elsewhere" / "victim"
    target.parent.mkdir()
    _dispatch("pre-tool", support.pre_tool(str(target), "ls"), home)
    assert list(target.parent.iterdir()) == []
    assert all(p.parent == home / "sessions" for p in _files(tmp_path))


@pytest.mark.parametrize("sid", ["../../etc/x", "/abs/path", ".."])
def test_the_arc_verb_keeps_escaping_ids_inside(tmp_path: Path, sid: str) -> None:
    home = tmp_path / "a" / "state"
    (tmp_path / "a" / "etc").mkdir(parents=True)
    proc = support.run_arc("set", sid, "work", home=home)
    assert proc.returncode == 0, proc.stderr
    assert all(p.parent == home / "sessions" for p in _files(tmp_path))


# --- an unsafe state dir (protection: paths.ensure_dir refuses it; error_log reports) ---------


def _refused(home: Path, elsewhere: Path) -> None:
    proc = support.run_hook("pre-tool", support.pre_tool("s1", "ls"), home)
    assert proc.returncode == 0
    assert proc.stdout == b""
    assert not (elsewhere / "sessions").exists()
    assert b"refusing" in proc.stderr or b"writable by others" in proc.stderr, proc.stderr


def test_a_state_dir_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    _refused(link, real)
    assert list(real.iterdir()) == []


def test_a_world_writable_state_dir_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "open"
    home.mkdir()
    home.chmod(0o777)
    _refused(home, home)


def test_a_world_writable_sessions_dir_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "state"
    (home / "sessions").mkdir(parents=True, mode=0o700)
    home.chmod(0o700)
    (home / "sessions").chmod(0o777)
    proc = support.run_hook("pre-tool", support.pre_tool("s1", "ls"), home)
    assert proc.returncode == 0
    assert proc.stdout == b""
    assert list((home / "sessions").iterdir()) == []
    assert "writable by others" in support.log_text(home)


# --- planted symlinks (protection: O_NOFOLLOW opens, replace-not-write) ------------------------


def test_a_state_file_replaced_by_a_symlink_is_never_written_through(tmp_path: Path) -> None:
    home = tmp_path / "state"
    support.put_state(home, "s1")
    victim = tmp_path / "victim.json"
    victim.write_bytes(support.state_path(home, "s1").read_bytes())  # a valid state, even
    before = victim.read_bytes()
    path = support.state_path(home, "s1")
    path.unlink()
    path.symlink_to(victim)
    _dispatch("pre-tool", support.pre_tool("s1", "ls"), home)
    assert victim.read_bytes() == before
    assert not path.is_symlink()  # replaced by a real file (the link was quarantined)


def test_atomic_write_replaces_a_symlink_instead_of_writing_through_it(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious")
    link = tmp_path / "state.json"
    link.symlink_to(victim)
    atomic.atomic_write(str(link), b"{}")
    assert victim.read_text() == "precious"
    assert not link.is_symlink()
    assert link.read_bytes() == b"{}"


def test_a_lock_file_replaced_by_a_symlink_is_not_followed(tmp_path: Path) -> None:
    home = tmp_path / "state"
    support.put_state(home, "s1")
    victim = tmp_path / "victim"
    Path(str(support.state_path(home, "s1")) + ".lock").unlink()
    Path(str(support.state_path(home, "s1")) + ".lock").symlink_to(victim)
    assert _dispatch("pre-tool", support.pre_tool("s1", "ls"), home) is None
    assert not victim.exists()
    assert "hook pre-tool" in support.log_text(home)


def test_the_verbs_do_not_follow_a_planted_lock_symlink(tmp_path: Path) -> None:
    home = tmp_path / "state"
    support.put_state(home, "s1")
    victim = tmp_path / "victim"
    victim.write_text("precious")
    Path(str(support.state_path(home, "s1")) + ".lock").unlink()
    Path(str(support.state_path(home, "s1")) + ".lock").symlink_to(victim)
    support.run_arc("bump", "s1", "reconcile_count", home=home)
    assert victim.read_text() == "precious"


# --- read-only and full disks (protection: fail-open around store.update) ----------------------


def _mount_tmpfs(where: Path, options: str) -> bool:
    if os.geteuid() != 0:
        return False
    where.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True
    )
    return proc.returncode == 0


@pytest.fixture
def read_only_home(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "ro"
    support.put_state(home, "s1")
    support.run_hook("stop", support.stop("s1", message="Working."), home)  # the log exists
    if os.geteuid() == 0:
        if subprocess.run(["mount", "--bind", str(home), str(home)]).returncode != 0:
            pytest.skip("cannot bind-mount as root")
        subprocess.run(["mount", "-o", "remount,bind,ro", str(home)], check=True)
        try:
            yield home
        finally:
            subprocess.run(["umount", str(home)], check=True)
    else:
        for d in (home, home / "sessions"):
            d.chmod(0o500)
        try:
            yield home
        finally:
            for d in (home, home / "sessions"):
                d.chmod(0o700)


def test_a_read_only_state_dir_fails_open(read_only_home: Path) -> None:
    before = support.state_path(read_only_home, "s1").read_bytes()
    proc = support.run_hook(
        "stop", support.stop("s1", message="No response requested."), read_only_home
    )
    assert proc.returncode == 0
    assert proc.stdout == b""  # would have been a block on a writable disk
    assert support.state_path(read_only_home, "s1").read_bytes() == before
    assert b"arcguard: hook stop" in proc.stderr  # the log is read-only too: stderr has it


def test_a_full_disk_fails_open_and_keeps_the_old_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "state"
    support.put_state(home, "s1")
    path = support.state_path(home, "s1")
    before = path.read_bytes()

    def full(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    out = _dispatch("stop", support.stop("s1", message="No response requested."), home)
    monkeypatch.undo()
    assert out is None
    assert path.read_bytes() == before
    assert [n for n in os.listdir(path.parent) if atomic.TEMP_MARK in n] == []


def test_a_really_full_tmpfs_fails_open(tmp_path: Path) -> None:
    home = tmp_path / "tiny"
    if not _mount_tmpfs(home, "size=64k,mode=0700"):
        pytest.skip("needs root and a working mount to make a tiny tmpfs")
    try:
        support.put_state(home, "s1")
        before = support.state_path(home, "s1").read_bytes()
        with (home / "filler").open("wb", buffering=0) as filler:
            try:
                while True:
                    filler.write(b"\0" * 4096)
            except OSError:
                pass
        proc = support.run_hook("stop", support.stop("s1", message="No response requested."), home)
        assert proc.returncode == 0
        assert proc.stdout == b""
        assert support.state_path(home, "s1").read_bytes() == before
        assert [n for n in os.listdir(home / "sessions") if atomic.TEMP_MARK in n] == []
    finally:
        subprocess.run(["umount", str(home)], check=True)


# --- transcripts that are not regular files (protection: transcript.tail opens O_NONBLOCK and
# refuses anything but a regular file) ---------------------------------------------------------


def _stop_on(home: Path, transcript: Path) -> subprocess.CompletedProcess[bytes]:
    support.put_state(home, "s1")
    # Budget far above the drain: a hang shows up as the watchdog's log line.
    return support.run_hook(
        "stop",
        support.stop("s1", str(transcript)),
        home,
        ARCGUARD_DRAIN_MS="200",
        ARCGUARD_HOOK_BUDGET_MS="20000",
    )


def test_a_transcript_that_is_a_directory_gives_no_decision(tmp_path: Path) -> None:
    (tmp_path / "dir.jsonl").mkdir()
    proc = _stop_on(tmp_path / "state", tmp_path / "dir.jsonl")
    assert (proc.returncode, proc.stdout) == (0, b"")
    assert support.log_text(tmp_path / "state") == ""  # refused cleanly, not by an exception


def test_a_transcript_that_is_a_fifo_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    proc = _stop_on(tmp_path / "state", fifo)
    assert (proc.returncode, proc.stdout) == (0, b"")
    assert support.log_text(tmp_path / "state") == ""  # refused cleanly, not by an exception


def test_a_fifo_with_a_writer_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    stop_writing = threading.Event()

    def feed() -> None:
        fd = os.open(fifo, os.O_RDWR)  # keeps a writer end open without blocking
        try:
            while not stop_writing.wait(0.01):
                try:
                    os.write(fd, support.assistant_line("m1", "No response requested."))
                except BlockingIOError:
                    pass
        finally:
            os.close(fd)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        proc = _stop_on(tmp_path / "state", fifo)
    finally:
        stop_writing.set()
        writer.join()
    assert (proc.returncode, proc.stdout) == (0, b"")


def test_an_unreadable_transcript_gives_no_decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(support.assistant_line("m1", "No response requested."))
    home = tmp_path / "state"
    if os.geteuid() != 0:
        transcript.chmod(0)
        proc = _stop_on(home, transcript)
        assert (proc.returncode, proc.stdout) == (0, b"")
        return
    # Root reads anything: make the open fail in-process instead.
    support.put_state(home, "s1")
    real_open = os.open

    def deny(path: object, *args: object, **kwargs: object) -> int:
        if str(path) == str(transcript):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", deny)
    out = _dispatch("stop", support.stop("s1", str(transcript)), home, ARCGUARD_DRAIN_MS="100")
    assert out is None


def test_a_readable_transcript_would_have_been_blocked(tmp_path: Path) -> None:
    """The control case for the transcript tests above: a real no-op stop mid-arc is blocked."""
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(support.assistant_line("m1", "No response requested."))
    proc = _stop_on(tmp_path / "state", transcript)
    assert support.is_decision(proc.stdout)


def test_store_reads_refuse_a_fifo_state_file(tmp_path: Path) -> None:
    home = tmp_path / "state"
    support.put_state(home, "s1")
    path = support.state_path(home, "s1")
    path.unlink()
    os.mkfifo(path)
    with pytest.raises(store.Unreadable):
        store.read_state(str(path))


# --- paths from the environment that are relative or start with `~` ---------------------------


@pytest.mark.parametrize("value", ["state", "./state", "~nosuchuser_h9/state"])
def test_a_relative_arcguard_home_is_refused_and_writes_nothing(tmp_path: Path, value: str) -> None:
    work = tmp_path / "project"
    work.mkdir()
    env = support.env(tmp_path / "unused", ARCGUARD_HOME=value)
    result = subprocess.run(
        [support.PYTHON, "-m", "arcguard", "hook", "pre-tool"],
        input=support.json_bytes(support.pre_tool("s", "ls")),
        cwd=work,
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert (result.returncode, result.stdout) == (0, b"")
    assert b"ARCGUARD_HOME" in result.stderr and b"not an absolute path" in result.stderr
    assert list(work.iterdir()) == []


def test_a_tilde_in_arcguard_home_is_expanded(tmp_path: Path) -> None:
    work = tmp_path / "project"
    work.mkdir()
    env = support.env(tmp_path / "unused", ARCGUARD_HOME="~/arcstate", HOME=str(tmp_path))
    subprocess.run(
        [support.PYTHON, "-m", "arcguard", "hook", "pre-tool"],
        input=support.json_bytes(support.pre_tool("s", "ls")),
        cwd=work,
        capture_output=True,
        env=env,
        timeout=60,
        check=True,
    )
    assert (tmp_path / "arcstate" / "sessions" / "s.json").exists()
    assert list(work.iterdir()) == []


def test_a_relative_arcguard_config_gives_no_decision(tmp_path: Path) -> None:
    support.put_state(tmp_path / "state", "s")
    result = support.run_hook(
        "pre-tool", support.pre_tool("s", "ls"), tmp_path / "state", ARCGUARD_CONFIG="config.toml"
    )
    assert (result.returncode, result.stdout) == (0, b"")
    assert "ARCGUARD_CONFIG" in support.log_text(tmp_path / "state")


def test_relative_xdg_directories_are_ignored_for_the_defaults(tmp_path: Path) -> None:
    from arcguard.storage import paths

    environ = {"HOME": str(tmp_path), "XDG_STATE_HOME": "rel", "XDG_CONFIG_HOME": "rel"}
    assert paths.state_dir(environ) == os.path.join(
        os.path.expanduser("~"), ".local", "state", "arcguard"
    )
    assert paths.config_path(environ).startswith(os.path.join(os.path.expanduser("~"), ".config"))


# --- config values built to break int() ------------------------------------------------------

BAD_NUMBERS = ["--1", "²", "٣", "9" * 4300, "1" * 5000, "1e3", " ", "0x10"]


@pytest.mark.parametrize("value", BAD_NUMBERS, ids=lambda v: repr(v[:8]))
def test_a_bad_number_in_the_environment_costs_only_its_own_key(tmp_path: Path, value: str) -> None:
    support.put_state(tmp_path / "state", "s")
    for _ in range(3):
        result = support.run_hook(
            "pre-tool",
            support.pre_tool("s", "poll"),
            tmp_path / "state",
            ARCGUARD_STALE_SECONDS=value,
            ARCGUARD_REPEAT_LIMIT="1",
        )
        assert result.returncode == 0
    # repeat_limit=1 still applies, so the guard still decides: the config did not fall over.
    assert support.is_decision(result.stdout)
    assert not support.log_text(tmp_path / "state")
    status = subprocess.run(
        [support.PYTHON, "-m", "arcguard", "status"],
        capture_output=True,
        env=support.env(tmp_path / "state", ARCGUARD_STALE_SECONDS=value),
        timeout=60,
    )
    assert status.returncode == 0 and b"Traceback" not in status.stderr
    arc = subprocess.run(
        [support.PYTHON, "-m", "arcguard", "arc", "status", "s"],
        capture_output=True,
        timeout=60,
        env=support.env(tmp_path / "state", ARCGUARD_STALE_SECONDS=value),
    )
    assert arc.returncode == 0 and arc.stdout.strip() == b"active work"


def _doctor_checks(tmp_path: Path, **environ: str) -> list[tuple[str, str, str]]:
    from arcguard.doctor import health
    from arcguard.doctor import reading

    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    setup = reading.read_setup(project, {**os.environ, **environ})
    return [
        (c.name, c.status, c.detail)
        for c in health.check_state_dir(setup) + health.check_config(setup)
    ]


def test_doctor_reports_a_relative_arcguard_home_as_a_gap(tmp_path: Path) -> None:
    found = _doctor_checks(tmp_path, ARCGUARD_HOME="state")
    assert ("state dir", "gap") in [(name, status) for name, status, _ in found]
    assert any("ARCGUARD_HOME" in detail for _, _, detail in found)


def test_doctor_reports_a_relative_arcguard_config_as_a_gap(tmp_path: Path) -> None:
    found = _doctor_checks(tmp_path, ARCGUARD_CONFIG="config.toml")
    assert [s for name, s, d in found if name == "config" and "ARCGUARD_CONFIG" in d] == ["gap"]


def test_doctor_warns_about_an_ignored_relative_xdg_directory(tmp_path: Path) -> None:
    found = _doctor_checks(tmp_path, XDG_CONFIG_HOME="rel")
    assert [s for name, s, d in found if "XDG_CONFIG_HOME" in d] == ["warn"]


def test_doctor_names_the_key_and_value_of_a_bad_setting(tmp_path: Path) -> None:
    found = _doctor_checks(tmp_path, ARCGUARD_STALE_SECONDS="²", ARCGUARD_CYCLE_HISTORY="0")
    gaps = [d for name, s, d in found if name == "config" and s == "gap"]
    assert any("stale_seconds" in d and "'²'" in d for d in gaps)
    assert any("cycle_history" in d and "0" in d and "minimum" in d for d in gaps)


def test_the_arc_verb_refuses_a_relative_arcguard_home_without_a_traceback(tmp_path: Path) -> None:
    result = subprocess.run(
        [support.PYTHON, "-m", "arcguard", "arc", "set", "s", "x"],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
        env=support.env(tmp_path, ARCGUARD_HOME="state"),
    )
    assert result.returncode == 1 and b"Traceback" not in result.stderr
    assert b"not an absolute path" in result.stderr and list(tmp_path.iterdir()) == []


def test_a_hook_that_keeps_no_state_for_a_session_leaves_no_lock_file(tmp_path: Path) -> None:
    hook = "session-start"
    payload = {
        "session_id": "never-seen",
        "hook_event_name": "Stop",
        "source": "startup",
        "last_assistant_message": "Done.",
    }
    result = support.run_hook(hook, payload, tmp_path / "state")
    assert (result.returncode, result.stdout) == (0, b"")
    assert _files(tmp_path) == set()


def test_replay_takes_a_config_file_given_relative_to_the_working_directory(tmp_path: Path) -> None:
    import arcguard

    (tmp_path / "my.toml").write_text("checkin_turns = 3\n")
    example = Path(arcguard.__file__).parent / "examples" / "4-thrash-paused.jsonl"
    result = subprocess.run(
        [support.PYTHON, "-m", "arcguard", "replay", str(example), "--config", "my.toml"],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
        env=support.env(tmp_path / "state"),
    )
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr
