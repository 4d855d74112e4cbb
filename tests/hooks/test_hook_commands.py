"""The hook commands as Claude Code runs them: a subprocess, JSON on stdin, exit 0 always."""

from __future__ import annotations

import json
import threading
import time

import pytest
from testing.builders import append_transcript
from testing.builders import assistant_entries
from testing.builders import hook_output
from testing.builders import run_hook
from testing.builders import text
from testing.builders import thinking
from testing.builders import tool_result
from testing.builders import tool_use
from testing.builders import write_transcript

from arcguard.hooks import HOOKS


SID = "5b1f0c2e-0000-4000-8000-000000000001"


def start_arc(sid=SID):
    out = hook_output(
        run_hook(
            "posture",
            {"session_id": sid, "prompt": "/autonomous go", "hook_event_name": "UserPromptSubmit"},
        )
    )
    assert out is not None
    return out


def stop_payload(path=None, message=None, *, active=False, sid=SID, **extra):
    payload = {"session_id": sid, "hook_event_name": "Stop", "stop_hook_active": active, **extra}
    if path is not None:
        payload["transcript_path"] = str(path)
    if message is not None:
        payload["last_assistant_message"] = message
    return payload


@pytest.mark.parametrize("hook", sorted(HOOKS))
@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not json",
        b"[1, 2]",
        b'"text"',
        b"{",
        b'{"session_id": 5, "prompt": ["x"]}',
        b'{"session_id": "", "tool_name": 3}',
        b"\xff\xfe\x00",
    ],
)
def test_malformed_stdin_exits_zero_with_no_decision(hook, raw):
    result = run_hook(hook, None, raw=raw)
    assert result.returncode == 0
    assert result.stdout == b""


def test_the_stop_hook_exits_zero_when_blocking(tmp_path):
    start_arc()
    result = run_hook("stop", stop_payload(message="No response requested."))
    assert result.returncode == 0
    assert json.loads(result.stdout)["decision"] == "block"


def test_stop_reads_the_transcript_when_the_payload_has_no_text(tmp_path):
    start_arc()
    path = write_transcript(tmp_path / "t.jsonl", assistant_entries(text("No response requested.")))
    assert hook_output(run_hook("stop", stop_payload(path)))["decision"] == "block"


def test_a_synthetic_final_entry_is_not_continued(tmp_path):
    start_arc()
    path = write_transcript(
        tmp_path / "t.jsonl", assistant_entries(text("No response requested."), model="<synthetic>")
    )
    assert hook_output(run_hook("stop", stop_payload(path, "No response requested."))) is None


def test_without_an_arc_nothing_is_blocked(tmp_path):
    path = write_transcript(tmp_path / "t.jsonl", assistant_entries(text("")))
    assert hook_output(run_hook("stop", stop_payload(path, ""))) is None
    hook_output(run_hook("posture", {"session_id": SID, "prompt": "hello"}))
    assert hook_output(run_hook("stop", stop_payload(path, "No response requested."))) is None


def test_a_thinking_only_final_entry_is_left_alone(tmp_path):
    start_arc()
    path = write_transcript(tmp_path / "t.jsonl", assistant_entries(thinking()))
    assert (
        hook_output(run_hook("stop", stop_payload(path), env={"ARCGUARD_DRAIN_MS": "150"})) is None
    )


def _write_later(path, entries, delay):
    def later():
        time.sleep(delay)
        append_transcript(path, entries)

    thread = threading.Thread(target=later)
    thread.start()
    return thread


def test_the_drain_waits_for_a_fresh_final_message(tmp_path):
    start_arc()
    seen = assistant_entries(tool_use("Bash", {"command": "ls"}, tool_id="toolu_seen"))
    path = write_transcript(tmp_path / "t.jsonl", seen)
    # The tool turn was seen at PostToolBatch, so it is old news at Stop.
    hook_output(
        run_hook(
            "post-batch",
            {
                "session_id": SID,
                "transcript_path": str(path),
                "tool_calls": [
                    {
                        "tool_name": "Bash",
                        "tool_input": {"command": "ls"},
                        "tool_use_id": "toolu_seen",
                    }
                ],
            },
        )
    )
    thread = _write_later(path, assistant_entries(text("No response requested.")), 0.3)
    out = hook_output(run_hook("stop", stop_payload(path), env={"ARCGUARD_DRAIN_MS": "1500"}))
    thread.join()
    assert out is not None and out["decision"] == "block"


def test_the_drain_skips_a_thinking_intermediate(tmp_path):
    start_arc()
    mid = "msg_late"
    path = write_transcript(tmp_path / "t.jsonl", assistant_entries(text("earlier answer")))
    hook_output(run_hook("stop", stop_payload(path, "earlier answer")))  # marks it seen
    threads = [
        _write_later(path, assistant_entries(thinking(), message_id=mid), 0.2),
        _write_later(
            path, assistant_entries(text("Here is the full analysis."), message_id=mid), 0.5
        ),
    ]
    out = hook_output(run_hook("stop", stop_payload(path), env={"ARCGUARD_DRAIN_MS": "1500"}))
    for thread in threads:
        thread.join()
    assert out is None  # the substantive text was classified, not the thinking


def test_post_batch_reads_the_turn_text_from_the_transcript(tmp_path):
    path = tmp_path / "t.jsonl"
    entries = []
    for n in range(6):
        entries += assistant_entries(
            text("Checking again.") if n % 2 else thinking(),
            tool_use("Bash", {"command": "poll"}, tool_id=f"toolu_{n}"),
        )
    write_transcript(path, [])
    outputs = []
    for n in range(6):
        append_transcript(path, entries[2 * n : 2 * n + 2])
        outputs.append(
            hook_output(
                run_hook(
                    "post-batch",
                    {
                        "session_id": SID,
                        "transcript_path": str(path),
                        "tool_calls": [
                            {
                                "tool_name": "Bash",
                                "tool_input": {"command": "poll"},
                                "tool_use_id": f"toolu_{n}",
                            }
                        ],
                    },
                )
            )
        )
    assert outputs == [None] * 6  # narrated turns break the run: no cycle


def _poll_batch(path, n):
    return {
        "session_id": SID,
        "transcript_path": str(path),
        "tool_calls": [
            {"tool_name": "Bash", "tool_input": {"command": "poll"}, "tool_use_id": f"toolu_{n}"}
        ],
    }


def test_a_missing_transcript_leaves_the_turn_uncounted(tmp_path):
    outputs = [
        hook_output(run_hook("post-batch", _poll_batch(tmp_path / "missing.jsonl", n)))
        for n in range(8)
    ]
    assert outputs == [None] * 8  # unknown turns are not tool-only: no cycle, no pause


def test_a_message_behind_an_over_long_line_leaves_the_turn_uncounted(tmp_path):
    path = write_transcript(tmp_path / "t.jsonl", [])
    outputs = []
    for n in range(6):
        append_transcript(
            path,
            assistant_entries(
                text("Polling again."), tool_use("Bash", {"command": "poll"}, tool_id=f"toolu_{n}")
            ),
        )
        append_transcript(path, [tool_result(f"toolu_{n}", f"{n} " + "x" * 1_100_000)])
        outputs.append(hook_output(run_hook("post-batch", _poll_batch(path, n))))
    assert outputs == [None] * 6


def _installed_launcher(tmp_path):
    """The stub and launcher install writes, with the code image beside the launcher."""
    import os
    import sys
    from pathlib import Path

    import arcguard
    from arcguard import hook_image
    from arcguard.claude_settings import launch_forms

    folder = tmp_path / "launcher"
    folder.mkdir(mode=0o700)
    launcher, image = folder / launch_forms.LAUNCHER_NAME, folder / hook_image.IMAGE_NAME
    location = str(Path(arcguard.__file__).parents[1])
    launcher.write_text(launch_forms.launcher_text(location, str(image)))
    hook_image.write(str(image))
    assert hook_image.stale(str(image)) is None
    assert os.stat(launcher).st_uid == os.getuid()
    return list(launch_forms.short_prefix(sys.executable, str(launcher)))


@pytest.mark.parametrize("launch", ["module", "installed"])
def test_the_hook_path_never_imports_click_orjson_or_filelock(tmp_path, launch):
    import subprocess
    import sys

    start_arc()
    payload = json.dumps(
        {
            "session_id": SID,
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "t1",
            "last_assistant_message": "No response requested.",
            "tool_calls": [],
        }
    ).encode()
    if launch == "module":
        start = [sys.executable, "-X", "importtime", "-m", "arcguard", "hook"]
    else:  # through the code image: it holds no module the usual import would not load
        words = _installed_launcher(tmp_path)
        start = [words[0], "-X", "importtime", *words[1:], "hook"]
    for hook in ("pre-tool", "post-tool", "post-batch", "stop", "posture"):
        result = subprocess.run(
            [*start, hook],
            input=payload,
            capture_output=True,
            check=True,
        )
        loaded = {line.split("|")[-1].strip() for line in result.stderr.decode().splitlines()}
        assert "arcguard.hooks.runner" in loaded, hook
        assert not loaded & {"click", "orjson", "filelock", "json", "typing", "hashlib", "re"}, hook
        # The image's code was compiled with the future imports as flags, not statements.
        assert ("__future__" in loaded) is (launch == "module"), hook


def test_a_stop_outside_an_arc_does_not_load_the_release_table(tmp_path):
    import subprocess
    import sys

    path = write_transcript(tmp_path / "t.jsonl", assistant_entries(text("All done.")))
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "arcguard", "hook", "stop"],
        input=json.dumps(stop_payload(path, "All done.")).encode(),
        capture_output=True,
        check=True,
    )
    loaded = {line.split("|")[-1].strip() for line in result.stderr.decode().splitlines()}
    assert "arcguard.hooks.stop" in loaded
    assert "arcguard.claude_settings.releases" not in loaded  # only a stop to continue reads it


@pytest.mark.parametrize(
    ("extra", "blocked"),
    [
        ({"background_tasks": []}, False),  # 2.1.328: no key means the final message has no text
        ({}, True),  # an old payload: the thinking entry may be an intermediate, so wait
    ],
)
def test_thinking_only_is_final_when_the_payload_says_there_is_no_text(tmp_path, extra, blocked):
    start_arc()
    mid = "msg_thinking_then_text"
    path = write_transcript(tmp_path / "t.jsonl", assistant_entries(thinking(), message_id=mid))
    thread = _write_later(
        path, assistant_entries(text("No response requested."), message_id=mid), 0.4
    )
    out = hook_output(
        run_hook("stop", stop_payload(path, **extra), env={"ARCGUARD_DRAIN_MS": "1500"})
    )
    thread.join()
    assert (out is not None) is blocked


@pytest.mark.parametrize(
    ("argv", "collects"),
    [
        (["hook", "pre-tool"], False),
        (["statusline"], False),
        (["hook", "limit-wait"], True),  # it may wait for hours: it keeps the collector
    ],
)
def test_a_short_lived_hook_runs_without_the_cycle_collector(argv, collects, monkeypatch):
    import gc

    from arcguard import main as entry

    monkeypatch.setattr(entry, "_hook", lambda rest: 0)
    monkeypatch.setattr(entry, "_status_line", lambda: 0)
    monkeypatch.setattr(entry, "_unsupported", lambda: None)
    try:
        entry.main(argv)
        assert gc.isenabled() is collects
    finally:
        gc.enable()


def test_the_pre_tool_hook_leaves_the_rules_on_results_unloaded(tmp_path):
    # Once PostToolBatch closes turns, a call's PreToolUse only judges repeats: the staged rules
    # on results (`stuck` and what it imports) are loaded by the hooks that read results.
    import subprocess
    import sys

    call = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}
    batch = {"session_id": SID, "tool_calls": [{**call, "tool_response": "a b"}]}
    run_hook("post-batch", batch)
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "arcguard", "hook", "pre-tool"],
        input=json.dumps({"session_id": SID, **call, "tool_use_id": "t2"}).encode(),
        capture_output=True,
        check=True,
    )
    loaded = {line.split("|")[-1].strip() for line in result.stderr.decode().splitlines()}
    assert "arcguard.core.loop_guard.repeat" in loaded
    assert "arcguard.core.loop_guard.stuck" not in loaded
    assert "arcguard.core.loop_guard.persisting" not in loaded
