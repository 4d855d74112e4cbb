"""One cause outside the code, met by every tool in its own words, is one failure; and every
attempt at it counts.

A full disk, a server out of reach or a rejected credential fails whatever runs into it. The
tools word it each their own way, so no line is shared, but the cause is one: attempts that
meet it again, with nothing that could move it in between, are counted as one failure. A
command that acts and then waits (`helm upgrade --wait`) and fails is such an attempt too, not
a poll, and a wait that times out between attempts is no progress. An attempt the repeat guard
refuses is one more attempt at the failure its command gave."""

from __future__ import annotations

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import edit
from testing.guard_driver import fail
from testing.guard_driver import tag

from arcguard.core.loop_guard import known_causes
from arcguard.core.schema import StateFile
from arcguard.core.tool_call import ToolCall


DISK_FULL = (
    fail(
        "make dist",
        "cc -O2 -c src/lz_alloc.c -o build/lz_alloc.o\n"
        "/usr/lib/gcc/x86_64-linux-gnu/13/cc1: fatal error: error writing to /tmp/ccx1.s: "
        "No space left on device\ncompilation terminated.\nmake: *** [Makefile:47] Error 1",
    ),
    fail(
        "go build ./cmd/lzctl",
        "go: creating work dir: mkdir /tmp/go-build26: no space left on device",
    ),
    fail(
        "./scripts/mkdist.sh 1.8.0",
        "==> staging\nsort: cannot create temporary file in '/tmp': No space left on device",
    ),
    fail(
        "python3 scripts/gen_checksums.py dist/",
        'Traceback (most recent call last):\n  File "gen.py", line 19, in main\n'
        "OSError: [Errno 28] No space left on device: '/tmp/tmpa1'",
    ),
    fail(
        "git worktree add /tmp/release v1.8.0",
        "Preparing worktree (detached HEAD cf5c64b)\n"
        "fatal: could not create work tree dir '/tmp/release': No space left on device",
    ),
)
HOST = "4F1C2A9E7B.gr7.eu-west-1.eks.amazonaws.com"
UNREACHABLE = (
    fail(
        "helm upgrade --install worker charts/worker -n jobs",
        f'Error: Kubernetes cluster unreachable: Get "https://{HOST}/version": '
        "dial tcp 10.42.51.203:443: i/o timeout",
    ),
    fail(
        "kubectl get ns jobs",
        f"E0924 memcache.go:265] couldn't get current server API group list: Get \"https://{HOST}"
        '/api?timeout=32s": dial tcp 10.42.18.77:443: i/o timeout',
    ),
    fail("curl -sk --max-time 10 https://{HOST}/healthz", "curl: (28) Connection timed out"),
    fail(
        "kubectl --request-timeout=60s get pods -n jobs",
        "Unable to connect to the server: net/http: request canceled while waiting for "
        "connection (Client.Timeout exceeded while awaiting headers)",
    ),
)
ROLE = "arn:aws:sts::210987654321:assumed-role/deployer/ci"
NAMESPACES = ("default", "kube-system", "monitoring", "payments", "ingress-nginx", "argocd")
REFUSED = (
    fail(
        "aws s3 cp build/site s3://docs-prod/site/ --recursive",
        "upload failed: build/site/index.html to s3://docs-prod/site/index.html An error occurred "
        f"(AccessDenied) when calling the PutObject operation: User: {ROLE} is not authorized "
        'to perform: s3:PutObject on resource: "arn:aws:s3:::docs-prod/site/index.html"',
    ),
    fail(
        "aws s3api put-object --bucket docs-prod --key site/index.html --body site/index.html",
        "\nAn error occurred (AccessDenied) when calling the PutObject operation: Access Denied",
    ),
    fail(
        "kubectl -n docs rollout restart deploy/docs-web",
        'Error from server (Forbidden): deployments.apps "docs-web" is forbidden: User '
        '"ci@example.com" cannot patch resource "deployments" in API group "apps"',
    ),
    fail(
        "gcloud storage cp build/site/index.html gs://docs-prod/site/",
        "ERROR: (gcloud.storage.cp) PERMISSION_DENIED: The caller does not have permission",
    ),
)


def _first_word(d: Driver, *calls: Call) -> int:
    """Run each call as a turn of its own; the number of the first turn with a check-in."""
    first = 0
    for call in calls:
        if d.turn(call)["context"] and not first:
            first = d.turns
    return first


def test_a_full_disk_met_by_each_tool_in_its_own_words_is_one_failure():
    d = Driver()
    assert _first_word(d, DISK_FULL[0], bash("df -h ."), *DISK_FULL[1:4]) == 5
    d = Driver()
    for call in (*DISK_FULL, *DISK_FULL[:2]):
        d.turn(call)
    assert d.paused is not None


def test_an_access_the_platform_refuses_met_by_each_client_is_one_failure():
    d = Driver()
    assert _first_word(d, REFUSED[0], bash("aws sts get-caller-identity"), *REFUSED[1:]) == 5
    d = Driver()
    for call in (*REFUSED, *REFUSED[:3]):
        d.turn(call)
    assert d.paused is not None


def test_a_refusal_met_through_calls_naming_other_numbers_is_still_one_failure():
    # A dated path, then a key's account number: other numbers, the same refusal. A host out
    # of reach on another port is another target, which may answer.
    key = "--sse-kms-key-id arn:aws:kms:eu-west-1:210987654321:key/0b7e4a21"
    refusal = REFUSED[1].error
    calls = [
        fail("aws s3 cp out/ s3://ml-prod/2026-04-18/ --recursive", REFUSED[0].error),
        *(fail(f"aws s3 cp out/m.json s3://ml-prod/2026-04-18/ {key} {o}", refusal) for o in "ab"),
        fail(f"aws s3api put-object --bucket ml-prod --key 2026-04-18/m.json {key}", refusal),
    ]
    assert _first_word(Driver(), *calls) == 4
    unreachable = "curl: (28) Failed to connect to 10.1.2.3 port {}: Connection timed out"
    calls = [fail(f"curl -s 10.1.2.3:{port}/", unreachable.format(port)) for port in range(81, 86)]
    assert _first_word(Driver(), *calls) == 0


def test_a_version_the_registry_already_holds_is_one_failure_however_the_publish_is_spelt():
    taken = (
        "npm notice Publishing to https://registry.npmjs.org/ with tag {} and {} access\n"
        "npm error code E403\nnpm error 403 403 Forbidden - PUT https://registry.npmjs.org/cronx"
        " - You cannot publish over the previously published versions: 2.4.1."
    )
    publishes = [
        fail("npm publish", taken.format("latest", "default")),
        fail("npm publish --access public", taken.format("latest", "public")),
        fail("npm publish --tag next", taken.format("next", "default")),
        fail("npm cache clean --force && npm publish", taken.format("latest", "default")),
    ]
    looks = [bash("npm whoami"), bash("git log --oneline -3"), bash("ls dist")]
    calls = [publishes[0]]
    for look, publish in zip(looks, publishes[1:], strict=True):
        calls += [look, publish]
    assert _first_word(Driver(), *calls) == 7
    assert known_causes.named("See https://pypi.org/help/#file-name-reuse", refused=True)
    # The version bumped by a command between each, each refused in turn: the manifest it
    # wrote ends the one cause.
    bumped = []
    for n, tag_name in enumerate(("latest", "next", "beta", "rc")):
        bumped += [
            bash("npm version patch", response=f"v2.4.{n + 2}"),
            fail(
                f"npm publish --tag {tag_name}",
                taken.format(tag_name, "default").replace("2.4.1", f"2.4.{n + 1}"),
            ),
        ]
    assert _first_word(Driver(), *bumped) == 0


def test_a_push_the_remote_refuses_is_one_failure_however_it_is_spelt():
    protected = "remote: error: GH006: Protected branch update failed for refs/heads/{}."
    pushes = [
        fail("git push", protected.format("main")),
        fail("git push --force-with-lease origin main", protected.format("main")),
        fail(
            "git push origin HEAD:main",
            "remote: Permission to acme/web.git denied to deploy-bot.\n"
            "fatal: unable to access 'https://github.com/acme/web.git/': "
            "The requested URL returned error: 403",
        ),
        fail("git push --no-verify origin main", protected.format("main")),
    ]
    assert _first_word(Driver(), *pushes) == 4


RULESET = (
    "remote: error: GH013: Repository rule violations found for refs/heads/main.\n"
    "remote: - Changes must be made through a pull request.\n"
    "To github.com:acme/ledger.git\n"
    " ! [remote rejected] {ref} -> main (push declined due to repository rule violations)\n"
    "error: failed to push some refs to 'github.com:acme/ledger.git'"
)


def test_a_branch_the_repository_s_rules_close_is_one_refusal_through_every_way_in():
    # A pull that moved nothing writes nothing; the API words the refusal its own way; a
    # filter after the last call hides its status, not the refusal it prints.
    pushes = [
        fail("git push origin main", RULESET.format(ref="main")),
        bash(
            "git pull --rebase origin main",
            "From github.com:acme/ledger\n * branch main -> FETCH_HEAD\n"
            "Current branch main is up to date.",
        ),
        fail("git push origin HEAD:main", RULESET.format(ref="HEAD")),
        fail(
            "gh api -X PATCH repos/acme/ledger/git/refs/heads/main -f sha=4b7e91c",
            '{\n  "message": "Repository rule violations found",\n  "status": "422"\n}\n'
            "gh: Repository rule violations found (HTTP 422)",
        ),
        bash(
            "gh api -X PUT repos/acme/ledger/contents/uv.lock -f branch=main 2>&1 | tail -3",
            '  "status": "409"\n}\ngh: Repository rule violations found (HTTP 409)',
        ),
    ]
    assert _first_word(Driver(), *pushes) == 5


PUSH_PROTECTION = """remote: error: GH013: Repository rule violations found for refs/heads/sso.
remote:
remote: - GITHUB PUSH PROTECTION
remote:   ------------------------------------------
remote:     Resolve the following violations before pushing again
remote:
remote:     - Push cannot contain secrets
remote:
remote:      (?) Learn how to resolve a blocked push
remote:      https://docs.github.com/code-security/secret-scanning/resolving-a-blocked-push
remote:
remote:       -- Identity Provider API Token ---------------------
remote:        locations:
remote:          - commit: 4be17c0d9a2f6e3b18c5d7a0f2e9b4c6d8a1e3f5
remote:            path: config/idp.dev.yml:7
remote:
remote:        (?) To push, remove secret from commit(s) or follow this URL to allow the secret.
remote:        https://github.com/acme/helpdesk/security/secret-scanning/unblock-secret/2tQxR8mK
remote:
To github.com:acme/helpdesk.git
 ! [remote rejected] sso -> sso (push declined due to repository rule violations)
error: failed to push some refs to 'github.com:acme/helpdesk.git'"""


def test_an_act_that_answered_and_quotes_a_refusal_is_no_refusal_again():
    # A refused call, then reads the client counts as acts (`aws logs`), each quoting the
    # refusal from the function's log: looks at the failure, not attempts at it.
    denied = "An error occurred (AccessDenied) when calling the PutObject operation"
    logs = "aws logs filter-log-events --log-group-name /aws/lambda/{} --filter-pattern Denied"
    calls = [fail("aws lambda invoke --function-name ingest out.json", f"{denied}: Access Denied")]
    calls += [
        bash(logs.format(fn), f"START RequestId: 1f2e\n[ERROR] ClientError: {denied}\nEND")
        for fn in ("ingest", "ingest-eu", "normalize", "archive", "export", "report")
    ]
    assert _first_word(Driver(), *calls) == 0


def _protected_push(objects: int) -> str:
    return (
        f"Enumerating objects: {objects}, done.\n"
        f"Counting objects: 100% ({objects}/{objects}), done.\n"
        "Writing objects: 100% (52/52), 12.15 KiB | 9.63 MiB/s, done.\n"
        "remote: Resolving deltas: 100% (29/29), completed with 14 local objects.\n"
    ) + PUSH_PROTECTION


def _lines(*wanted: str) -> str:
    return "\n".join(
        line for line in PUSH_PROTECTION.splitlines() if any(w in line for w in wanted)
    )


def _secret_in_history() -> list[Call]:
    """A secret deep in a branch's history: each rewrite of the tip leaves it there."""
    return [
        bash("git log --oneline main..HEAD", "e91a7d2 sso: wire the callback"),
        fail("git push -u origin sso", _protected_push(63)),
        Call("Read", {"file_path": "config/idp.dev.yml"}, response="apiToken: 00xyz"),
        edit("config/idp.dev.yml", "apiToken: 00xyz", "apiToken: ${IDP_API_TOKEN}"),
        fail(
            "git commit -qam 'token from env' && git push -u origin sso 2>&1 | tail -19",
            "[sso 1a6f0e3] token from env\n 1 file changed, 1 insertion(+), 1 deletion(-)\n"
            + "\n".join(PUSH_PROTECTION.splitlines()[-17:]),
        ),
        bash("git reset --soft HEAD~1 && git commit -q --amend --no-edit", "[sso 8c3d5a1] sso"),
        bash(
            "git push -u origin sso 2>&1 | grep -E 'commit:|path:|rejected'",
            _lines("commit:", "path:", "rejected"),
        ),
        bash(
            "git rm -q --cached config/idp.dev.yml && echo config/idp.dev.yml >> .gitignore"
            " && git commit -qam untrack && git log --oneline -1",
            "5d71c4a (HEAD -> sso) sso: untrack the dev config",
        ),
        fail("git push -u origin sso", _protected_push(89)),
        bash("git reset --soft HEAD~2 && git commit -qm 'sso' && git log --oneline -1", "f04b6e2"),
        fail(
            "git push --force-with-lease -u origin sso 2>&1 | grep -E 'GH013|commit:|rejected'",
            _lines("GH013", "commit:", "rejected", "failed to push"),
        ),
    ]


def test_a_refusal_read_through_a_filter_leaves_the_count_of_attempts_as_it_was():
    # The push through `grep` shows the refusal without the program's status: it neither
    # counts for the fixes tried nor starts their count again.
    assert _first_word(Driver(), *_secret_in_history()) == 11


def test_a_refusal_is_the_platform_s_only_where_its_client_acted():
    forbidden = (
        'Error from server (Forbidden): pods is forbidden: User "dev@example.com" cannot list '
        'resource "pods" in API group "" in the namespace "{}"'
    )
    # A look refused namespace after namespace is a finding each time.
    looks = [fail(f"kubectl get pods -n {ns}", forbidden.format(ns)) for ns in NAMESPACES]
    assert _first_word(Driver(), *looks) == 0
    # Tests of the code under work print its own refusals, from one test or another.
    moto = "E   botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling"
    tests = [fail(f"pytest -q tests/test_{name}.py", moto) for name in NAMESPACES]
    assert _first_word(Driver(), *tests) == 0
    acts = [
        known_causes.acts_on_platform(ToolCall(name=c.name, input=c.input))
        for c in (REFUSED[2], looks[0], tests[0])
    ]
    assert acts == [True, False, False]


def test_different_causes_outside_the_code_are_different_failures():
    d = Driver()
    calls = (
        DISK_FULL[0],
        UNREACHABLE[0],
        fail("psql -h db -c 'select 1'", "psql: error: connection refused"),
        fail("gh api repos/acme/x", "gh: Bad credentials (HTTP 401 Unauthorized)"),
        DISK_FULL[1],
        UNREACHABLE[1],
    )
    assert _first_word(d, *calls) == 0


def test_an_edit_to_new_content_starts_the_count_again():
    d = Driver()
    d.turn(UNREACHABLE[0])
    d.turn(UNREACHABLE[1])
    path, old, new = "/p/values.yaml", "host: a", "host: b"
    response = {"filePath": path, "structuredPatch": [{"lines": [f"-{old}", f"+{new}"]}]}
    d.turn(
        Call("Edit", {"file_path": path, "old_string": old, "new_string": new}, response=response)
    )
    assert _first_word(d, UNREACHABLE[2], UNREACHABLE[3]) == 0


def test_a_failure_read_as_another_is_that_failure_when_seen_again_word_for_word():
    missing = 'FATAL:  database "orders_test" does not exist'
    psql = fail("psql -d orders_test -c 'select 1'", f"psql: error: connection failed: {missing}")
    python = fail(
        "python manage.py test orders",
        "psycopg2.OperationalError: connection to server at localhost (127.0.0.1), port 5432 "
        f"failed: {missing}",
    )
    d = Driver()
    d.turn(psql)
    d.turn(python)  # another program giving the same cause: the same failure
    # A change answering something new: another program's failure alone would not be joined
    # after it, but the same program failing word for word shows it moved nothing.
    d.turn(bash("sudo systemctl reload postgresql", "reloaded postgresql.service"))
    assert _first_word(d, python, psql) == 5


def test_an_act_that_waits_and_fails_is_an_attempt_not_a_poll():
    upgrade = "helm upgrade api ./chart -n api --set image.tag=v2.4.0 --wait --timeout {}"
    d = Driver()
    for n, timeout in enumerate(("3m", "5m", "8m", "9m30s"), start=1):
        out = d.turn(fail(upgrade.format(timeout), "Error: UPGRADE FAILED: timed out"))
        assert bool(out["context"]) == (n == 4)


def test_a_wait_that_times_out_between_attempts_is_no_progress():
    upgrade = "helm upgrade api ./chart -n api --wait --timeout {}"
    failed = "Error: UPGRADE FAILED: timed out"
    status = fail("kubectl rollout status deploy/api --timeout=5m", "error: timed out waiting")
    attempts = [fail(upgrade.format(t), failed) for t in ("3m", "5m", "8m", "9m")]
    assert _first_word(Driver(), attempts[0], status, *attempts[1:]) == 5


def test_a_rejected_credential_retried_after_waits_and_a_diagnosis_is_asked_about_at_the_4th():
    # The mirror refuses the token; waiting, then asking composer what it thinks, moves nothing.
    refused = (
        "Loading composer repositories with package information\n"
        "In AuthHelper.php line 135:\n"
        "  Invalid credentials (HTTP 403) for 'https://repo.packagist.com/acme/packages.json'"
    )
    calls = (
        fail("composer require stripe/stripe-php:^16", refused),
        bash("composer diagnose", "Checking composer.json: OK\nChecking https connectivity: OK"),
        fail("sleep 30 && composer require stripe/stripe-php:^16", refused),
        fail("composer require stripe/stripe-php:^16 --no-interaction", refused),
        fail("sleep 60 && composer update --lock", refused),
    )
    assert _first_word(Driver(), *calls) == 5


def _first_word_at(d: Driver, calls: list[Call], every: float) -> float:
    """Minutes from the first call to the first check-in, one call every `every` seconds."""
    for n, call in enumerate(calls):
        if d.turn(call)["context"]:
            return n * every / 60
        d.wait(every)
    return -1


def test_a_look_that_waits_and_fails_is_still_a_poll_bounded_by_time():
    status = "kubectl -n api rollout status deploy/api --timeout=60s"
    one = "Waiting for deployment rollout to finish: 1 of 3 updated\nerror: timed out waiting"
    two = "Waiting for deployment spec update to be observed...\nerror: timed out waiting"
    # Failing the same way again, it is a wait on a failure, timed from its first sighting:
    # asked about at a third of the time (5 minutes) once seen twice.
    assert _first_word_at(Driver(), [fail(status, one)] * 12, every=300) == 5
    # Flapping between two answers seen before moves nothing: the wait is not timed afresh.
    flapping = [fail(status, (one, two)[n % 2]) for n in range(12)]
    assert _first_word_at(Driver(), flapping, every=300) == 10


def test_a_wait_that_only_waits_is_a_poll_and_a_wait_then_an_act_is_an_attempt():
    waits = fail("./scripts/wait-for-it.sh db:5432 --timeout=60 --wait", "timeout after 60s")
    assert _first_word_at(Driver(), [waits] * 5, every=60) == -1
    assert _first_word_at(Driver(), [waits] * 6, every=60) == 5  # a wait on a failure
    # A probe after a wait only looks, whatever program it runs.
    probe = fail("sleep 10 && pg_isready -h db", "db:5432 - no response")
    assert _first_word_at(Driver(), [probe] * 9, every=20) == -1
    compose = fail("docker compose -f a.yml -f b.yml up -d --wait", "container api is unhealthy")
    assert _first_word(Driver(), *[compose] * 2, *[compose] * 2) == 4
    lock = "fatal: Unable to create '/srv/repo/.git/index.lock': File exists."
    retries = [fail(f"sleep {n * 10} && git add src", lock) for n in range(1, 6)]
    assert _first_word(Driver(), *retries) == 4


def test_a_failing_wait_whose_progress_moves_is_timed_afresh():
    status = "kubectl rollout status deploy/api --timeout=5m"
    steps = [
        fail(
            status,
            f"Waiting for rollout to finish: {n // 2} out of 12 new replicas have been "
            "updated...\nerror: timed out waiting for the condition",
        )
        for n in range(16)
    ]
    # Each count timed out twice is a wait on that failure, asked about at its second sighting,
    # but the rollout going further starts the wait again: it is never paused.
    d = Driver()
    assert _first_word_at(d, steps, every=300) == 5
    for step in steps:
        d.turn(step)
        d.wait(300)
    assert d.paused is None


def test_new_failing_answers_of_a_poll_are_news_that_end_a_run_gone_quiet():
    text = "FAIL: TestSync (0.01s)\n    sync_test.go:40: got 3, want 4"
    d = Driver()
    for n in range(3):
        d.turn(fail(f"make test V={n}", text))
    for n in range(4):  # four new answers, failing: news, though no progress
        d.turn(fail("sleep 5; curl -sf localhost:8080/ready", f"curl: (22) error {tag(n)}"))
    d.turn(fail("make test", text))
    assert d.main["stuck"]["fails"] == 1


def test_the_causes_a_text_names():
    assert known_causes.named("write /tmp/x: No space left on device") == ["~disk full"]
    assert known_causes.named("dial tcp 10.0.0.1:443: i/o timeout") == ["~timed out connecting"]
    assert known_causes.named("connect ETIMEDOUT 10.0.0.1:443") == ["~timed out connecting"]
    # A platform's refusal, only where its client acted (`acts_on_platform`).
    refusal = "An error occurred (AccessDenied) when calling the PutObject operation"
    assert known_causes.named(refusal, refused=True) == ["~access refused"]
    for ruleset in ("gh: Repository rule violations found (HTTP 422)", RULESET.format(ref="x")):
        assert known_causes.named(ruleset, refused=True) == ["~access refused"]
    assert known_causes.named(refusal) == []
    # Whole words only, and only where a failure ends.
    assert known_causes.named("AssertionError: retry_on_etimedout_count == 2") == []
    assert known_causes.named("retry 1: i/o timeout\n" + "step ok\n" * 8 + "Error: bad") == []
    # Causes the code under work produces as often (and that tests assert on) are none.
    for text in (
        "AssertionError: 'Permission denied' not in output",
        "Expected status code 401 but got 200",
        "AssertionError: assert 403 == 200 (Forbidden)",
        "Error: connect ECONNREFUSED 127.0.0.1:5432",
        "torch.cuda.OutOfMemoryError: CUDA out of memory",
        "panic: test timed out after 10m0s",
    ):
        assert known_causes.named(text) == [], text
    # A server on this machine is the code under work, not the network.
    assert known_causes.named("dial tcp 127.0.0.1:8080: i/o timeout") == []
    assert known_causes.is_known("~disk full")
    assert not known_causes.is_known("3fa9c2d1e0b4a5f6")


@pytest.mark.parametrize(
    ("failures", "between", "first_word"),
    [
        # A change that answers something new and leaves the server out of reach: the next
        # failures tell that it did not move the cause.
        (UNREACHABLE, bash("aws eks update-kubeconfig --name eu", "Updated context eu"), 5),
        # The build's temp dir moved from the shell: what fails next may be another matter.
        (DISK_FULL, bash("sed -i 's#/tmp#/var/tmp#' Makefile", ""), 0),
    ],
)
def test_one_cause_joins_after_a_change_but_not_after_a_file_written(
    failures: tuple[Call, ...], between: Call, first_word: int
) -> None:
    d = Driver()
    d.turn(failures[0])
    d.turn(failures[1])
    d.turn(between)
    assert _first_word(d, failures[2], failures[3]) == first_word


def test_an_attempt_refused_as_a_repeat_of_a_failure_still_counts_toward_the_pause():
    # A reinstall between runs does not excuse the run again (a change excuses only a read),
    # so every run after the second is refused; the model kept trying all the same.
    run = fail(
        "jupyter nbconvert --execute nb.ipynb", "ModuleNotFoundError: No module named 'lightgbm'"
    )
    d = Driver()
    words = []
    for n in range(7):
        out = d.turn(run)
        words.append((bool(out["denied"]), bool(out["context"]), d.paused is not None))
        d.turn(bash(f"pip install --force-reinstall lightgbm  # {tag(n)}", f"installed {tag(n)}"))
    assert [denied for denied, _, _ in words] == [False, False, True, True, True, True, True]
    assert [asked for _, asked, _ in words] == [False, False, False, True, False, False, False]
    assert [paused for _, _, paused in words].index(True) == 5


def _runs(d: Driver) -> list[int]:
    return sorted(StateFile.view(d.state).guard.tracks["main"].stuck.runs.values())


def test_a_refused_call_adds_an_attempt_to_its_own_failure_once_a_turn():
    lint = fail("ruff check src", "src/a.py:3:1: F401 `os` imported but unused")
    tests = fail("pytest -q tests/test_a.py", "E   AssertionError: assert 1 == 2")
    d = Driver()
    d.turn(lint)
    d.turn(lint)
    d.turn(tests)  # the failure running now is the test's
    d.turn(lint)  # refused: one more attempt at the lint failure, none at the test's
    assert _runs(d) == [1, 3]
    d.turn(tests)
    d.turn(lint, lint)  # both refused in one turn: one more attempt
    assert _runs(d) == [2, 4]


def test_a_refused_call_of_another_tool_counts_for_its_own_failure():
    # Tools other than Bash name no command words: the operation tells which failure it was.
    jira = Call("mcp__jira__get_issue", {"key": "OPS-7"}, error="Error: 404 issue not found")
    read = Call("Read", {"file_path": "/p/missing.txt"}, error="File does not exist.")
    d = Driver()
    d.turn(jira)
    d.turn(jira)
    d.turn(read)
    d.turn(jira)  # refused
    assert _runs(d) == [1, 3]


def test_a_refused_call_whose_last_runs_passed_adds_no_attempt():
    d = Driver()
    d.turn(fail("make test", "FAIL: TestSync (0.01s)\n    sync_test.go:40: got 3, want 4"))
    for _ in range(3):
        d.turn(bash("make test", "ok  \texample.com/sync\t0.012s"))  # the third is refused
    assert d.main["stuck"]["fails"] == 1


JAVA_TIMEOUT = (
    "[ERROR] Failed to execute goal on project api: Could not transfer artifact\n"
    "Caused by: java.net.ConnectException: Connection timed out\n"
    + "".join(f"\tat org.apache.maven.Step{n}.run(Step{n}.java:{n + 40})\n" for n in range(30))
    + "\t... 23 more"
)


def test_a_cause_named_above_a_stack_trace_is_read():
    # Java names the cause, then the frames it went through: they do not hide it.
    assert known_causes.named(JAVA_TIMEOUT) == ["~timed out connecting"]
    d = Driver()
    d.turn(fail("mvn -q package", JAVA_TIMEOUT))
    d.turn(fail("curl -fsS https://repo.maven.apache.org/", "curl: (28) Connection timed out"))
    assert d.main["stuck"]["fails"] == 2


JEST_EXPECTATION = """  ● retries › maps a socket timeout

    expect(received).toBe(expected) // Object.is equality

    Expected: "ETIMEDOUT"
    Received: "ECONNRESET"

      10 |   const code = await classify(err);
      11 |
    > 12 |   expect(code).toBe("ETIMEDOUT");
         |                ^
      13 | });
      14 |

      at Object.<anonymous> (test/retries.test.js:12:18)

Test Suites: 1 failed, 1 total
Tests:       1 failed, 1 total
Snapshots:   0 total
Time:        0.41 s
Ran all test suites matching /retries/i."""


def test_a_test_s_expectation_is_no_cause_outside_the_code():
    # The timeout is what the test asserts, not what stopped the run.
    assert known_causes.named(JEST_EXPECTATION) == []
