"""A wait on a failure, and failing states.

A poll that fails as a failure did before (`rollout status` timing out again) waits on
something that waiting alone seldom brings: the wait is timed from that failure's first
sighting and asked about at a third of a wait's bound (5 minutes); its pause keeps a wait's
bound, some minutes after the request. A change after which it fails alike does not start it
again; news without a failing state, an edit or the user's words do. A failing state in a
status table (`ErrImagePull`, then `ImagePullBackOff`) turning into another in the same row is
no news: the wait goes on, with a wait's bounds. A wait whose failures bring news, or clear, or
say nothing (`Exit code 1` alone), is a wait as before."""

from __future__ import annotations

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import edit
from testing.guard_driver import fail

from arcguard.core.loop_guard import failing_states
from arcguard.core.loop_guard import request_ids
from arcguard.core.loop_guard import tool_effects
from arcguard.core.tool_call import ToolCall


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
PENDING = ("sleep 60; kubectl get pvc data", "data Pending gp3")


def _minutes_to(d: Driver, calls: list[Call]) -> tuple[int | None, int | None]:
    """One call a minute: the minutes of the request and the pause (None: none came)."""
    asked = None
    for minute, call in enumerate(calls, start=1):
        d.wait(60)
        out = d.turn(call)
        if out["context"] and asked is None:
            asked = minute
        if d.paused is not None:
            return asked, minute
    return asked, None


def _pods(minute: int, state: str, pod: str = "xk2lq") -> str:
    return PODS.format(pod=pod, state=state, m=minute)


def _timing_out(minutes: int) -> list[Call]:
    """The rollout timing out every other minute, a pending volume polled between."""
    return [fail(ROLLOUT, TIMED_OUT) if m % 2 else bash(*PENDING) for m in range(1, minutes)]


@pytest.mark.parametrize(
    "word",
    ["ImagePullBackOff", "ErrImagePull", "CrashLoopBackOff", "CreateContainerConfigError",
     "SecretSyncedError", "ProvisioningFailed", "Error"],
)  # fmt: skip
def test_status_words_that_name_a_failure(word):
    assert failing_states.failing_word(word)


@pytest.mark.parametrize(
    "word",
    ["Running", "Pending", "ContainerCreating", "ERROR", "error", "Errand", "ErrorCount",
     "TestHTTPError"],
)  # fmt: skip
def test_other_words_name_no_failing_state(word):
    assert not failing_states.failing_word(word)


def test_a_failing_state_in_a_row_reads_as_one_marker():
    one = failing_states.fold(_pods(3, "ErrImagePull"))
    assert one is not None and one == failing_states.fold(_pods(3, "ImagePullBackOff"))
    assert one != failing_states.fold(_pods(3, "ImagePullBackOff", "r8mwp"))  # another pod
    assert one.splitlines()[:3] == _pods(3, "").splitlines()[:3]
    assert failing_states.fold(_pods(3, "ContainerCreating")) is None


@pytest.mark.parametrize(
    "text",
    [
        'Error from server (NotFound): pods "api-0" not found',
        "curl: (7) Failed to connect to localhost port 8080",
        "tests/test_http.py::TestHTTPError::test_retry PASSED [45%]",
        "Error",
    ],
)
def test_no_failing_state_outside_a_table_row(text):
    assert failing_states.fold(text) is None


def test_a_pod_flipping_between_two_failing_states_is_one_wait():
    polls = [bash("sleep 60; kubectl get pods", _pods(m, PULLING[m % 2])) for m in range(1, 40)]
    asked, paused = _minutes_to(Driver(), polls)
    assert asked is not None and 15 <= asked <= 17
    assert paused is not None and 30 <= paused <= 32


def test_a_failing_state_beside_rows_that_move_is_news():
    # A stale failed pod beside a job whose pods come and go: the job moves.
    rows = "NAME READY STATUS RESTARTS AGE\nold-x 0/1 Error 0 1d\nworker-{n} 1/1 Running 0 1m"
    names = [a + b for a in "bcdfghjklm" for b in "aeiou"]
    polls = [bash("sleep 60; kubectl get pods", rows.format(n=names[m])) for m in range(1, 40)]
    assert _minutes_to(Driver(), polls) == (None, None)


def test_a_rollout_timing_out_again_is_asked_about_at_five_minutes_and_paused_at_thirty():
    asked, paused = _minutes_to(Driver(), _timing_out(40))
    assert asked is not None and 5 <= asked <= 7
    assert paused is not None and 30 <= paused <= 32


def test_a_wait_on_a_failure_is_timed_from_its_first_sighting():
    # Pods listed other ways between the two timeouts start the wait again (new answers);
    # each shows a failing state, no progress, and the failure's wait goes on.
    ways = ("kubectl get pods", "kubectl get pods -o wide", "kubectl get pods -l app=api")
    calls = [fail(ROLLOUT, TIMED_OUT)]
    calls += [bash(f"sleep 60; {ways[m % 3]}", _pods(m, PULLING[m % 2], ways[m % 3][-3:]))
              for m in range(4)]  # fmt: skip
    calls += [fail(ROLLOUT, TIMED_OUT)]
    asked, _ = _minutes_to(Driver(), calls)
    assert asked == 6


def test_news_between_two_failures_starts_the_wait_on_them_again():
    calls = [fail(ROLLOUT, TIMED_OUT)]
    calls += [bash(f"sleep 60; kubectl get events --since={m}m", f"event {m}") for m in range(4)]
    calls += [fail(ROLLOUT, TIMED_OUT)]
    asked, _ = _minutes_to(Driver(), calls)
    assert asked is None


def test_a_change_that_leaves_the_failure_as_it_was_does_not_start_the_wait_again():
    delete = bash("kubectl -n staging delete pod -l app=api", 'pod "api" deleted')
    timeout, pending = fail(ROLLOUT, TIMED_OUT), bash(*PENDING)
    calls = [pending, timeout, pending, timeout] + [delete, timeout, pending, timeout] * 8
    asked, paused = _minutes_to(Driver(), calls)
    assert asked is not None and asked <= 7
    assert paused is not None and paused <= 32


def test_an_edit_starts_a_wait_on_a_failure_again():
    calls = [fail(ROLLOUT, TIMED_OUT), bash(*PENDING), edit("k8s/api.yaml", "tag: v1", "tag: v2")]
    calls += _timing_out(6)
    asked, _ = _minutes_to(Driver(), calls)
    assert asked is None or asked >= 3 + 5


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
    asked, paused = _minutes_to(Driver(), [bash(*PENDING) for _ in range(40)])
    assert asked is not None and 15 <= asked <= 17
    assert paused is not None and 30 <= paused <= 32


def test_a_poll_failing_as_a_look_failed_before_waits_on_that_failure():
    # The boot flag read once, then polled: the same failure, so the restart of adb between
    # the polls leaves the wait on it as it was.
    gone = "Exit code 1\nadb: no devices/emulators found"
    devices = bash("sleep 60; adb devices", "List of devices attached")
    calls = [
        devices,
        fail("adb shell getprop sys.boot_completed", gone),
        devices,
        fail("sleep 60 && adb shell getprop sys.boot_completed", gone),
        bash("adb kill-server && adb start-server", "* daemon started successfully"),
        *[devices] * 30,
    ]
    asked, paused = _minutes_to(Driver(), calls)
    assert asked is not None and asked <= 7
    assert paused is not None and paused <= 32


def test_a_failure_seen_long_ago_is_another_waits():
    d = Driver()
    _minutes_to(d, [fail(ROLLOUT, TIMED_OUT)])
    d.wait(3600)
    asked, _ = _minutes_to(d, [fail(ROLLOUT, TIMED_OUT), bash(*PENDING), bash(*PENDING)])
    assert asked is None


def test_a_dependency_starting_for_twelve_minutes_is_asked_about_but_not_paused():
    health = "sleep 60; curl -sS -f localhost:8080/actuator/health"
    refused = "Exit code 7\ncurl: (7) Failed to connect to localhost port 8080: Couldn't connect"
    calls = [fail(health, refused) for _ in range(11)] + [bash(health, '{"status":"UP"}')] * 3
    asked, paused = _minutes_to(Driver(), calls)
    assert asked is not None and asked <= 7
    assert paused is None


def test_pods_pulling_an_image_ci_is_still_building_are_not_paused():
    polls = [
        bash("sleep 60; kubectl get pods", _pods(m, PULLING[m % 2] if m < 13 else "Running"))
        for m in range(1, 16)
    ]
    assert _minutes_to(Driver(), polls)[1] is None


def test_fixes_made_with_kubectl_alone_that_move_the_failure_are_not_paused():
    look = "sleep 60; kubectl get pods"
    row = "NAME READY STATUS RESTARTS AGE\napi-{pod} 0/1 {state} {n} 1m"
    calls = [bash(look, row.format(pod="h7g6f", state="CreateContainerConfigError", n=0))] * 3
    calls += [bash("kubectl create secret generic api-env --from-env-file=.env", "created")]
    calls += [bash(look, row.format(pod="h7g6f", state="CrashLoopBackOff", n=2))] * 3
    calls += [bash("kubectl set env deploy/api --from=secret/stripe", "env updated")]
    calls += [bash(look, row.format(pod="b3c2d", state="CrashLoopBackOff", n=3))] * 3
    calls += [bash("kubectl patch deploy api -p '{\"spec\":{}}'", "patched")]
    calls += [bash(look, row.format(pod="x1y2z", state="Running", n=0))]
    assert _minutes_to(Driver(), calls)[1] is None


def test_the_request_and_the_pause_say_the_poll_has_been_failing():
    d = Driver()
    texts = [d.turn(call)["context"] for call in _timing_out(4)[:1]]
    for call in _timing_out(40):
        d.wait(60)
        texts.append(d.turn(call)["context"])
        if d.paused:
            break
    asked = next(t for t in texts if t)
    assert "has been failing the same way for" in str(asked)
    assert d.paused is not None and "failed the same way for 3" in d.paused["reason"]


@pytest.mark.parametrize(
    "word",
    ["7QH0J8A4KQ2R9V1S6O3BDMMF2JVV4KQNSO5AEMVJF66Q9ASUAAJG", "01ARZ3NDEKTSV4RRFFQ69G5FAV",
     "c2VjcmV0LXRva2VuLTQyOTk5Mw3x"],
)  # fmt: skip
def test_ids_made_up_per_request(word):
    assert request_ids.is_id(word)


@pytest.mark.parametrize(
    "word",
    ["ERR_PNPM_NO_MATCHING_VERSION", "AKIAIOSFODNN7EXAMPLE", "TestParseError123", "HTTP2",
     "abc123def456ghi789jkl", "ConditionalCheckFailedException"],
)  # fmt: skip
def test_words_that_are_no_request_id(word):
    assert not request_ids.is_id(word)


def test_a_lock_refused_with_a_new_request_id_each_time_is_a_wait_on_that_failure():
    lock = (
        "Exit code 1\nError: Error acquiring the state lock\nRequestID: {rid}\n"
        "Lock Info:\n  ID: 3f6b9c2e-81d4-4a07-b6f1-2d0c9e57a4b3\n  Who: runner@gha-runner-7f9c4"
    )
    ids = [f"Q{n}H0J8A4KQ2R9V1S6O3BDMMF{n}JVV4KQNSO5AE" for n in range(10, 40)]
    plan = "sleep 60 && terraform plan -out=tfplan"
    asked, _ = _minutes_to(Driver(), [fail(plan, lock.format(rid=rid)) for rid in ids])
    assert asked is not None and asked <= 7


def test_the_pause_comes_minutes_after_the_request_however_old_the_failure():
    # First seen 25 minutes before the wait: the request at once, the pause 5 minutes on.
    d = Driver()
    _minutes_to(d, [fail(ROLLOUT, TIMED_OUT)])
    d.wait(25 * 60)
    asked, paused = _minutes_to(d, [fail(ROLLOUT, TIMED_OUT)] * 12)
    assert asked == 1 and paused == 1 + 5


def test_a_change_before_any_wait_on_a_failure_forgets_the_failures_seen():
    scale = bash("kubectl -n staging scale deploy/db --replicas=1", "deployment.apps/db scaled")
    refused = "Exit code 7\ncurl: (7) Failed to connect to localhost port 8080"
    health = "curl -sf localhost:8080/health"
    calls = [bash(*PENDING), fail(health, refused), scale]
    calls += [fail(f"sleep 60 && {health}", refused)] * 8
    asked, _ = _minutes_to(Driver(), calls)
    assert asked == 4 + 5  # from the first refusal after the change


def test_silent_failures_alike_are_no_wait_on_a_failure():
    # `Exit code 1` alone, from `pgrep` and a `test -f`: nothing tells them apart.
    calls = [fail("sleep 60; pgrep -f export.py", "Exit code 1")] * 9
    calls += [fail("sleep 60; test -f /tmp/export.done", "Exit code 1")] * 9
    asked, _ = _minutes_to(Driver(), calls)
    assert asked is None or asked >= 15


def test_the_request_names_the_poll_that_failed_again():
    d = Driver()
    texts = [d.turn(c)["context"] for c in (bash(*PENDING), fail(ROLLOUT, TIMED_OUT))]
    for call in _timing_out(10):
        d.wait(60)
        texts.append(d.turn(call)["context"])
    asked = next(t for t in texts if t)
    assert "rollout status" in str(asked)


def test_a_wait_subcommand_after_a_namespace_is_a_poll():
    call = ToolCall("Bash", {"command": "kubectl -n cert-manager wait --for=condition=Ready c/x"})
    assert tool_effects.is_poll(call)


def test_a_succeeding_poll_keeps_its_ids():
    # A worker's log naming each job by its id: each poll's lines are new.
    log = "sleep 60; tail -n 1 worker.log"
    ids = [f"01HW{a}{b}Z3NDEKTSV4RR{b}{a}Q69G5F" for a in "ABCDEFG" for b in "HJKMN"]
    polls = [bash(log, f"done job {job}") for job in ids]
    assert _minutes_to(Driver(), polls) == (None, None)
