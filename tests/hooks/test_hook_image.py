"""The code image of the hook path, through the launcher as installed: its modules serve the
hooks when it can be trusted, the usual import does otherwise, and the decisions are the same."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from testing.builders import append_transcript
from testing.builders import assistant_entries
from testing.builders import tool_result
from testing.builders import tool_use
from testing.builders import write_transcript

import arcguard
import arcguard.core.hashing
from arcguard import hook_image
from arcguard import image_loader
from arcguard.claude_settings import launch_forms
from arcguard.storage import paths


SID = "5b1f0c2e-0000-4000-8000-00000000abcd"
# The installed stub, after a line that reports, as the process ends (through `os._exit`, as
# the launcher ends it), which loader each arcguard module it imported came from (the stub's
# own checks still run).
REPORT = (
    "import os,sys;e=os._exit;os._exit=lambda c:(sys.stderr.write('loaders '+' '.join(sorted("
    "n+'='+type(m.__spec__.loader).__name__ for n,m in list(sys.modules.items()) "
    "if n.split('.')[0]=='arcguard'))+'\\n'),sys.stderr.flush(),e(c))\n"
)
FROM_IMAGE, FROM_SOURCE = {"Image"}, {"SourceFileLoader"}


class Launcher:
    """The launcher and its image, as install writes them, for a package copy that a test may
    change; `run` starts one hook through it."""

    def __init__(self, root: Path) -> None:
        self.location = root / "site"
        shutil.copytree(
            Path(arcguard.__file__).parent,
            self.location / "arcguard",
            ignore=shutil.ignore_patterns("__pycache__"),
        )
        folder = Path(paths.state_dir(os.environ))  # where install puts them
        folder.mkdir(mode=0o700, parents=True)
        self.file = folder / launch_forms.LAUNCHER_NAME
        self.image = folder / hook_image.IMAGE_NAME
        self.file.write_text(launch_forms.launcher_text(str(self.location), str(self.image)))
        self.file.chmod(0o600)
        hook_image.write(str(self.image), str(self.location))
        self.loaded: dict[str, str] = {}

    def run(self, hook: str, payload: dict[str, Any]) -> tuple[dict[str, Any] | None, set[str]]:
        """The hook's output, and the loaders its arcguard modules came from (each module's
        own is added to `self.loaded`)."""
        words = launch_forms.short_prefix(sys.executable, str(self.file))
        assert words is not None
        argv = [*words[:4], REPORT + words[4], *words[5:], "hook", hook]
        done = subprocess.run(argv, input=json.dumps(payload).encode(), capture_output=True)
        assert done.returncode == 0, done.stderr
        lines = done.stderr.decode().splitlines()
        named = [w for line in lines if line.startswith("loaders ") for w in line.split()[1:]]
        pairs = dict(word.partition("=")[::2] for word in named)
        self.loaded.update(pairs)
        loaders = set(pairs.values())
        return (json.loads(done.stdout) if done.stdout.strip() else None), loaders

    def stale(self) -> str | None:
        return hook_image.stale(str(self.image), str(self.location))


@pytest.fixture
def launcher(tmp_path: Path) -> Launcher:
    return Launcher(tmp_path)


def three_identical_calls(launcher: Launcher, path: Path) -> tuple[list[Any], set[str]]:
    """Three identical failing calls, each with its batch: the third is the one denied."""
    outputs, loaders = [], set()
    for n in range(3):
        call: dict[str, Any] = {"tool_name": "Bash", "tool_input": {"command": "make test"}}
        call["tool_use_id"] = tool_id = f"toolu_{n}"
        base = {"session_id": SID, "transcript_path": str(path)}
        append_transcript(
            path, assistant_entries(tool_use("Bash", call["tool_input"], tool_id=tool_id))
        )
        pre, used = launcher.run("pre-tool", {**base, "hook_event_name": "PreToolUse", **call})
        outputs.append(pre)
        loaders |= used
        append_transcript(path, [tool_result(tool_id, "3 failing")])
        batch: dict[str, Any] = {**base, "hook_event_name": "PostToolBatch"}
        batch["tool_calls"] = [{**call, "tool_response": "3 failing"}]
        loaders |= launcher.run("post-batch", batch)[1]
    return outputs, loaders


def assert_third_denied(outputs: list[Any]) -> None:
    assert outputs[:2] == [None, None]
    assert outputs[2]["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_current_image_serves_every_module_the_hooks_import(
    launcher: Launcher, tmp_path: Path
) -> None:
    assert launcher.stale() is None
    outputs, loaders = three_identical_calls(launcher, write_transcript(tmp_path / "t.jsonl", []))
    assert_third_denied(outputs)
    assert loaders == FROM_IMAGE
    for hook in ("posture", "stop", "session-start", "post-tool", "stop-failure"):
        payload = {"session_id": SID, "prompt": "/autonomous go", "source": "startup"}
        assert launcher.run(hook, payload)[1] == FROM_IMAGE, hook


def test_a_changed_source_file_is_imported_from_itself_and_the_rest_from_the_image(
    launcher: Launcher, tmp_path: Path
) -> None:
    source = launcher.location / "arcguard" / "core" / "words" / "messages.py"
    source.write_text(source.read_text() + "\nEDITED = True\n")
    assert "changed since it was made" in (launcher.stale() or "")
    outputs, loaders = three_identical_calls(launcher, write_transcript(tmp_path / "t.jsonl", []))
    assert_third_denied(outputs)
    # Every module run is the installed code: the changed one from its source, the others
    # from an image made from sources that are as they were.
    sourced = {name for name, loader in launcher.loaded.items() if loader != "Image"}
    assert sourced == {"arcguard.core.words.messages"}
    assert loaders == FROM_IMAGE | FROM_SOURCE


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda image: image.chmod(0o620), id="group-writable"),
        pytest.param(lambda image: os.chown(image, 4242, -1), id="foreign-owned"),
        pytest.param(lambda image: image.write_bytes(image.read_bytes()[:-1]), id="truncated"),
        pytest.param(lambda image: image.write_bytes(image.read_bytes() + b"\0"), id="padded"),
        pytest.param(
            lambda image: image.write_bytes(image_loader.HEAD + os.urandom(4096)), id="garbage"
        ),
        pytest.param(lambda image: image.write_bytes(b""), id="empty"),
        pytest.param(lambda image: image.unlink(), id="missing"),
    ],
)
def test_an_image_that_cannot_be_trusted_is_not_used(
    launcher: Launcher, tmp_path: Path, spoil: Any
) -> None:
    if "chown" in repr(spoil.__code__.co_names) and os.getuid() != 0:
        pytest.skip("only root can give a file to another user")
    spoil(launcher.image)
    assert launcher.stale() is not None
    outputs, loaders = three_identical_calls(launcher, write_transcript(tmp_path / "t.jsonl", []))
    assert_third_denied(outputs)
    assert loaders == FROM_SOURCE


def test_a_module_whose_code_does_not_load_is_imported_from_its_source(
    launcher: Launcher, tmp_path: Path
) -> None:
    data = bytearray(launcher.image.read_bytes())
    found = image_loader.check(str(launcher.image), bytes(data), str(launcher.location))
    assert not isinstance(found, str)
    start, table = found
    row = table["arcguard.core.loop_guard.guard"]
    data[start + row[5] : start + row[6]] = bytes(row[6] - row[5])
    launcher.image.write_bytes(bytes(data))
    outputs, loaders = three_identical_calls(launcher, write_transcript(tmp_path / "t.jsonl", []))
    assert_third_denied(outputs)
    assert loaders == FROM_IMAGE | FROM_SOURCE


def test_the_image_leaves_out_docstrings_but_keeps_asserts_and_lines(launcher: Launcher) -> None:
    import marshal

    source = (
        "'''doc'''\nfrom __future__ import annotations\n"
        "def f(x: Undefined):\n    '''doc'''\n    assert x, 'no x'\n    return x\n"
    )
    path = launcher.location / "sample.py"
    path.write_text(source)
    namespace: dict[str, Any] = {}
    exec(marshal.loads(hook_image.compiled(str(path))), namespace)
    assert namespace.get("__doc__") is None and namespace["f"].__doc__ is None
    with pytest.raises(AssertionError, match="no x"):
        namespace["f"](0)
    assert namespace["f"].__code__.co_firstlineno == 3
    assert namespace["f"].__annotations__ == {"x": "Undefined"}  # the future import holds
    only_future = launcher.location / "future.py"
    only_future.write_text("from __future__ import annotations\n")
    exec(marshal.loads(hook_image.compiled(str(only_future))), {})


def test_session_start_remakes_a_stale_image_in_the_background(launcher: Launcher) -> None:
    source = launcher.location / "arcguard" / "core" / "words" / "messages.py"
    source.write_text(source.read_text() + "\n# edited after the image was made\n")
    assert launcher.stale() is not None
    launcher.run("session-start", {"session_id": SID, "source": "startup"})
    assert launcher.loaded["arcguard.core.words.messages"] == "SourceFileLoader"
    deadline = time.monotonic() + 60
    while launcher.stale() is not None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert launcher.stale() is None
    assert launcher.run("session-start", {"session_id": SID, "source": "resume"})[1] == FROM_IMAGE


def test_another_installs_launcher_gets_no_image_from_this_package(launcher: Launcher) -> None:
    launcher.image.unlink()
    hook_image.remake(str(launcher.file.parent), str(Path(arcguard.__file__).parents[1]))
    assert not launcher.image.exists()


def test_a_table_of_another_shape_is_refused_not_raised(launcher: Launcher) -> None:
    import marshal

    def sized(blob: bytes) -> bytes:
        return len(blob).to_bytes(4, "little") + blob

    table = marshal.dumps((str(launcher.location), 0, {"arcguard": ("x",)}))
    data = image_loader.HEAD + sized(b"") + sized(table)
    launcher.image.write_bytes(data)
    assert launcher.stale() == "not an image arcguard can read"


# The lines that hand the image to its loader in the launchers of earlier releases: they read
# the whole file and give no open file. An image made now must serve them too, since an upgrade
# remakes the image at the next session start but leaves the launcher until the next install.
EARLIER_IMAGE_LINES = (
    "    with open(i, 'rb') as fh:\n        s, b = os.fstat(fh.fileno()), fh.read()\n",
    "        g['serve'](i, b, d)\n",
)


def test_a_launcher_of_an_earlier_release_is_served_by_an_image_made_now(
    launcher: Launcher, tmp_path: Path
) -> None:
    text = launcher.file.read_text()
    now = (
        "    f = os.open(i, os.O_RDONLY)\n"
        f"    s, b = os.fstat(f), os.pread(f, {image_loader.READ_FIRST}, 0)\n",
        "        g['serve'](i, b, d, f)\n",
    )
    for new, old in zip(now, EARLIER_IMAGE_LINES, strict=True):
        assert new in text
        text = text.replace(new, old)
    launcher.file.write_text(text)
    outputs, loaders = three_identical_calls(launcher, write_transcript(tmp_path / "t.jsonl", []))
    assert_third_denied(outputs)
    assert loaders == FROM_IMAGE


def test_an_image_whose_table_ends_past_the_first_read_is_read_further(
    launcher: Launcher, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first read holds the loader's code (the launcher needs it whole) but not the table.
    data = launcher.image.read_bytes()
    loader_end = image_loader.chunk(data, len(image_loader.HEAD))[1]
    table_end = image_loader.chunk(data, loader_end)[1]
    first = loader_end + 8
    assert first < table_end
    monkeypatch.setattr(launch_forms, "READ_FIRST", first)
    launcher.file.write_text(
        launch_forms.launcher_text(str(launcher.location), str(launcher.image))
    )
    assert f"os.pread(f, {first}, 0)" in launcher.file.read_text()
    outputs, loaders = three_identical_calls(launcher, write_transcript(tmp_path / "t.jsonl", []))
    assert_third_denied(outputs)
    assert loaders == FROM_IMAGE


def test_a_row_of_another_shape_sends_its_module_to_the_usual_import(launcher: Launcher) -> None:
    image_loader.serve(str(launcher.image), launcher.image.read_bytes(), str(launcher.location))
    finder = sys.meta_path.pop(0)
    assert isinstance(finder, image_loader.Image)
    assert finder.find_spec("arcguard.errors") is not None
    # Its source as it was, but no place for its code.
    finder.table = {"arcguard.errors": finder.table["arcguard.errors"][:5]}  # type: ignore[dict-item]
    assert finder.find_spec("arcguard.errors") is None


def test_a_module_from_the_image_names_its_source_and_no_bytecode_file(
    launcher: Launcher,
) -> None:
    import importlib.util

    image_loader.serve(str(launcher.image), launcher.image.read_bytes(), str(launcher.location))
    finder = sys.meta_path.pop(0)
    assert isinstance(finder, image_loader.Image)
    spec = finder.find_spec("arcguard.core.hashing")
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    finder.exec_module(module)
    source = launcher.location / "arcguard" / "core" / "hashing.py"
    assert module.__file__ == str(source)
    assert module.digest("x") == arcguard.core.hashing.digest("x")
    # No `__pycache__` path worked out for each module: the image stands in for bytecode.
    assert spec.cached is None and not hasattr(module, "__cached__")
