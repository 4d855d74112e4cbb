"""One answer asked for many ways: a state asked for again in other words, with nothing changed
between, is asked about at the 4th way and paused at the 6th, as failures are. The classes: a
cluster's health read through every endpoint and client, a published version asked of every
package manager, a record asked of every resolver, a certificate's expiry read every way (the
values a short print answers with); and the look-alikes, the same call repeated (the shape
rule's), answers that say all is well, bare numbers, waits, sweeps over different targets, and
real progress or the user's words between."""

from __future__ import annotations

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import edit
from testing.guard_driver import nudge_rule
from testing.guard_driver import staged
from testing.guard_driver import tag

from arcguard.core.loop_guard import asked
from arcguard.core.loop_guard import failures
from arcguard.core.schema import StateFile


HEALTH = (
    ("curl -s 'localhost:9200/_cluster/health?pretty'", '{\n  "status" : "yellow",\n  "x" : 1\n}'),
    (
        "curl -s 'localhost:9200/_cat/health?v'",
        "epoch      cluster status shards\n1790360128 catalog yellow 3",
    ),
    ("curl -s localhost:9200/_cluster/health | jq -r .status", "yellow"),
    (
        "curl -s 'localhost:9200/_cat/indices?v'",
        "health status index       docs.count\nyellow open   products-v3 0",
    ),
    ("wget -qO- 'localhost:9200/_cluster/health?filter_path=status'", "Status: yellow"),
    ("curl -s 'localhost:9200/_cat/health?h=status,unassign'", "yellow 3"),
    ("curl -s localhost:9200/_cat/health | awk '{print $4}'", '"yellow"'),
    ("curl -s localhost:9200/_cluster/health?local=true", '{"status": "yellow"}'),
)
VERSIONS = (
    "npm view @acme/sdk version",
    "npm info @acme/sdk@latest --json | jq -r .version",
    "curl -s https://registry.npmjs.org/@acme%2fsdk/latest | jq -r .version",
    "pnpm view @acme/sdk version",
    "yarn info @acme/sdk version --silent",
    "npm view @acme/sdk version --prefer-online",
    "bun pm view @acme/sdk version",
)


def _ask(d: Driver, asks: list[tuple[str, str]]) -> list[str]:
    """What followed each look: "word", "pause" or ""."""
    return staged(d, [bash(command, response=answer) for command, answer in asks])


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
            "",
        ),
        (
            "NAME             READY   STATUS             RESTARTS\n"
            "api-6d9c-x2kqp   0/1     ImagePullBackOff   0",
            "imagepullbackoff",
        ),
        ("3.1.4", "3.1.4"),
        ("yellow 3 50.0%", "yellow"),
        (
            "Type       Status  Reason\n----       ------  ------\nAvailable  True    Minimum",
            "=",
        ),
        ("Running", "="),
        ("200", ""),
        ("None", ""),
        ('{"status": "healthy", "db": "up"}', "="),
        ("dist/app.js", ""),
        ("UPDATE_COMPLETE", "="),
        ("Read the state first\nthen the drained ones", ""),
        ("status: pending, " * 600, ""),
        ("Check the state of each node before the drain", ""),
        ("NAME    STATUS    AGE\n" + "\n".join(f"job-{n:<3} Pending   1m" for n in range(50)), ""),
        ("def main():\n    return state", ""),
    ],
)
def test_the_state_a_look_answers_with(text, answer):
    assert asked.said(text, "curl -s localhost:9200/_cluster/health | jq -r .status") == answer


def test_one_health_asked_through_every_endpoint_is_asked_about_then_paused():
    d = Driver()
    seen = _ask(d, list(HEALTH))
    assert seen[:4] == ["", "", "", "word"]
    assert seen[4:] == ["", "pause"]
    assert nudge_rule(d) == "same-answer"
    assert "asked 6 ways" in d.paused["reason"] and "yellow" in d.paused["reason"]


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


def test_many_other_new_results_between_end_the_run():
    d = Driver()
    _ask(d, list(HEALTH[:3]))
    for name in ("compose.yml", "reindex.py", "mapping.json", "README.md"):
        d.turn(Call("Read", {"file_path": f"/repo/{name}"}, response=f"the text of {name}"))
    assert "word" not in _ask(d, [HEALTH[3]])


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
    assert "word" not in seen and nudge_rule(d) is None


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


def test_looks_issued_together_are_one_way_of_asking():
    # Calls issued in one turn saw no answer before they were asked.
    d = Driver()
    d.turn(*(bash(command, response=answer) for command, answer in HEALTH[:5]))
    assert not d.paused and nudge_rule(d) is None


def test_an_answer_that_says_all_is_well_ends_the_run():
    d = Driver()
    _ask(d, list(HEALTH[:3]))
    d.turn(bash("curl -s 'localhost:9200/_cluster/health?level=cluster'", response="green"))
    assert "word" not in _ask(d, list(HEALTH[3:6]))


def test_a_change_between_ends_the_run():
    d = Driver()
    _ask(d, list(HEALTH[:3]))
    d.turn(bash("docker compose restart elasticsearch", response=" Container es01  Started"))
    assert "word" not in _ask(d, list(HEALTH[3:6]))


CLEARED = "npm warn using --force Recommended protections disabled.\n"


def test_a_cache_cleared_then_the_version_asked_again_is_one_more_way():
    # Clearing npm's cache rules out a stale copy; the registry gives the same version.
    d = Driver()
    asks = [(command, "3.1.4") for command in VERSIONS[:3]]
    asks[2:2] = [("npm cache clean --force", "")]
    asks.append(("npm cache clean --force && npm view @acme/sdk version", f"{CLEARED}3.1.4"))
    asks += [(command, "3.1.4") for command in VERSIONS[3:6]]
    seen = _ask(d, asks)
    assert seen.index("word") == 4  # the 4th way: the cache cleared and the version asked
    assert seen[-1] == "pause"
    assert "asked 6 ways" in d.paused["reason"]


def test_a_cache_cleared_that_brings_another_version_is_news():
    d = Driver()
    _ask(d, [(command, "3.1.4") for command in VERSIONS[:3]])
    cleared = "npm cache clean --force && npm view @acme/sdk version"
    assert _ask(d, [(cleared, f"{CLEARED}3.2.0")]) == [""]
    assert "word" not in _ask(d, [(command, "3.2.0") for command in VERSIONS[3:5]])


def test_a_cache_cleared_with_a_reinstall_is_a_change():
    d = Driver()
    _ask(d, [(command, "3.1.4") for command in VERSIONS[:3]])
    d.turn(bash("npm cache clean --force && npm install", response="added 12 packages"))
    assert "word" not in _ask(d, [(command, "3.1.4") for command in VERSIONS[3:6]])


@pytest.mark.parametrize(
    "asks",
    [
        [  # a pod's state moving on, a settled pod listed beside it every time
            (
                "kubectl get pods",
                "NAME    READY   STATUS              AGE\napi-1   0/1     " + state,
            )
            for state in ("ContainerCreating", "CrashLoopBackOff", "Error", "Pending")
        ],
        [  # another version each time: numbers with dots tell answers apart
            ("python --version", "Python 3.9.6"),
            (".venv/bin/python --version", "Python 3.12.2"),
            ("python3 --version", "Python 3.11.8"),
            ("uv run python --version", "Python 3.10.1"),
        ],
        [  # facts about one file, each echoing the path it was asked about
            ("du -h dist/app.js", "1.2M dist/app.js"),
            ("wc -c dist/app.js", "1204332 dist/app.js"),
            ("ls -la dist/app.js | cut -c1-10", "dist/app.js"),
            ("git status --short dist/app.js", "M dist/app.js"),
        ],
        [  # other commits: ids read as values a clock moves, none of them a state
            ("git rev-parse HEAD", "3f2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"),
            ("git rev-parse origin/main", "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b"),
            ("cat .deployed-sha", "1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c"),
            ("gh run view --json headSha -q .headSha", "7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f"),
        ],
    ],
    ids=["state-moved", "versions-differ", "echoed-path", "commits"],
)
def test_answers_that_differ_in_what_they_say_are_no_run(asks):
    d = Driver()
    assert "word" not in _ask(d, asks)


@pytest.mark.parametrize(
    "asks",
    [
        [  # one version read from each manifest in turn
            ("jq -r .version package.json", "3.2.0"),
            ("yq .appVersion charts/api/Chart.yaml", "3.2.0"),
            ("awk -F'\"' '/__version__/ {print $2}' src/acme/__init__.py", "3.2.0"),
            ("yq .image.tag charts/api/values.yaml", "3.2.0"),
            ("jq -r .version packages/sdk/package.json", "3.2.0"),
        ],
        [  # each job of one API path, all queued
            (f"curl -s https://ci.example.com/api/v1/jobs/{name}", '{"state": "queued"}')
            for name in ("lint", "unit", "e2e", "build", "publish")
        ],
    ],
    ids=["files", "api-resources"],
)
def test_one_answer_from_one_target_after_another_is_a_sweep(asks):
    d = Driver()
    assert "word" not in _ask(d, asks)


@pytest.mark.parametrize(
    "text",
    [
        "NAME   STATUS   AGE\nfoo    \t\nbar    Pending  1m",
        "NAME          STATUS    AGE\nweb-1         \xa0\nweb-2         Pending   1m",
        "a," * 100_000,
    ],
    ids=["tab", "nbsp", "huge"],
)
def test_odd_prints_are_read_without_failing(text):
    assert asked.said(text, "kubectl get pods") in ("", "pending")


@pytest.mark.parametrize(
    "asks",
    [
        [  # one service after another behind one gateway, all down
            (f"curl -s localhost:8080/{name}/health", '{"status":"DOWN"}')
            for name in ("orders", "payments", "inventory", "shipping", "catalog", "users")
        ],
        [  # pull request after pull request, flags varying
            ("gh pr view 412 --json state", '{"state":"MERGING"}'),
            ("gh pr view 398 --json state,files", '{"state":"MERGING"}'),
            ("gh pr view 391 -R acme/shop --json state", '{"state":"MERGING"}'),
            ("gh pr view 386 --comments --json state", '{"state":"MERGING"}'),
            ("gh pr view 380 --json state,title", '{"state":"MERGING"}'),
        ],
    ],
    ids=["gateway", "numbers"],
)
def test_the_same_state_of_one_resource_after_another_is_a_sweep(asks):
    d = Driver()
    assert "word" not in _ask(d, asks)


@pytest.mark.parametrize(
    "asks",
    [
        [  # nothing found, asked of one thing after another
            ("aws ec2 describe-addresses --query 'Addresses[0].PublicIp' --output text", "None"),
            ("aws ec2 describe-nat-gateways --query 'NatGateways[0].State' --output text", "None"),
            ("aws ec2 describe-route-tables --query 'RouteTables[0].State' --output text", "None"),
            ("aws ec2 describe-vpn-gateways --query 'VpnGateways[0].State' --output text", "None"),
        ],
        [  # a name, not a state: the commands ask for no state
            ("git branch --show-current", "main"),
            ("gh repo view --json defaultBranchRef -q .defaultBranchRef.name", "main"),
            ("git symbolic-ref refs/remotes/origin/HEAD --short | cut -d/ -f2", "main"),
            ("git config --get init.defaultBranch", "main"),
        ],
        [  # an evicted pod left from a batch job, in every listing while the api is looked into
            (
                command,
                "NAME          READY   STATUS    RESTARTS   AGE\n"
                "api-7d9f-x   1/1     Running   0          3h\n"
                "batch-1-kq   0/1     Evicted   0          2d",
            )
            for command in (
                "kubectl get pods",
                "kubectl get pods -o wide",
                "kubectl get pods --sort-by=.metadata.creationTimestamp",
                "kubectl get po -n default",
                "kubectl get pods --show-labels",
            )
        ],
    ],
    ids=["absent", "names", "listing"],
)
def test_what_is_no_state_is_never_asked_again(asks):
    d = Driver()
    assert "word" not in _ask(d, asks)


def test_a_look_elsewhere_after_the_request_to_summarise_lifts_nothing():
    # The model read a file, as asked, then asked the same question again three ways: the
    # answer cannot have moved, so the run goes on where it was and is paused.
    d = Driver()
    assert _ask(d, list(HEALTH[:4]))[-1] == "word"
    d.turn(Call("Read", {"file_path": "/repo/search/products-v3.json"}, response="replicas: 1"))
    assert _ask(d, list(HEALTH[4:6])) == ["", "pause"]


def test_asked_again_after_a_look_elsewhere_and_a_wait_the_run_starts_over():
    # Waiting for a registry or a resolver to catch up: an outside process may have moved the
    # answer meanwhile, so the looks after the wait are a new question, not the pause.
    d = Driver()
    assert _ask(d, list(HEALTH[:4]))[-1] == "word"
    d.turn(Call("Read", {"file_path": "/repo/search/products-v3.json"}, response="replicas: 1"))
    d.wait(asked.WAITED + 60)
    assert "pause" not in _ask(d, list(HEALTH[4:7]))


def test_looking_elsewhere_for_long_after_the_request_to_summarise_ends_the_run():
    d = Driver()
    assert _ask(d, list(HEALTH[:4]))[-1] == "word"
    for n in range(asked.GAP + 1):
        d.turn(Call("Read", {"file_path": f"/repo/search/{tag(n)}.json"}, response=tag(n)))
    assert "pause" not in _ask(d, list(HEALTH[4:]))


@pytest.mark.parametrize(
    ("command", "names"),
    [
        ("jq -r .version packages/sdk/package.json", ["packages/sdk/package.json"]),
        ("dig +short status.example.com", ["status.example.com"]),
        ("gh pr view 412 --json state", ["412"]),
        ("aws ec2 describe-instances --query Reservations.State.Name", []),
        ("git config --get init.defaultBranch", []),
        ("npm view @acme/sdk version", []),
        ("git show HEAD:src/app.py", []),
        ("npm view @acme/sdk dist-tags.latest", []),
    ],
)
def test_what_a_look_names_as_its_target(command, names):
    numbers = frozenset(word for word in command.split() if word.isdigit())
    kept = asked.targets(command, numbers)
    assert kept[kept.index(asked.TARGET) + 1 : kept.index(asked.ABOUT)] == names
    if ":" in command and "//" not in command:  # no address: its words as they are
        assert kept[: kept.index(asked.TARGET)] == failures.sweep_words(command)


@pytest.mark.parametrize(
    ("text", "command", "answer"),
    [
        ("main", "git branch --show-current", ""),
        ("Pending", "kubectl get pvc data -o jsonpath={.status.phase}", "pending"),
        ("3.1.4", "npm view @acme/sdk version", "3.1.4"),
        ('{"status": null}', "curl -s localhost:8080/health", ""),
    ],
)
def test_a_short_line_is_a_state_only_when_its_command_asks_for_one(text, command, answer):
    assert asked.said(text, command) == answer


def test_a_run_of_one_way_gives_way_to_another_answer():
    d = Driver()
    d.turn(bash("kubectl get job reindex -o jsonpath={.status.phase}", response="Pending"))
    assert _ask(d, list(HEALTH[:4]))[-1] == "word"


RECORD = (
    ("dig +short status.example.com", "status-legacy.example.net.\n203.0.113.40"),
    ("dig @8.8.8.8 +short status.example.com CNAME", "status-legacy.example.net."),
    (
        "nslookup -type=CNAME status.example.com 1.1.1.1",
        "Server:\t\t1.1.1.1\nAddress:\t1.1.1.1#53\n\nNon-authoritative answer:\n"
        "status.example.com\tcanonical name = status-legacy.example.net.",
    ),
    (
        "host -t CNAME status.example.com",
        "status.example.com is an alias for status-legacy.example.net.",
    ),
    ("kdig @1.1.1.1 +https +short status.example.com CNAME", "status-legacy.example.net."),
    (
        "getent hosts status.example.com",
        "203.0.113.40    status-legacy.example.net status.example.com",
    ),
    (
        "dig status.example.com +noall +answer",
        "status.example.com. 300 IN CNAME status-legacy.example.net.",
    ),
)
EXPIRY = (
    (
        "openssl s_client -connect api.example.com:443 </dev/null | openssl x509 -noout -enddate",
        "notAfter=Jun 14 05:12:43 2026 GMT",
    ),
    (
        "kubectl get secret api-tls -o jsonpath='{.data.crt}' | base64 -d | openssl x509 -dates",
        "notBefore=Mar 16 05:12:44 2026 GMT\nnotAfter=Jun 14 05:12:43 2026 GMT",
    ),
    (
        "curl -vsI https://api.example.com 2>&1 | grep -E 'start date|expire date'",
        "*  start date: Mar 16 05:12:44 2026 GMT\n*  expire date: Jun 14 05:12:43 2026 GMT",
    ),
    (
        "kubectl get certificate api-tls -n edge -o jsonpath='{.status.notAfter}'",
        "2026-06-14T05:12:43Z",
    ),
)


@pytest.mark.parametrize(
    ("text", "command", "answer"),
    [
        (
            "status-legacy.example.net.\n203.0.113.40",
            "dig +short status.example.com",
            "203.0.113.40 status-legacy.example.net",
        ),
        (
            "notAfter=Jun 14 05:12:43 2026 GMT",
            "openssl x509 -noout -enddate",
            "2026-06-14t05:12:43",
        ),
        (
            "Not After: 2026-06-14T05:12:43.120Z",
            "cmctl status certificate api-tls",
            "2026-06-14t05:12:43",
        ),
        (
            "invoices.dead\t211\t0\ninvoices.retry\t18432\t0",
            "rabbitmqctl list_queues name messages",
            "18432",
        ),
        (
            "{ latest: '4.1.3', next: '4.2.0-rc.2' }",
            "npm view @acme/ui-tokens dist-tags",
            "4.1.3 4.2.0-rc.2",
        ),
        ("v1.27.3", "kubectl version --client -o json | jq -r .clientVersion.gitVersion", "1.27.3"),
        ("edge.example.net.", "dig +short edge.example.net A", ""),  # the question's own value
        (
            "2026-08-06 07:07:29,120 INFO worker ready",
            "tail -n 1 logs/worker.log",
            "",
        ),  # when, not what
        (
            "api-7b5f-4hcmz   1/1   412d",
            "kubectl get pods --no-headers",
            "",
        ),  # a name, a ratio, an age
        ("Duration: 2.3ms\n42 rows", "psql -c 'select 1'", ""),
        ("worker.log ready\n" * 20 + "build 18432 done", "cat build.log", f"{asked.SHOWN} 18432"),
    ],
)
def test_the_values_a_short_print_answers_with(text, command, answer):
    assert asked.said(text, command) == answer


def test_one_record_resolved_through_every_client_is_asked_about_then_paused():
    # A record that never changed (the merge was not applied) asked of every resolver and
    # client: the answer is known at the 4th.
    d = Driver()
    seen = _ask(
        d, [*RECORD, ("dig @9.9.9.9 status.example.com CNAME +short", "status-legacy.example.net.")]
    )
    assert seen == ["", "", "", "word", "", "pause"]
    assert "status-legacy.example.net" in d.paused["reason"]


def test_one_date_read_every_way_and_spelling_is_one_answer():
    d = Driver()
    assert _ask(d, list(EXPIRY)) == ["", "", "", "word"]


def test_a_long_print_that_shows_the_answer_again_leaves_the_run_as_it_is():
    # `kubectl describe` says Ready, and shows the same expiry among its many lines: no news
    # about what was asked, so neither an end nor one of the other results.
    d = Driver()
    describe = (
        "Status:\n  Conditions:\n    Status: True\n" + "  Not After: 2026-06-14T05:12:43Z\n" * 9
    )
    asks = [*EXPIRY[:3], ("kubectl describe certificate api-tls -n edge", describe), EXPIRY[3]]
    assert _ask(d, asks)[-1] == "word"


def test_a_look_filtered_through_grep_answers_as_the_look():
    d = Driver()
    depth = "invoices.retry\t18432\t0"
    asks = [
        ("rabbitmqctl list_queues -p billing name messages | grep invoices", depth),
        (
            "rabbitmqadmin -V billing list queues name messages | grep retry",
            "| invoices.retry | 18432 |",
        ),
        (
            "curl -s https://mq.internal:15671/api/queues/billing/invoices.retry | jq .messages",
            "18432",
        ),
        ("rabbitmqctl list_queues -p billing name messages_ready | grep '^invoices.retry'", depth),
    ]
    assert _ask(d, asks)[-1] == "word"


@pytest.mark.parametrize(
    "asks",
    [
        pytest.param(  # propagation: resolvers answer old and new until it is done
            [
                (
                    "dig +short MX corp.example.com @ns1.dns.example.net",
                    "10 mx1.mailhost.example.net.",
                ),
                (
                    "dig MX corp.example.com @8.8.8.8 +noall +answer",
                    "corp.example.com. 300 IN MX 10 mx1.mailhost.example.net.",
                ),
                (
                    "dig MX corp.example.com @1.1.1.1 +noall +answer",
                    "corp.example.com. 184 IN MX 10 mail-old.corp.example.com.",
                ),
                (
                    "dig MX corp.example.com @9.9.9.9 +noall +answer",
                    "corp.example.com. 71 IN MX 10 mail-old.corp.example.com.",
                ),
                (
                    "host -t MX corp.example.com 208.67.222.222",
                    "corp.example.com mail is handled by 10 mx1.mailhost.example.net.",
                ),
            ],
            id="propagation",
        ),
        pytest.param(  # one release, region after region
            [
                (
                    f"curl -s https://api.{region}.example.com/healthz | jq -c .",
                    '{"version":"2026.05.2"}',
                )
                for region in ("us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "sa-east-1")
            ],
            id="regions",
        ),
        pytest.param(  # each log tail has the same shape, but its lines are new
            [
                (
                    f"tail -n {n} logs/worker.log",
                    f"2026-08-06 07:0{n}:29,120 INFO batch {n}0{n} done",
                )
                for n in range(2, 7)
            ],
            id="log",
        ),
    ],
)
def test_values_that_move_or_belong_to_other_targets_are_no_run(asks):
    assert "word" not in _ask(Driver(), asks)


@pytest.mark.parametrize(
    ("text", "command", "answer"),
    [
        ("3f9a2c1 Fix retry backoff\n8e01b7d Add idempotency key", "git log --oneline -2", ""),
        (" M vite.config.ts\n?? src/plugins/", "git status --short", ""),
        (
            "HTTP/2 200\ndate: Sat, 14 Jun 2026 05:12:43 GMT",
            "curl -sI https://shop.example.com",
            "2026-06-14t05:12:43",
        ),
        ("48213 48190 12:03 node vite", "ps -o pid,ppid,etime,args -C node", "48190 48213"),
        (
            "api   ghcr.io/acme/api:2026.06.2   true",
            "kubectl get deploy api -o wide",
            "ghcr.io/acme/api:2026.06.2",
        ),
        (
            "10.0.3.17 - - 502 1.2.3.4 10.0.3.18",
            "tail -n 1 access.log",
            f"{asked.SHOWN} 1.2.3.4 10.0.3.17 10.0.3.18",
        ),
    ],
)
def test_ids_files_codes_and_times_are_no_values(text, command, answer):
    # A commit, a file, a status code and a time of day are no answer to a question; a print
    # showing more than two values is a listing or a log to read.
    assert asked.said(text, command) == answer


# A release's version read from every side.
RELEASE_LOOKS = [
    ("curl -s https://api.example.com/meta | jq -r .build", "2026.06.3"),
    ("helm list -n prod -f '^api$' -o json | jq -r '.[0].app_version'", "2026.06.3"),
    ("curl -s https://app.example.com/asset-manifest.json | jq -r .release", "2026.06.3"),
    ("kubectl get deploy api -o jsonpath='{.metadata.labels.release}'", "2026.06.3"),
    ("gh release view --json tagName --jq .tagName", "2026.06.3"),
]


def test_a_release_read_from_every_side_after_the_change_that_set_it_is_a_check():
    d = Driver()
    d.turn(bash("helm upgrade api charts/api --set image.tag=2026.06.3", response="upgraded"))
    assert "word" not in _ask(d, RELEASE_LOOKS)


def test_a_release_set_by_a_change_moved_to_the_background_is_still_what_its_looks_check():
    # The upgrade outlives its timeout, ends in the background, then is checked from every
    # side: its end is news, and the value it set is still expected.
    d = Driver()
    command = "helm upgrade api charts/api --atomic --set image.tag=2026.06.3"
    moved = {"stdout": "", "stderr": "", "backgroundTaskId": "b1"}
    d.turn(Call("Bash", {"command": command}, response=moved))
    done = {"task": {"task_id": "b1", "status": "completed"}, "output": "upgraded"}
    d.turn(Call("TaskOutput", {"task_id": "b1"}, response=done))
    assert "word" not in _ask(d, RELEASE_LOOKS)


def test_an_old_image_asked_every_way_is_asked_about():
    d = Driver()
    image = "ghcr.io/acme/api:2026.06.2"
    asks = [
        ("kubectl get deploy api -o jsonpath='{..image}'", image),
        ("kubectl describe deploy api | grep Image:", f"    Image:        {image}"),
        ("helm get values api | grep -A1 image", f"image: {image}"),
        ("kubectl get pods -l app=api -o jsonpath='{.items[0].spec.containers[0].image}'", image),
    ]
    assert _ask(d, asks) == ["", "", "", "word"]


def test_a_version_read_every_way_after_the_edit_that_set_it_is_a_check():
    d = Driver()
    d.turn(edit("/repo/package.json", '"version": "4.1.3"', '"version": "4.2.0"'))
    asks = [
        ("jq -r .version package.json", "4.2.0"),
        ("sed -n 3p package.json", '  "version": "4.2.0",'),
        ("awk -F'\"' '/version/ {print $4}' package.json", "4.2.0"),
        ("head -5 package.json | grep version", '  "version": "4.2.0",'),
    ]
    assert "word" not in _ask(d, asks)


@pytest.mark.parametrize(
    "text",
    ["ready 10/12 replicas", "load 0.52 2.5", "step build.stage.12 done", "0/1 pods"],
)
def test_ratios_measures_and_numbered_names_are_no_values(text):
    assert asked.said(text, "kubectl get deploy api") == ""


def test_a_value_only_some_answers_give_does_not_carry_the_run():
    # The run keeps what every answer shared: after `legacy` alone, an answer with only the
    # address asks something else.
    d = Driver()
    asks = [
        ("dig +short status.example.com", "status-legacy.example.net.\n203.0.113.40"),
        ("dig +short status.example.com CNAME", "status-legacy.example.net."),
        ("dig +short status.example.com A @1.1.1.1", "203.0.113.40"),
        (
            "host -t CNAME status.example.com",
            "status.example.com is an alias for status-legacy.example.net.",
        ),
    ]
    assert "word" not in _ask(d, asks)


def test_a_listing_seen_before_does_not_come_between():
    # A long print already seen is no news: asked again, it is neither one of the run's ways
    # nor another result, after the request to summarise too.
    d = Driver()
    listing = "\n".join(f"svc-{n} 10.0.0.{n} 2026.06.{n}" for n in range(12))
    d.turn(bash("kubectl get svc -A", response=listing))
    assert _ask(d, list(EXPIRY)) == ["", "", "", "word"]
    d.turn(bash("kubectl get svc -A -o wide", response=listing))
    more = [
        (
            "step certificate inspect https://api.example.com --format json | jq -r .validity.end",
            "2026-06-14T05:12:43Z",
        ),
        ("cmctl status certificate api-tls | grep 'Not After'", "Not After: 2026-06-14T05:12:43Z"),
        (
            "kubectl get certificate api-tls -o custom-columns=END:.status.notAfter --no-headers",
            "2026-06-14T05:12:43Z",
        ),
    ]
    assert _ask(d, more)[-1] == "pause"


@pytest.mark.parametrize(
    "text",
    [
        "Copyright 2026 Acme",  # a year
        "2026-06-13,129,paid\n2026-06-13,459,paid",  # a day on every row
        "src/app/api.py:88: session = None",  # a file and its line
        "14:USER app",  # a line number and its text
        "8f3a2c1 2026-06-13 17:42:10 +0200 refactor session",  # a commit's line
        "drwxr-xr-x 3 dev dev 96 Jun 14 05:12 app.settings.py",  # a file
        "Ubuntu 24.04 87.51%",  # measures
    ],
)
def test_years_days_lines_and_commits_are_no_values(text):
    assert asked.said(text, "cat notes") == ""


def test_one_value_met_by_questions_about_different_things_is_no_run():
    # The uid of the user, of a folder, of the image and of the shell: one number, four
    # questions.
    asks = [
        ("id -u", "1000"),
        ("stat -c %u data/uploads", "1000"),
        ("docker inspect api --format '{{.Config.User}}'", "1000"),
        ("echo $UID", "1000"),
    ]
    assert "word" not in _ask(Driver(), asks)


def test_one_setting_read_service_after_service_is_a_sweep():
    host = "pg-main.prod.internal"
    asks = [
        ("kubectl get configmap api-config -n prod -o jsonpath='{.data.DB_HOST}'", host),
        ("kubectl get secret worker-env -n prod -o jsonpath='{.data.DB_HOST}' | base64 -d", host),
        ("helm get values billing -n prod | grep -i dbhost", f"  dbHost: {host}"),
        ("cat deploy/cron/values.yaml | grep -iA1 database", f"database:\n  host: {host}"),
        ("kubectl get deploy reports -n prod -o jsonpath='{..env[0].value}'", f"postgres://{host}"),
    ]
    assert "word" not in _ask(Driver(), asks)


def test_what_an_edit_set_stays_expected_through_the_changes_after_it():
    d = Driver()
    d.turn(edit("/repo/deploy/values-prod.yaml", "tag: 2026.06.2", "tag: 2026.06.3"))
    d.turn(bash("git commit -qam 'Bump the api' && git push -q", response=""))
    d.turn(bash("helm upgrade api charts/api -f deploy/values-prod.yaml", response="upgraded"))
    asks = [
        ("curl -s https://api.example.com/meta | jq -r .build", "2026.06.3"),
        ("helm list -f '^api$' -o json | jq -r '.[0].app_version'", "2026.06.3"),
        ("kubectl get deploy api -o jsonpath='{.metadata.labels.release}'", "2026.06.3"),
        ("curl -s https://api.example.com/version", "2026.06.3"),
    ]
    assert "word" not in _ask(d, asks)


def test_a_look_asking_about_what_an_earlier_way_asked_about_joins_the_run():
    # The file's version, the registry's through npm and through curl, then the file again:
    # the last asks about nothing the curl asked about, but about what the first two did.
    asks = [
        ("jq -r .version packages/acme-sdk/package.json", "4.2.0"),
        ("npm view acme-sdk version", "4.2.0"),
        ("curl -s https://npm.internal/latest | jq -r .version", "4.2.0"),
        ("sed -n 3p packages/acme-sdk/package.json", '  "version": "4.2.0",'),
    ]
    assert _ask(Driver(), asks) == ["", "", "", "word"]


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ('["10.0.1.23:8080","2.31"]', f"{asked.SHOWN} 10.0.1.23:8080"),  # a measure and its series
        ("api  Active  3min ago  1983Mi  2Gi  412.3mb", ""),  # quantities with their units
        ('{"containerPort":8080}', "8080"),  # compact JSON reads as pretty JSON does
        ('{\n  "containerPort": 8080\n}', "8080"),
    ],
)
def test_measures_and_quantities_are_no_answer(text, answer):
    assert asked.said(text, "curl -s localhost:9090/api/v1/query") == answer


@pytest.mark.parametrize(
    ("command", "about"),
    [
        ("grep -n DB_HOST .env", ["host", "env"]),  # grep's -n takes no value
        ("git grep -n TODO", ["todo"]),  # nor does a subcommand's
        ("docker logs -f api", ["api"]),
        ("git -C services/api log --oneline -3", ["services", "api"]),
        ("kubectl get pods -l app=api -n prod -o wide", ["pods", "app", "api"]),
        (
            "aws ec2 describe-security-groups --group-ids sg-0ab12 --query 'SecurityGroups[0]'",
            ["0ab12"],
        ),
        ("gcloud compute instances describe web-1 --zone us-east1-b --format json", ["web"]),
    ],
)
def test_what_a_look_asks_about(command, about):
    kept = asked.targets(command, frozenset())
    assert kept[kept.index(asked.ABOUT) + 1 :] == about


def test_a_run_started_by_a_look_asking_about_nothing_grows():
    asks = [
        ("python3 --version", "Python 3.9.6"),
        (".venv/bin/python --version", "Python 3.9.6"),
        ("head -3 .venv/pyvenv.cfg | grep version", "version = 3.9.6"),
        ("cat .python-version", "3.9.6"),
    ]
    assert _ask(Driver(), asks)[-1] == "word"


def test_what_a_change_reported_is_checked_from_every_side():
    d = Driver()
    d.turn(
        bash(
            "curl -s -XPOST 'localhost:9200/_reindex' -d @reindex.json", response='{"total":184320}'
        )
    )
    asks = [
        ("curl -s 'localhost:9200/products-v3/_count' | jq .count", "184320"),
        ("curl -s 'localhost:9200/_cat/count/products-v3?h=count'", "184320"),
        ("curl -s 'localhost:9200/products-v3/_search?size=0' | jq .hits.total.value", "184320"),
        ("curl -s 'localhost:9200/_cat/indices/products-v3?h=docs.count'", "184320"),
    ]
    assert "word" not in _ask(d, asks)


@pytest.mark.parametrize(
    "text",
    ["²³⁴⁵ ¹⁴", "jun ¹⁴ 05:12:43 2026", "x" * 70 + ".example.net", "\t\u00a0", ""],
)
def test_odd_values_are_read_without_failing(text):
    assert isinstance(asked.said(text, "dig +short x"), str)


def test_a_table_whose_first_cell_is_empty_keeps_its_columns():
    text = "NAME    TYPE    STATUS    AGE\n        svc     Pending   1m"
    assert asked.said(text, "kubectl get pvc") == "pending"


def test_a_value_too_long_to_keep_starts_no_run():
    host = "x" * 49 + ".example.net"  # a value, longer than an answer keeps
    asks = [(f"dig +short cname-{n}.example.com", f"{host}.") for n in range(3)]
    d = Driver()
    _ask(d, asks)
    assert StateFile.view(d.state).guard.tracks["main"].stuck.asked is None


def test_what_an_edit_left_as_it_was_is_not_expected():
    d = Driver()
    d.turn(
        edit(
            "/repo/values.yaml",
            "tag: 2026.06.2\nreplicas: 18432",
            "tag: 2026.06.3\nreplicas: 18432",
        )
    )
    assert StateFile.view(d.state).guard.tracks["main"].stuck.expected == "2026.06.3"


def test_the_users_words_clear_what_was_expected():
    d = Driver()
    d.turn(edit("/repo/values.yaml", "tag: 2026.06.2", "tag: 2026.06.3"))
    d.turn(
        Call(
            "AskUserQuestion",
            {"questions": []},
            response='User has answered your questions: "roll back"',
        )
    )
    assert StateFile.view(d.state).guard.tracks["main"].stuck.expected == ""


def test_a_value_too_long_to_keep_leaves_the_others_kept():
    d = Driver()
    d.turn(bash("dig +short www.acme.io", response=f"{'a' * 49}.example.net.\nb.example.net."))
    run = StateFile.view(d.state).guard.tracks["main"].stuck.asked
    assert run is not None and run.answer == "b.example.net"
