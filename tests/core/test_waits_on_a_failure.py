"""A wait on a failure: a poll that fails, or shows a failing state (`ImagePullBackOff`), as a
failure had before is waiting for something that waiting alone seldom mends. Its bounds are a
third of a wait's (a request at 5 minutes, a pause at 10), a failing state turning into
another (`ErrImagePull`, then `ImagePullBackOff`) is no news, and a change that leaves the
failure as it was does not start the wait again. A wait whose failures bring news (a rate
limit's next page) or clear is a wait as before."""

from __future__ import annotations

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import fail

from arcguard.core.loop_guard import failing_states


PODS = (
    "NAME READY STATUS RESTARTS AGE\n"
    "api-6b8d4f7c59-2hjvq 1/1 Running 0 6d2h\n"
    "api-6b8d4f7c59-m4tqz 1/1 Running 0 6d2h\n"
    "api-7c9f8d6b5-{pod} 0/1 {state} 0 {m}m"
)
PULLING = ("ErrImagePull", "ImagePullBackOff")
ROLLOUT = "kubectl -n staging rollout status deploy/api --timeout=120s"
TIMED_OUT = (
    'Waiting for deployment "api" rollout to finish: 1 out of 3 new replicas have been '
    "updated...\nerror: timed out waiting for the condition"
)


def _minutes_to(d: Driver, calls: list[Call]) -> tuple[int | None, int | None]:
    """One call a minute: the minutes of the request and the pause (None: none came)."""
    asked = paused = None
    for minute, call in enumerate(calls, start=1):
        d.wait(60)
        out = d.turn(call)
        if out["context"] and asked is None:
            asked = minute
        if d.paused is not None:
            return asked, minute
    return asked, paused


def _pods(minute: int, state: str, pod: str = "xk2lq") -> str:
    return PODS.format(pod=pod, state=state, m=minute)


@pytest.mark.parametrize(
    "word",
    [
        "ImagePullBackOff",
        "ErrImagePull",
        "CrashLoopBackOff",
        "CreateContainerConfigError",
        "SecretSyncedError",
        "ProvisioningFailed",
        "Error",
    ],
)
def test_status_words_that_name_a_failure(word):
    assert failing_states.failing_word(word)


@pytest.mark.parametrize(
    "word", ["Running", "Pending", "ContainerCreating", "ERROR", "error", "Errand", "ErrorCount"]
)
def test_other_words_name_no_failing_state(word):
    assert not failing_states.failing_word(word)


def test_a_line_naming_a_failing_state_reads_as_one_line():
    one = failing_states.fold(_pods(3, "ErrImagePull"))
    assert one is not None and one == failing_states.fold(_pods(4, "ImagePullBackOff", "r8mwp"))
    assert one.splitlines()[:3] == _pods(3, "").splitlines()[:3]
    assert failing_states.fold(_pods(3, "ContainerCreating")) is None


def test_a_pod_flipping_between_two_failing_states_is_a_wait_on_a_failure():
    polls = [
        bash(f"sleep 60; kubectl get pods -n staging{' -o wide' * (m % 3 == 0)}", _pods(m, s))
        for m in range(1, 40)
        for s in [PULLING[m % 2]]
    ]
    asked, paused = _minutes_to(Driver(), polls)
    assert asked is not None and asked <= 6
    assert paused is not None and paused <= 12


def test_a_rollout_timing_out_again_and_again_is_asked_about_at_five_minutes():
    calls = [
        fail(ROLLOUT, TIMED_OUT) if m % 2 else bash("sleep 60; kubectl get pvc data", "Pending")
        for m in range(1, 40)
    ]
    asked, paused = _minutes_to(Driver(), calls)
    assert asked is not None and 5 <= asked <= 7
    assert paused is not None and 10 <= paused <= 12


def test_a_change_that_leaves_the_failure_as_it_was_does_not_start_the_wait_again():
    calls = []
    for m in range(1, 40):
        if m % 4 == 0:  # a new pod each time, pulling as the last one did
            calls.append(bash("kubectl -n staging delete pod -l app=api", 'pod "api" deleted'))
        else:
            calls.append(bash("sleep 60; kubectl get pods", _pods(m, PULLING[m % 2], f"p{m}")))
    asked, paused = _minutes_to(Driver(), calls)
    assert asked is not None and paused is not None and paused <= 12


def test_failures_that_bring_news_are_no_wait_on_a_failure():
    # A rate-limited job run again after each limit's wait: each run gets further, so its wait
    # keeps a wait's bounds.
    run = "sleep 60; python backfill.py --resume"
    calls = [
        fail(run, f"page {10 * m}: 95 upserted\nHTTP 429 Too Many Requests\nexiting with 75")
        for m in range(1, 31)
    ]
    asked, _ = _minutes_to(Driver(), calls)
    assert asked is not None and asked >= 15


def test_a_failing_state_that_clears_is_no_stuck_wait():
    states = ["CrashLoopBackOff"] * 4 + ["Running"] + ["ContainerCreating", "Running"] * 20
    calls = [bash("sleep 60; kubectl get pods", _pods(m, s)) for m, s in enumerate(states)]
    assert _minutes_to(Driver(), calls) == (None, None)


def test_a_wait_that_never_fails_keeps_its_bounds():
    calls = [bash("sleep 60; kubectl get pvc data", "data Pending gp3") for _ in range(40)]
    asked, paused = _minutes_to(Driver(), calls)
    assert asked is not None and 15 <= asked <= 17
    assert paused is not None and 30 <= paused <= 32


def test_a_poll_failing_as_a_look_failed_before_waits_on_that_failure():
    # The boot flag read once, then polled: the same failure, so the restart of adb between
    # the polls leaves the wait on it as it was.
    gone = "Exit code 1\nadb: no devices/emulators found"
    calls = [
        fail("adb shell getprop sys.boot_completed", gone),
        bash("sleep 60; adb devices", "List of devices attached"),
        fail("sleep 60 && adb shell getprop sys.boot_completed", gone),
        bash("adb kill-server && adb start-server", "* daemon started successfully"),
        *[bash("sleep 60; adb devices", "List of devices attached")] * 30,
    ]
    asked, paused = _minutes_to(Driver(), calls)
    assert asked is not None and asked <= 7
    assert paused is not None and paused <= 12
