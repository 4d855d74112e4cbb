"""Settings files as bytes: exact numbers and layout, strict JSON, odd files, concurrent writers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from testing.cli import invoke

from arcguard.claude_settings import json_text as sj
from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import settings_files as cc
from arcguard.doctor import reading
from arcguard.doctor import wiring


PREFIX = "/usr/bin/python3 -m arcguard"


# Install and doctor ask the `claude` on PATH for its release.
pytestmark = pytest.mark.usefixtures("claude_on_path")


def settings_file(project: Path) -> Path:
    path = cc.settings_path("project", project, os.environ)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def install(project: Path) -> str:
    result = invoke("install", "--scope", "project", "--project", str(project))
    return str(result.output) + (f"[exit {result.exit_code}]" if result.exit_code else "")


def uninstall(project: Path) -> str:
    result = invoke("uninstall", "--scope", "project", "--project", str(project))
    return str(result.output) + (f"[exit {result.exit_code}]" if result.exit_code else "")


# --- numbers and layout stay as written ------------------------------------------------------


def test_install_keeps_numbers_exactly_as_written(project: Path) -> None:
    path = settings_file(project)
    original = (
        '{\n  "x": 1e400,\n  "y": 1.10,\n  "z": 1E5,\n  "w": -0,\n  "v": 12345678901234567890\n}\n'
    )
    path.write_text(original)
    install(project)
    text = path.read_text()
    for number in ('"x": 1e400', '"y": 1.10', '"z": 1E5', '"w": -0', "12345678901234567890"):
        assert number in text
    assert "Infinity" not in text
    uninstall(project)
    assert path.read_text() == original


@pytest.mark.parametrize(
    "original",
    [
        '{\n\t"model": "opus",\n\t"env": {\n\t\t"A": "1"\n\t}\n}\n',
        '{\n    "model": "opus",\n    "env": {\n        "A": "1"\n    }\n}\n',
        '{"model":"opus","env":{"A":"1"}}',
        '{"model": "opus", "env": {"A": "1"}}\n',
        '{\n  "model" : "opus" ,\n\n  "env":{"A":"1"}  }  \n',
    ],
)
def test_install_keeps_the_file_layout_and_uninstall_gives_back_its_bytes(
    project: Path, original: str
) -> None:
    path = settings_file(project)
    path.write_text(original)
    assert "installed arcguard hooks" in install(project)
    text = path.read_text()
    assert text.startswith(original[: original.index('"opus"') + 6])
    if original.startswith("{\n\t"):
        assert '\n\t"hooks": {\n\t\t"UserPromptSubmit": [' in text
    elif original.startswith("{\n    "):
        assert '\n    "hooks": {\n        "UserPromptSubmit": [' in text
    elif "\n" not in original.strip():
        assert "\n" not in text.strip()
    assert "removed arcguard hooks" in uninstall(project)
    assert path.read_text() == original


user_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=5)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
user_hooks = st.dictionaries(
    st.sampled_from(["Stop", "PreToolUse", "Notification"]),
    st.lists(
        st.fixed_dictionaries(
            {
                "hooks": st.lists(
                    st.fixed_dictionaries(
                        {
                            "type": st.just("command"),
                            "command": st.sampled_from(["mine", "lint --fix"]),
                        }
                    ),
                    min_size=1,
                    max_size=2,
                )
            }
        ),
        min_size=1,
        max_size=2,
    ),
    min_size=1,
    max_size=2,
)
layouts = st.sampled_from([None, 2, 4, "\t", 1])


@hypothesis_settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(st.text(max_size=6).filter(lambda k: k != "hooks"), user_values, max_size=4),
    st.none() | user_hooks,
    layouts,
    st.booleans(),
)
def test_install_then_uninstall_gives_back_the_original_bytes(
    value: dict[str, object], hooks: dict[str, object] | None, indent: int | str | None, tight: bool
) -> None:
    if hooks is not None:
        value = {**value, "hooks": hooks}
    separators = (",", ":") if tight else None
    original = json.dumps(value, indent=indent, separators=separators, ensure_ascii=False)
    old = sj.loads(original)
    assert isinstance(old, dict)
    installed = sj.rewrite(original, old, plan.plan_install(old, PREFIX))
    assert sj.same(sj.loads(installed), plan.plan_install(old, PREFIX))
    after = sj.loads(installed)
    assert isinstance(after, dict)
    assert sj.rewrite(installed, after, plan.remove_ours(after)) == original


# --- only standard JSON ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ('{"x": NaN}', "NaN is not standard JSON"),
        ('{"x": Infinity}', "Infinity is not standard JSON"),
        ('{"x": -Infinity}', "-Infinity is not standard JSON"),
        ('{"x": 1, "x": 2}', "duplicate key 'x'"),
        ('{"x": "\\ud800"}', "unpaired surrogate"),
        ("[" * 50_000 + "]" * 50_000, "nested too deeply"),
    ],
)
def test_install_refuses_non_standard_json_and_writes_nothing(
    project: Path, content: str, why: str
) -> None:
    path = settings_file(project)
    path.write_text(content)
    output = install(project)
    assert why in output and "nothing was written" in output and "[exit 1]" in output
    assert "Traceback" not in output
    assert path.read_text() == content
    assert not path.with_name(path.name + cc.BACKUP_SUFFIX).exists()


@pytest.mark.parametrize("content", ['{"x": NaN}', '{"x": -Infinity}', '{"a": 1, "a": 1}'])
def test_doctor_parse_check_accepts_standard_json_only(project: Path, content: str) -> None:
    settings_file(project).write_text(content)
    [check] = [
        c
        for c in wiring.check_settings_files(reading.read_setup(project, {**os.environ}))
        if "project" in c.detail or ".claude/settings.json" in c.detail
    ]
    assert check.status == "gap" and "is not valid JSON" in check.detail
    assert check.hint.startswith("fix the JSON of")


# --- files that are not plain settings files -------------------------------------------------


def test_a_fifo_settings_file_is_refused_without_hanging(project: Path) -> None:
    path = settings_file(project)
    os.mkfifo(path)
    done: list[str] = []
    worker = threading.Thread(target=lambda: done.append(install(project)), daemon=True)
    worker.start()
    worker.join(30)
    assert done, "install hung on a FIFO"
    assert "is not a regular file" in done[0] and "[exit 1]" in done[0]
    [check] = [
        c
        for c in wiring.check_settings_files(reading.read_setup(project, {**os.environ}))
        if str(path) in c.detail
    ]
    assert check.status == "gap" and "replace" in check.hint and "regular file" in check.hint


def test_a_symlink_to_a_device_is_refused_without_reading_it(project: Path) -> None:
    path = settings_file(project)
    path.symlink_to("/dev/zero")
    output = install(project)
    assert "is not a regular file" in output and "[exit 1]" in output


def test_an_oversized_settings_file_is_refused(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cc, "MAX_SETTINGS_BYTES", 100)
    path = settings_file(project)
    path.write_text(json.dumps({"x": "y" * 200}))
    with pytest.raises(plan.SettingsError) as raised:
        cc.read_regular(path)
    assert raised.value.kind == "too-large"
    output = install(project)
    assert "is larger than 100 bytes" in output and "[exit 1]" in output
    [check] = [
        c
        for c in wiring.check_settings_files(reading.read_setup(project, {**os.environ}))
        if str(path) in c.detail
    ]
    assert check.status == "gap" and "far larger than any settings file" in check.hint
    assert "JSON" not in check.hint


def test_doctor_hint_for_an_unreadable_file_is_about_permissions(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = settings_file(project)
    path.write_text("{}")
    real_open = os.open

    def denied(name: object, *args: object, **kwargs: object) -> int:
        # chmod 0 does not stop root, so the refusal is simulated for this one file
        if os.fspath(name) == os.fspath(path):  # type: ignore[call-overload]
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_open(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", denied)
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: denied(self) and "")
    [check] = [
        c
        for c in wiring.check_settings_files(reading.read_setup(project, {**os.environ}))
        if str(path) in c.detail
    ]
    assert check.status == "gap"
    assert "JSON" not in check.hint and "chmod u+r" in check.hint


# --- concurrent writers ----------------------------------------------------------------------

WRITER = """
import json, os, sys
path, stop = sys.argv[1], sys.argv[2]
writes = 0
while not os.path.exists(stop):
    with open(path) as handle:
        value = json.load(handle)
    value["n"] = value.get("n", 0) + 1
    tmp = f"{path}.writer"
    with open(tmp, "w") as handle:
        json.dump(value, handle, indent=2)
    os.replace(tmp, path)
    writes += 1
print(writes)
"""


def test_a_concurrent_writer_loses_no_update(project: Path) -> None:
    # Claude Code rewrites settings.json itself: install and uninstall must never replace a
    # version they did not read. The writer's own read-modify-write may drop arcguard's
    # change (that is its business); arcguard must never drop the writer's.
    path = settings_file(project)
    path.write_text('{"n": 0}\n')
    stop = project / "stop-writing"
    # The writer runs until the installs are done, however long an install takes, so
    # every install and uninstall below races it.
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(stop)], stdout=subprocess.PIPE, text=True
    )
    outputs = []
    try:
        for _ in range(3):
            outputs += [install(project), uninstall(project)]
    finally:
        stop.touch()
        written, _ = writer.communicate(timeout=60)
    assert writer.returncode == 0
    assert len(outputs) == 6 and int(written) > 0
    assert json.loads(path.read_text())["n"] == int(written)
    assert not [o for o in outputs if "Traceback" in o]
    assert all("[exit" not in o or "kept changing" in o for o in outputs)


def test_a_file_changed_before_the_replace_is_merged_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = settings_file(project)
    path.write_text('{"n": 0}\n')
    real = cc.read_regular
    calls = {"n": 0}

    def meddle(target: Path, limit: int | None = None) -> bytes | None:
        calls["n"] += 1
        if calls["n"] == 3:  # the re-check before the first replace
            target.write_text('{"n": 1}\n')
        return real(target, limit)

    monkeypatch.setattr(cc, "read_regular", meddle)
    assert "installed arcguard hooks" in install(project)
    value = json.loads(path.read_text())
    assert value["n"] == 1 and "hooks" in value


def test_a_file_that_keeps_changing_is_left_with_a_clear_error(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = settings_file(project)
    path.write_text('{"n": 0}\n')

    def always_changed(*_: object) -> None:
        raise cc.Changed("changed")

    monkeypatch.setattr(cc, "_swap_in", always_changed)
    output = install(project)
    assert "kept changing" in output and "nothing was written" in output
    assert "[exit 1]" in output
    assert path.read_text() == '{"n": 0}\n'


def test_parallel_uninstalls_never_traceback(project: Path) -> None:
    assert "installed" in install(project)
    env = {**os.environ}
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "arcguard",
                "uninstall",
                "--scope",
                "project",
                "--project",
                str(project),
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(16)
    ]
    results = [(run.wait(120), *run.communicate()) for run in runs]
    assert not [r for r in results if "Traceback" in r[2]]
    assert all(code == 0 for code, _, _ in results), results
    # It held only arcguard's hooks: the file goes, with nothing left behind.
    assert list(project.iterdir()) == []
