"""The limit waiter next to Claude Code's own resume at a usage limit: one resume, whoever.

When the transcript says Claude Code armed its resume ("Usage limit reached · continuing
automatically at ..."), the waiter becomes a watchdog: it wakes the session only if that
resume has not come by the reset plus its jitter plus a margin. Run in process on a fake clock.
"""

from __future__ import annotations

import json
import os

from testing import hook_driver

from arcguard.core.arc_keeper import handover
from arcguard.core.schema import StateFile
from arcguard.hooks import limit_wait
from arcguard.storage import paths
from tests.hooks.test_limit_wait import T0
from tests.hooks.test_limit_wait import WAKE
from tests.hooks.test_limit_wait import FakeClock
from tests.hooks.test_limit_wait import NoWatchdog
from tests.hooks.test_limit_wait import failure
from tests.hooks.test_limit_wait import state
from tests.hooks.test_limit_wait import write_arc


ARMED = "Usage limit reached · continuing automatically at 8:32am · esc to cancel"
RESUMED = "Usage limit reset · Continuing automatically"
CANCELLED = "Automatic continue cancelled · /rate-limit-options to re-arm"
RESUME_PROMPT = (
    "Your claude.ai usage limit has reset. Continue the task you were working on when the limit"
    " was reached; do not repeat work that is already complete."
)
RESET = T0 + 600


def system(content: str) -> dict[str, object]:
    return {"type": "system", "subtype": "informational", "level": "info", "content": content}


def append(path, *entries) -> None:
    with open(path, "a") as handle:
        for entry in entries:
            handle.write(json.dumps(entry) + "\n")


def run(monkeypatch, tmp_path, clock, *entries, error="rate_limit"):
    from arcguard.storage.config_file import load_config

    transcript = tmp_path / "t.jsonl"
    append(transcript, {"type": "user", "message": {"role": "user", "content": "go"}}, *entries)
    monkeypatch.setattr(limit_wait, "time", clock)
    monkeypatch.setattr(limit_wait, "POLL_SECONDS", 10.0)
    cfg, _ = load_config(os.environ)
    ctx = hook_driver.context(
        limit_wait.NAME, paths.state_dir(os.environ), cfg, now=clock.now, environ=os.environ
    )
    payload = {
        **failure(error),
        "transcript_path": str(transcript),
        "last_assistant_message": f"Claude AI usage limit reached|{int(RESET)}",
    }
    return limit_wait.run(json.dumps(payload).encode(), ctx, NoWatchdog()), transcript


def kinds() -> list[str]:
    return [e.kind for e in StateFile.view(state()).log]


def test_an_armed_resume_that_comes_is_left_to_claude_code(monkeypatch, tmp_path):
    write_arc(T0 - 60)
    path = tmp_path / "t.jsonl"

    def resumed_at_jitter(now: float) -> None:
        if now >= RESET + 60 and not getattr(resumed_at_jitter, "done", False):
            resumed_at_jitter.done = True  # type: ignore[attr-defined]
            append(
                path,
                system(RESUMED),
                {
                    "type": "user",
                    "isMeta": True,
                    "message": {"role": "user", "content": RESUME_PROMPT},
                },
            )

    clock = FakeClock(T0, resumed_at_jitter)
    (message, _), _ = run(monkeypatch, tmp_path, clock, system(ARMED))
    assert message is None
    assert clock.now < handover.watch_until(RESET + 2)  # it stopped as soon as it saw it
    assert kinds()[-2:] == ["limit-watch", "limit-cancel"]
    assert "Claude Code resumed the session itself" in state()["log"][-1]["reason"]
    assert "limit_wait" not in state() and state()["arc"].get("limit_resumes", 0) == 0


def test_an_armed_resume_that_never_comes_is_caught_by_the_watchdog(monkeypatch, tmp_path):
    write_arc(T0 - 60)
    clock = FakeClock(T0)
    (message, _), _ = run(monkeypatch, tmp_path, clock, system(ARMED))
    assert message is not None and message.startswith(WAKE)
    assert clock.now >= handover.watch_until(RESET + 2)  # not before the built-in one was due
    assert kinds()[-2:] == ["limit-watch", "limit-resume"]
    assert state()["arc"]["limit_resumes"] == 1


def test_an_armed_resume_the_operator_cancelled_wakes_nothing(monkeypatch, tmp_path):
    write_arc(T0 - 60)
    path = tmp_path / "t.jsonl"

    def escape(now: float) -> None:
        if now >= T0 + 30 and not getattr(escape, "done", False):
            escape.done = True  # type: ignore[attr-defined]
            append(path, system(CANCELLED))

    clock = FakeClock(T0, escape)
    (message, _), _ = run(monkeypatch, tmp_path, clock, system(ARMED))
    assert message is None and clock.now < RESET
    assert "the operator cancelled Claude Code's own resume" in state()["log"][-1]["reason"]


def test_with_nothing_armed_the_waiter_wakes_at_the_reset_as_before(monkeypatch, tmp_path):
    write_arc(T0 - 60)
    clock = FakeClock(T0)
    (message, _), _ = run(monkeypatch, tmp_path, clock)
    assert message is not None and message.startswith(WAKE)
    assert RESET <= clock.now < RESET + handover.BUILTIN_JITTER_S
    assert "limit-watch" not in kinds()


def test_the_newer_wording_of_the_armed_resume_is_read_too(monkeypatch, tmp_path):
    write_arc(T0 - 60)
    clock = FakeClock(T0)
    newer = "Usage limit reached · set to continue automatically at 8:54am"  # 2.1.332
    (message, _), _ = run(monkeypatch, tmp_path, clock, system(newer))
    assert (
        message is not None
        and "limit-watch" in kinds()
        and clock.now >= handover.watch_until(RESET + 2)
    )


def test_an_old_resume_that_came_arms_nothing_now(monkeypatch, tmp_path):
    write_arc(T0 - 60)
    clock = FakeClock(T0)
    (message, _), _ = run(monkeypatch, tmp_path, clock, system(ARMED), system(RESUMED))
    assert message is not None and clock.now < RESET + handover.BUILTIN_JITTER_S


def test_only_a_usage_limit_is_watched(monkeypatch, tmp_path):
    write_arc(T0 - 60)
    clock = FakeClock(T0)
    (message, _), _ = run(monkeypatch, tmp_path, clock, system(ARMED), error="overloaded")
    assert message is not None and "limit-watch" not in kinds()


def test_the_watch_is_shown_in_the_state_as_the_built_in_resume_being_watched(
    monkeypatch, tmp_path
):
    write_arc(T0 - 60)
    seen = {}

    def look(now: float) -> None:
        wait = StateFile.view(state()).limit_wait
        seen.setdefault("wait", dict(wait.data) if wait is not None else {})

    clock = FakeClock(T0, look)
    run(monkeypatch, tmp_path, clock, system(ARMED))
    assert seen["wait"]["source"] == handover.SOURCE
    assert seen["wait"]["until"] == handover.watch_until(RESET + 2)


def test_status_and_the_status_line_say_a_watch_is_not_a_wait():
    from arcguard.commands.status_text import limit_wait_text
    from arcguard.core.config import default_config
    from arcguard.core.display import statusline
    from arcguard.core.state import fresh_state

    cfg = default_config()
    state_ = fresh_state("s", T0)
    state_["limit_wait"] = {"token": "t", "until": RESET, "attempt": 1, "source": "built-in"}
    assert "watching Claude Code's own resume until" in statusline.segment(
        state_, cfg, T0, str, waiter_alive=True
    )
    summary = {
        "until": RESET,
        "until_iso": "2027-01-15T08:00:00Z",
        "error": "rate_limit",
        "attempt": 1,
        "of": 3,
        "waiter_alive": True,
        "waiting": True,
        "watching": True,
    }
    assert limit_wait_text(summary).startswith("Claude Code resumes the session itself")


def test_claude_codes_resume_prompt_is_not_the_operator():
    from arcguard.core.arc_keeper.posture import decide_posture
    from arcguard.core.config import default_config
    from arcguard.core.state import fresh_state

    state_ = fresh_state("s", T0)
    state_["limit_wait"] = {"token": "t", "until": RESET, "attempt": 1, "source": "built-in"}
    _, new = decide_posture(
        state_,
        RESUME_PROMPT,
        default_config(),
        T0,
        session_id="s",
        command="arcguard",
    )
    # Only a person cancels the watch; the watch itself sees the resume in the transcript.
    assert new is not None and new["limit_wait"]["token"] == "t"
