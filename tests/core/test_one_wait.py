"""One wait, however the poll is spelt: another spelling whose answer the session saw before
joins the current wait as a view, so a stuck poll rotated through spellings is bounded by time
like any other. A view whose own answer changed (a rollout's pods moving on, even to a state
shown before), whose own progress went further, a new answer, or a timer running down starts
the wait again."""

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
    # The wait times out each time naming another pod: a failure in other words, no news.
    pods = [f"{a}{b}" for a in "bcdfghjklm" for b in ("ax", "ex", "ix", "ox", "ux", "yx")]
    timed_out = "Exit code 1\nerror: timed out waiting for the condition on pods/api-{p}"
    for turns in (2, 3):
        d = Driver()
        asked = paused = None
        for minute in range(1, 61):
            d.wait(60)
            at = minute % turns
            if at == 1:
                call = Call(
                    "Bash", {"command": SPELLINGS[2]}, error=timed_out.format(p=pods[minute])
                )
            else:
                call = bash(SPELLINGS[at], PENDING.format(m=minute))
            out = d.turn(call)
            asked = asked or (minute if out["context"] else None)
            if d.paused is not None:
                paused = minute
                break
        assert asked is not None and 15 <= asked <= 17, turns
        assert paused is not None and 30 <= paused <= 32, turns


def test_a_rollout_moving_through_states_it_showed_before_is_no_stuck_wait():
    # Pods restarted one by one: each poll shows the states of the last, in another order.
    d = Driver()
    command = "sleep 60; kubectl get pods -l app=api --no-headers | awk '{print $3}' | uniq -c"
    states = ("3 Running", "2 Running\n1 ContainerCreating", "2 Running\n1 Terminating")
    polls = [(command, states[m % 3]) for m in range(60)]
    assert _minutes_to(d, polls) == (None, None)


def test_another_view_moving_through_states_is_no_stuck_wait():
    # The rollout's history, unchanged, and its pods, moving: the pods' view changes.
    d = Driver()
    history = ("sleep 60; kubectl rollout history deploy/api", "REVISION 4 5")
    pods = "sleep 60; kubectl get pods -l app=api --no-headers | awk '{print $3}' | uniq -c"
    states = ("3 Running", "2 Running\n1 ContainerCreating", "2 Running\n1 Terminating")
    polls = [(pods, state) for state in states]  # the states, before the history is first read
    polls += [history if m % 2 == 0 else (pods, states[m // 2 % 3]) for m in range(57)]
    assert _minutes_to(d, polls) == (None, None)


def test_a_view_failing_in_other_words_goes_on_with_the_wait():
    d = Driver()
    pending = ("sleep 60; kubectl get pvc data", "data Pending gp3 1m")
    errors = ("error: timed out waiting for the condition", "error: no matching resources found")
    wait = "kubectl wait --for=jsonpath={.status.phase}=Bound pvc/data --timeout=60s"
    asked = paused = None
    for minute in range(1, 61):
        d.wait(60)
        if minute % 2:
            out = d.turn(bash(*pending))
        else:
            out = d.turn(
                Call("Bash", {"command": wait}, error=f"Exit code 1\n{errors[minute // 2 % 2]}")
            )
        asked = asked or (minute if out["context"] else None)
        if d.paused is not None:
            paused = minute
            break
    assert asked is not None and paused is not None and paused <= 32


def test_a_poll_whose_progress_moves_beside_one_that_does_not_is_progress():
    # A build whose step goes further, polled in turn with a deploy that has not started.
    build = ("sleep 30; tail -n 1 build.log", "[builder {m}/80] compiling")
    deploy = ("sleep 30; kubectl get deploy api", "api 0/3 0 0 2m")
    for first, second in ((build, deploy), (deploy, build)):
        polls = [
            (first[0], first[1].format(m=m)) if m % 2 else (second[0], second[1].format(m=m))
            for m in range(60)
        ]
        assert _minutes_to(Driver(), polls) == (None, None)
    # The build stalls at its 9th step, at once or after moving for a while.
    for moving in (0, 9):
        steps = [(build[0], build[1].format(m=min(m, moving) or 9)) for m in range(60)]
        stuck = [steps[m] if m % 2 else deploy for m in range(60)]
        asked, paused = _minutes_to(Driver(), stuck)
        assert asked is not None and paused is not None and paused <= 32 + moving, moving


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


LOG = [
    "[14:02:04] epoch 3 | step 650/742 | loss 1.0007",
    "[14:02:09] epoch 3 | step 700/742 | loss 0.9871",
    "[14:02:13] epoch 3 done in 65.1s | running validation...",
]
TAILS = (
    ("sleep 60; tail -n 3 train.log", 3),
    ("sleep 60 && tail -n 2 train.log", 2),
    ("sleep 60; tail -1 train.log; echo", 1),
    ("sleep 60; grep epoch train.log | tail -n 2", 2),
)


def test_a_log_that_stopped_read_through_other_tails_is_one_wait():
    # Each spelling shows a part of the same last lines: a new shape, but nothing new.
    polls = [(TAILS[m % 4][0], "\n".join(LOG[-TAILS[m % 4][1] :])) for m in range(60)]
    asked, paused = _minutes_to(Driver(), polls)
    assert asked is not None and 15 <= asked <= 17
    assert paused is not None and paused <= 32


def test_a_log_that_grows_under_other_tails_is_no_stuck_wait():
    def tail(m: int) -> str:
        lines = [*LOG, *(f"[14:{10 + n:02d}:00] val | batch {n}/90" for n in range(m + 1))]
        return "\n".join(lines[-TAILS[m % 4][1] :])

    assert _minutes_to(Driver(), [(TAILS[m % 4][0], tail(m)) for m in range(60)]) == (None, None)


def test_the_same_poll_showing_fewer_lines_moved():
    # A queue drains: the same command lists one job fewer every 5 minutes.
    jobs = [f"{1000 + n} gpu job{n} alice R 1 node{n}" for n in range(13)]
    command = "sleep 60; squeue -u alice"
    polls = [(command, "\n".join(["JOBID NAME USER ST", *jobs[m // 5 :]])) for m in range(60)]
    assert _minutes_to(Driver(), polls) == (None, None)


def test_lines_alike_are_counted_not_only_seen():
    # Pods without names: one more turns Running every 6 minutes.
    command = "sleep 60; kubectl get pods -l app=api -o jsonpath='{.items[*].status.phase}'"

    def phases(m: int) -> str:
        up = min(m // 6 + 1, 9)
        return "\n".join(["Running"] * up + ["Pending"] * (10 - up))

    assert _minutes_to(Driver(), [(command, phases(m)) for m in range(60)]) == (None, None)


def test_a_long_answer_moving_above_its_last_lines_moved():
    # 46 rows; the second one goes back and forth between two states every 8 minutes.
    rows = [f"kube-system svc-{n:02d} 1/1 Running 0 3d" for n in range(45)]
    command = "sleep 60; kubectl get pods -A"

    def table(m: int) -> str:
        state = ("Pending", "ContainerCreating")[m // 8 % 2]
        return "\n".join(["NAMESPACE NAME READY STATUS", f"app migrate 0/1 {state} 0", *rows])

    assert _minutes_to(Driver(), [(command, table(m)) for m in range(60)]) == (None, None)
