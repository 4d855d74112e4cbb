"""One wait, however the poll is spelt: an answer the session saw before goes on with the
current wait, whichever spelling brought it, so a stuck poll rotated through spellings, or
flapping between answers it showed before, is bounded by time like any other. A new answer,
progress going further, or a timer running down starts the wait again."""

from __future__ import annotations

from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash


PENDING = "NAME READY STATUS RESTARTS AGE\\napi-0 0/1 Pending 0 {m}m"
SPELLINGS = (
    "sleep 60; kubectl get pods -n staging",
    "sleep 60; kubectl get pods -n staging -o wide",
    "kubectl wait --for=condition=Ready pod/api-0 -n staging --timeout=60s",
)


def _minutes_to(d: Driver, answers: list[tuple[str, str]]) -> tuple[int | None, int | None]:
    """Poll once a minute with (command, answer) pairs: the minutes of the request and the
    pause (None: none came)."""
    asked = paused = None
    for minute, (command, answer) in enumerate(answers, start=1):
        d.wait(60)
        out = d.turn(bash(command, answer))
        if out["context"] and asked is None:
            asked = minute
        if d.paused is not None:
            paused = minute
            break
    return asked, paused


def test_a_stuck_poll_rotated_through_spellings_is_bounded_by_time():
    for turns in (2, 3):
        d = Driver()
        polls = [(SPELLINGS[m % turns], PENDING.format(m=m)) for m in range(60)]
        asked, paused = _minutes_to(d, polls)
        assert asked is not None and 15 <= asked <= 17, turns
        assert paused is not None and 30 <= paused <= 32, turns


def test_a_poll_flapping_between_answers_it_showed_before_is_bounded():
    # A crash loop: the pod's status goes from Running to Error to CrashLoopBackOff and back.
    d = Driver()
    states = ("Running", "Error", "CrashLoopBackOff")
    command = "sleep 60; kubectl get pods -l app=api"
    polls = [(command, f"api-7d9f8c6b5-xkqpz 0/1 {states[m % 3]} {m} 1m") for m in range(60)]
    asked, paused = _minutes_to(d, polls)
    assert asked is not None and paused is not None and paused <= 32


def test_progress_under_two_spellings_is_progress():
    # A training run watched two ways: the step goes further in each.
    d = Driver()
    watch = ("sleep 60; tail -n 1 train.log", "sleep 60; tail -1 train.log | cut -c1-80")
    polls = [(watch[m % 2], f"epoch 1/3 | step {100 * m}/14436 | loss 0.5") for m in range(60)]
    assert _minutes_to(d, polls) == (None, None)


def test_marks_of_another_layout_are_not_compared():
    # One spelling shows the step and the share, the other the share alone: each spelling's
    # own marks say whether the run moved, and a stuck one is bounded however it alternates.
    step, share = "sleep 60; tail -n 1 train.log", "sleep 60; cat progress.json"

    def polls(moving: bool) -> list[tuple[str, str]]:
        def at(m: int) -> int:
            return m if moving else 0

        return [
            (step, f"step {at(m)}/600 ({at(m) // 6}%)")
            if m % 2
            else (share, f"done: {at(m) // 6}%")
            for m in range(60)
        ]

    assert _minutes_to(Driver(), polls(moving=True)) == (None, None)
    asked, paused = _minutes_to(Driver(), polls(moving=False))
    assert asked is not None and paused is not None and paused <= 32


def test_a_wait_timing_out_anew_in_other_words_goes_on():
    # The same rollout wait fails each time naming another pod it still waits for.
    d = Driver()
    command = "kubectl rollout status deploy/api --timeout=60s"
    pods = [f"{a}{b}" for a in "bcdfghjklm" for b in ("ax", "ex", "ix", "ox", "ux", "yx")]
    asked, paused = 0, None
    for minute, pod in enumerate(pods, start=1):
        d.wait(60)
        error = f"Exit code 1\nerror: timed out waiting for pod api-{pod} to be ready"
        out = d.turn(Call("Bash", {"command": command}, error=error))
        asked = asked or (minute if out["context"] else 0)
        if d.paused is not None:
            paused = minute
            break
    assert 15 <= asked <= 17 and paused is not None and paused <= 32
