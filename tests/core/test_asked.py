"""One answer asked for many ways: a state asked for again in other words, with nothing changed
between, is asked about at the 4th way and paused at the 7th, as failures are. The classes: a
cluster's health read through every endpoint and client, a published version asked of every
package manager; and the look-alikes, the same call repeated (the shape rule's), answers that
say all is well, bare numbers, waits, sweeps over different targets, and real progress or the
user's words between."""

from __future__ import annotations

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import edit

from arcguard.core.loop_guard import asked
from arcguard.core.schema import StateFile


HEALTH = (
    ("curl -s 'localhost:9200/_cluster/health?pretty'", '{\n  "status" : "yellow",\n  "x" : 1\n}'),
    (
        "curl -s 'localhost:9200/_cat/health?v'",
        "epoch cluster status shards\n1790  catalog yellow 3",
    ),
    ("curl -s localhost:9200/_cluster/health | jq -r .status", "yellow"),
    ("curl -s 'localhost:9200/_cat/indices?v'", "health status index\nyellow open products-v3"),
    ("wget -qO- 'localhost:9200/_cluster/health?filter_path=status'", "Status: yellow"),
    ("curl -s 'localhost:9200/_cat/health?h=status,unassign'", "yellow 3"),
    ("curl -s localhost:9200/_cat/health | awk '{print $4}'", '"yellow"'),
    ("curl -s localhost:9200/_cluster/health?local=true", '{"status": "yellow"}'),
)
VERSIONS = (
    "npm view @acme/sdk version",
    "npm show @acme/sdk@latest version",
    "curl -s https://registry.npmjs.org/@acme%2fsdk/latest | jq -r .version",
    "pnpm view @acme/sdk version",
    "yarn info @acme/sdk version --silent",
    "npm view @acme/sdk version --prefer-online",
    "bun pm view @acme/sdk version",
)


def _ask(d: Driver, asks: list[tuple[str, str]]) -> list[str]:
    """What followed each look: "word", "pause" or ""."""
    out = []
    for command, answer in asks:
        context = d.turn(bash(command, response=answer))["context"]
        out.append("pause" if d.paused else "word" if context else "")
        if d.paused:
            break
    return out


def _rule(d: Driver) -> str | None:
    return next((e.rule for e in StateFile.view(d.state).log if e.kind == "nudge"), None)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ('{\n  "cluster_name" : "catalog",\n  "status" : "yellow"\n}', "yellow"),
        ('{"cluster_name":"catalog","status":"yellow","timed_out":false}', "yellow"),
        ("Name: pg-data\nStatus:        Pending\nVolume:", "pending"),
        (
            "NAME             READY   STATUS             RESTARTS\n"
            "api-6d9c-x2kqp   0/1     ImagePullBackOff   0\n"
            "api-7b5f-4hcmz   1/1     Running            0",
            "imagepullbackoff running",
        ),
        ("3.1.4", "3.1.4"),
        ("yellow 3 50.0%", "yellow 3 50.0%"),
        ("Type  Status  Reason\n----  ------  ------\nAvailable  True  MinimumReplicas", ""),
        ("Running", ""),
        ("200", ""),
        ('{"status": "healthy", "db": "up"}', ""),
        ("NAME    STATUS    AGE\n" + "\n".join(f"job-{n:<3} Pending   1m" for n in range(50)), ""),
        ("def main():\n    return state", ""),
    ],
)
def test_the_state_a_look_answers_with(text, answer):
    assert asked.said(text) == answer


def test_one_health_asked_through_every_endpoint_is_asked_about_then_paused():
    d = Driver()
    seen = _ask(d, list(HEALTH))
    assert seen[:4] == ["", "", "", "word"]
    assert seen[4:] == ["", "", "pause"]
    assert _rule(d) == "same-answer"
    assert "asked 7 ways" in d.paused["reason"] and "yellow" in d.paused["reason"]


def test_one_version_asked_of_every_package_manager_is_asked_about():
    d = Driver()
    seen = _ask(d, [(command, "3.1.4") for command in VERSIONS])
    assert seen.index("word") == 3


def test_one_look_between_that_says_something_else_does_not_end_the_run():
    d = Driver()
    asks = list(HEALTH[:3])
    asks[2:2] = [("git status --short", " M search/products-v3.json")]
    asks.append(HEALTH[3])
    assert _ask(d, asks)[-1] == "word"


def test_many_other_answers_between_end_the_run():
    d = Driver()
    others = [(f"kubectl get pod web-{n} -o name", f"Status: Pending{'x' * n}") for n in range(4)]
    seen = _ask(d, [*HEALTH[:2], *others, *HEALTH[2:4]])
    assert "word" not in seen


@pytest.mark.parametrize(
    "between",
    [
        edit("/repo/search/products-v3.json", '"number_of_replicas": 1', '"number_of_replicas": 0'),
        Call(
            "AskUserQuestion",
            {"questions": [{"question": "Drop the replicas?"}]},
            response='User has answered your questions: "Drop the replicas?"="yes, to 0".',
        ),
    ],
    ids=["an edit", "the user's words"],
)
def test_progress_between_starts_the_run_again(between):
    d = Driver()
    _ask(d, list(HEALTH[:3]))
    d.turn(between)
    assert "word" not in _ask(d, list(HEALTH[3:6]))


def test_the_same_call_asked_again_is_the_shape_rules_not_this_one():
    # Only the output filter differs: the same look, read another way.
    d = Driver()
    url = "curl -s localhost:9200/_cluster/health"
    filters = ("jq -r .status", "jq .status", "jq -r '.status'", "tail -1", "head -1", "cat")
    seen = _ask(d, [(f"{url} | {f}", "yellow") for f in filters])
    assert "word" not in seen and _rule(d) is None


@pytest.mark.parametrize(
    "answer",
    ["green", '{"status": "healthy"}', "NAME   STATUS    AGE\napi    Running   3m", "200", "true"],
)
def test_a_settled_answer_or_a_bare_number_asked_many_ways_is_a_look_around(answer):
    d = Driver()
    assert "word" not in _ask(d, [(command, answer) for command, _ in HEALTH])


def test_a_wait_watched_many_ways_is_timed_not_asked():
    d = Driver()
    waits = [
        "sleep 20; kubectl get pvc pg-data -n staging",
        "sleep 30 && kubectl get pvc -n staging pg-data -o wide",
        "watch -n 5 -g kubectl get pvc pg-data -n staging",
        "sleep 60; kubectl -n staging get pvc",
        "kubectl get pvc pg-data -n staging --watch --request-timeout=60s",
        "sleep 90 && kubectl get persistentvolumeclaims -n staging",
        "timeout 60 kubectl get pvc -n staging -w",
    ]
    table = "NAME      STATUS    VOLUME\npg-data   Pending"
    assert "word" not in _ask(d, [(command, table) for command in waits])


def test_the_same_state_of_different_targets_is_a_sweep():
    d = Driver()
    services = ("nginx", "redis", "postgres", "rabbitmq", "memcached", "haproxy", "sshd")
    sweep = [(f"systemctl is-active {name}", "inactive") for name in services]
    assert "word" not in _ask(d, sweep)
