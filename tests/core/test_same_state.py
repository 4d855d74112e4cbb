"""A state asked for again in other words: looks that tell nothing new. A volume that stays
Pending, asked about with `get`, `describe`, `wait`, a jsonpath and a sleep first, each answer
worded anew, is asked about, then paused; and the look-alikes: a sweep over targets, a poll
repeated as spelt, looks whose answers move, reading files, and progress between looks."""

from __future__ import annotations

from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import edit
from testing.guard_driver import fail

from arcguard.core.loop_guard import same_state
from arcguard.core.schema import StateFile


PENDING = (
    "NAME      STATUS    VOLUME   CAPACITY   STORAGECLASS   AGE\n"
    "pg-data   Pending                       gp3            2m"
)
# Ten ways to ask whether the volume is bound, each answering only what the first told.
LOOKS = (
    ("kubectl get pvc pg-data -n staging", PENDING),
    ("sleep 20; kubectl get pvc -n staging pg-data", PENDING),
    ("kubectl get pvc pg-data -n staging -o jsonpath='{.status.phase}'", "Pending"),
    ("sleep 60; kubectl get pvc -n staging", PENDING),
    ("kubectl get pvc pg-data -n staging -o wide", PENDING),
    ("kubectl get pvc -n staging pg-data --no-headers", "pg-data   Pending       gp3   9m"),
    ("timeout 90 kubectl get pvc pg-data -n staging -w", PENDING),
    ("kubectl get pvc/pg-data -n staging", PENDING),
    ("kubectl -n staging get pvc pg-data -o json | jq -r .status.phase", "Pending"),
    ("kubectl get pvc -n staging -o name", "persistentvolumeclaim/pg-data"),
)


def _ask(d: Driver, looks: tuple[tuple[str, str], ...] = LOOKS) -> list[bool]:
    """Whether each look was followed by a request to the model."""
    words = []
    for command, answer in looks:
        out = d.turn(bash(command, response=answer))
        words.append(bool(out["context"]))
        if d.paused:
            break
    return words


def test_looks_in_other_words_that_tell_nothing_new_are_asked_about_then_paused():
    d = Driver()
    words = _ask(d)
    # The first look is news; the 4th after it that tells nothing new brings the request.
    assert words.index(True) == 4
    assert d.paused is not None and d.paused["kind"] == "stuck"
    assert "7 looks since anything last changed" in d.paused["reason"]
    assert len(words) == 8
    nudge = next(e for e in StateFile.view(d.state).log if e.kind == "nudge")
    assert nudge.rule == "same-state" and nudge.runs == 4
    assert "kubectl get pvc" in nudge.reason


def test_a_look_whose_answer_says_something_new_is_not_counted():
    d = Driver()
    _ask(d, LOOKS[:4])
    d.turn(bash("kubectl describe pvc pg-data -n staging", response="Events: WaitForFirstConsumer"))
    assert d.main["stuck"]["stale"]["count"] == 3


def test_a_sweep_asks_each_target_once():
    # The same question of nine clusters: the answers repeat, the targets do not.
    d = Driver()
    listed = "\n".join(f"ctx-{n}" for n in range(9))
    d.turn(bash("kubectl config get-contexts -o name", response=listed))
    looks = tuple(
        (f"kubectl --context ctx-{n} get clusterissuer internal-ca", "True Signing CA verified")
        for n in range(9)
    )
    _ask(d, looks)
    assert d.main["stuck"]["stale"].get("count", 0) == 0


def test_a_poll_spelt_as_before_is_a_wait_not_a_look_in_other_words():
    d = Driver()
    polls = tuple(
        ("sleep 30 && gh run view 42 --json status # try", "in_progress") for _ in range(9)
    )
    _ask(d, polls)
    assert d.main["stuck"]["stale"].get("count", 0) == 0


def test_a_look_repeated_as_spelt_counts_again():
    # Not a wait: the same question asked again, which answers as before.
    d = Driver()
    _ask(d, LOOKS[:3])
    d.turn(bash(LOOKS[0][0], response=PENDING))
    assert d.main["stuck"]["stale"]["count"] == 3


def test_reading_files_is_not_looking_at_a_state():
    d = Driver()
    reads = tuple((f"grep -n Pending docs/volumes-{n % 3}.md", "12: Pending") for n in range(9))
    _ask(d, reads)
    assert "stale" not in d.main.get("stuck", {})


def test_an_edit_to_a_new_content_starts_the_run_again():
    d = Driver()
    _ask(d, LOOKS[:4])
    d.turn(edit("/p/k8s/pvc.yaml", "storageClassName: gp3", "storageClassName: gp3-immediate"))
    assert d.main["stuck"]["stale"].get("count", 0) == 0
    # What the looks told is still known: the next ones tell nothing new either.
    assert _ask(d, LOOKS[4:8]) == [False, False, False, True]


def test_a_change_that_answers_anew_starts_the_run_again():
    d = Driver()
    _ask(d, LOOKS[:4])
    d.turn(bash("kubectl apply -f k8s/pod.yaml", response="pod/pg-client created"))
    assert d.main["stuck"]["stale"].get("count", 0) == 0


def test_a_failed_look_is_a_look():
    d = Driver()
    _ask(d, LOOKS[:2])
    timeout = "error: timed out waiting for the condition on persistentvolumeclaims/pg-data"
    wait = "kubectl wait --for=jsonpath='{.status.phase}'=Bound pvc/pg-data -n staging"
    d.turn(fail(f"{wait} --timeout=120s", timeout))
    d.turn(fail(f"{wait} --timeout=300s", timeout))  # the same question, a longer wait
    assert d.main["stuck"]["stale"]["count"] == 2


def test_the_values_leave_out_a_tables_header_and_a_lines_key():
    table = "NAME   STATUS    AGE\npg-data   Pending   2m\nredis-data   Bound   3h"
    assert same_state.values(table) == ["pg-data", "pending", "redis-data", "bound"]
    assert same_state.values('  "status" : "yellow",\nStatus:   Pending') == ["yellow", "pending"]
    assert same_state.values("Access Modes:  RWO") == ["rwo"]
    assert same_state.values('deployment "api" rolled out') == [
        "deployment",
        "api",
        "rolled",
        "out",
    ]


def test_a_look_aims_at_a_state_and_only_reads():
    assert same_state.asked("curl -s 'localhost:9200/_cat/health?v' # again") == (
        "curl -s localhost:9200/_cat/health?v"
    )
    assert same_state.asked("npm view @acme/sdk version") is not None
    assert same_state.asked("cat /tmp/emulator.log | tail -5") is None
    assert same_state.asked("git status --short") is None
    assert same_state.asked("kubectl delete pod api-0") is None


def test_names_are_the_words_that_name_a_target():
    assert same_state.names("kubectl --context dev-euw1 get pvc pg-data --timeout=1h30m") == [
        "dev-euw1",
        "pg-data",
    ]
