"""Changes that change nothing: a command meant to change the world, then a look that shows,
word for word, what it showed before. Each case is a class: a restart and the same 502 under
new spellings; and the look-alikes, a look that was not after a change and an edit (a batch
whose count moves is `test_new_information`'s batch job: its shape repeats, its answer does
not)."""

from __future__ import annotations

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash

from arcguard.core.schema import StateFile


RESTARTS = (
    "systemctl restart app",
    "sudo systemctl restart app.service",
    "service app restart",
    "systemctl --no-block restart app",
)
LOOKS = (
    "curl -s localhost:8080/health",
    "curl -sS http://127.0.0.1:8080/health",
    "curl --silent 'http://localhost:8080/health'",
)


def _changes_then_looks(
    d: Driver, count: int, answer: str = "502 Bad Gateway", printed: str = ""
) -> list[bool]:
    """Whether each look was followed by a request to the model (`printed`: what each change
    prints)."""
    words = []
    for n in range(count):
        d.turn(bash(RESTARTS[n % 4], response=printed))
        out = d.turn(bash(LOOKS[n % 3], response=answer))
        words.append(bool(out["context"]))
        if d.paused:
            break
    return words


def test_a_restart_that_leaves_the_same_answer_is_asked_about_then_paused():
    # The first look is news, and the restart before it the first of the run once the next
    # restart's look answers the same: the request comes at the 4th restart, as a failure's.
    d = Driver()
    words = _changes_then_looks(d, 12)
    assert words.index(True) == 3
    assert d.paused is not None and d.paused["kind"] == "stuck"
    assert "6 changes in a row" in d.paused["reason"]
    assert len(words) == 6
    nudge = next(e for e in StateFile.view(d.state).log if e.kind == "nudge")
    assert nudge.rule == "no-effect" and nudge.runs == 4


def test_a_change_that_prints_something_is_judged_by_the_look_after_it():
    # `docker restart web` prints "web" each time: its own output says nothing of the 502.
    d = Driver()
    words = _changes_then_looks(d, 12, printed="web")
    assert words.index(True) == 3
    assert d.paused is not None and "6 changes in a row" in d.paused["reason"]


def test_a_look_with_a_new_answer_ends_the_run():
    d = Driver()
    _changes_then_looks(d, 3)
    d.turn(bash("systemctl restart app", response=""))
    d.turn(bash("curl -s localhost:8080/health", response='{"ok": true}'))
    assert d.main["stuck"]["futile"] == 0
    assert _changes_then_looks(d, 3) == [False] * 3


def test_only_the_first_look_after_a_change_counts():
    d = Driver()
    d.turn(bash("curl -s localhost:8080/health", response="502 Bad Gateway"))
    for n in range(3):
        d.turn(bash(RESTARTS[n], response=""))
        for look in LOOKS:
            d.turn(bash(look, response="502 Bad Gateway"))
    assert d.main["stuck"]["futile"] == 3


def test_an_edit_is_not_such_a_change():
    # What an edit changed is on record; a look showing the same after it is the other rules'
    # to judge (a test still failing after a real edit is ordinary work).
    d = Driver()
    for n in range(6):
        old, new = f"retries = {n}", f"retries = {n + 1}"
        response = {
            "filePath": "/p/app.cfg",
            "oldString": old,
            "newString": new,
            "originalFile": old,
            "structuredPatch": [{"lines": [f"-{old}", f"+{new}"]}],
        }
        d.turn(
            Call(
                "Edit",
                {"file_path": "/p/app.cfg", "old_string": old, "new_string": new},
                response=response,
            )
        )
        d.turn(bash("curl -s localhost:8080/health", response="502 Bad Gateway"))
    assert d.main["stuck"].get("futile", 0) == 0
    assert d.paused is None


def _logs(minute: int, pid: int) -> str:
    return (
        f"api-1  | 2026-08-08T00:{minute:02d}:13.000Z info: starting api on :8080 (pid {pid})\n"
        f"api-1  | 2026-08-08T00:{minute:02d}:14.512Z error: connect ECONNREFUSED 127.0.0.1:5432"
    )


def test_the_same_crash_in_timestamped_logs_after_each_restart_is_the_same_answer():
    # Only a clock moved between the looks: the restart changed nothing the logs can show.
    d = Driver()
    words = []
    for n in range(8):
        change = ("docker compose restart api", "docker compose up -d --build", "make restart")
        change += ("docker compose up -d --force-recreate api",)
        look = ("docker compose logs --tail 20 api", "docker logs shop-api-1 --tail 20")
        d.turn(bash(change[n % 4]))
        out = d.turn(bash(look[n % 2], response=_logs(10 + n, 7 + n)))
        words.append(bool(out["context"]))
        if d.paused:
            break
    assert words.index(True) == 3
    assert d.paused is not None and "6 changes in a row" in d.paused["reason"]


def test_a_change_deep_inside_a_long_answer_is_a_new_answer():
    # Line 300 of a long file, changed by each `sed -i` and shown whole by `cat`.
    d = Driver()
    for n in range(8):
        d.turn(bash(f"sed -i '300s/.*/limit = {n}/' settings.py"))
        lines = [f"option_{k} = True" for k in range(600)]
        lines[299] = f"limit = {n}"
        out = d.turn(bash("cat settings.py", response="\n".join(lines)))
        assert not out["context"], n


def test_a_count_that_moved_is_a_new_answer():
    # A load, then a count: 100, 200, 300 rows moved, whatever else the look prints.
    d = Driver()
    for n in range(1, 9):
        d.turn(bash(f"./load.sh batch-{n}"))
        out = d.turn(bash("curl -s localhost:8080/count", response=f"rows: {n}00 at 10:0{n}:00"))
        assert not out["context"], n
    assert d.paused is None


@pytest.mark.parametrize(
    ("change", "look"),
    [
        ("sudo systemctl restart acme-{}", "systemctl is-active acme-{}"),
        ("kubectl rollout restart deploy/{} -n prod", "kubectl -n prod get deploy {} -o name"),
        ("docker-compose restart {}", "docker-compose ps {}"),
    ],
)
def test_restarting_one_service_after_another_is_no_loop(change, look):
    # Each restart names its own service, and each status reads alike: a routine round.
    d = Driver()
    for name in ("api", "auth", "billing", "catalog", "mailer", "search"):
        d.turn(bash(change.format(name)))
        out = d.turn(bash(look.format(name), response="active"))
        assert not out["context"], name
    assert d.paused is None and d.main["stuck"]["futile"] <= 1


@pytest.mark.parametrize(
    ("change", "look", "answer"),
    [
        ("composer require {0}/{0}", "composer validate", "./composer.json is valid"),
        ("bundle add {}", "bundle check", "The Gemfile's dependencies are satisfied"),
    ],
)
def test_adding_one_package_after_another_is_no_loop(change, look, answer):
    # The verb that adds names no package: each change names its own, and the check reads alike.
    d = Driver()
    for name in ("sidekiq", "redis", "puma", "faraday", "oj", "jwt", "rack", "pg"):
        d.turn(bash(change.format(name), response=f"Installing {name}"))
        out = d.turn(bash(look, response=answer))
        assert not out["context"], name
    assert d.paused is None


def test_a_restart_and_a_pod_deleted_for_one_service_are_one_run():
    # Two ways at the same service: the pod's generated suffix names nothing else.
    d = Driver()
    words = []
    for n in range(4):
        change = ("kubectl rollout restart deploy/api", f"kubectl delete pod api-6c8f7d9b4-{n}x9p")
        d.turn(bash(change[n % 2]))
        words.append(
            bool(d.turn(bash("kubectl logs deploy/api --tail 5", response="panic"))["context"])
        )
    assert words == [False, False, False, True]


TENANTS = [
    "acme",
    "globex",
    "initech",
    "umbrella",
    "hooli",
    "stark",
    "wayne",
    "wonka",
    "tyrell",
    "cyberdyne",
]


def test_a_restart_and_a_stateful_pod_deleted_for_one_service_are_one_run():
    # A replica's number names a pod of the service, not another target.
    d = Driver()
    words = []
    for n in range(4):
        change = ("kubectl rollout restart statefulset/redis", "kubectl delete pod redis-0")
        d.turn(bash(change[n % 2]))
        words.append(bool(d.turn(bash("kubectl logs redis-0 --tail 5", response="oom"))["context"]))
    assert words == [False, False, False, True]


@pytest.mark.parametrize(
    ("change", "look", "answer"),
    [
        # A rolling restart, each node checked after its own restart.
        (
            "ssh app-{:02d} 'sudo systemctl restart shop-api'",
            "curl -s http://app-{:02d}.internal:8080/version",
            '{"version":"2.4.1"}',
        ),
        (
            "ssh web{} 'sudo systemctl restart shop-api'",
            "curl -s http://web{}.internal:8080/version",
            '{"version":"2.4.1"}',
        ),
        # A flag turned on tenant by tenant, each read back.
        (
            "curl -s -X POST https://admin.internal/api/tenants/{}/flags -d on",
            "curl -s https://admin.internal/api/tenants/{}/flags | jq .on",
            "true",
        ),
    ],
)
def test_a_rollout_checked_target_by_target_is_no_loop(change, look, answer):
    # Every look answers alike, as it should: each is about the target just changed.
    d = Driver()
    for n in range(1, 11):
        target = TENANTS[n - 1] if "tenants" in change else n
        d.turn(bash(change.format(target), response=""))
        assert not d.turn(bash(look.format(target), response=answer))["context"], n
    assert d.paused is None


# A rebuild and redeploy, each checked at once by the same command's closing look: the
# rebuild's chatter goes to stderr and moves every time, the look's answer does not.
CHECKED = (
    "docker compose up -d --force-recreate api && sleep 3 && curl -s localhost:8080/version",
    "docker compose build --no-cache api && docker compose up -d api && curl -s localhost:8080/v",
    "docker image prune -f && docker compose up -d --build api; sleep 5; curl -s localhost:8080/v",
    "docker compose restart api && sleep 4 && curl -s 'http://localhost:8080/version'",
)
VERSION = '{"service": "api", "commit": "4b7d0a1", "tax": 3.79}'


def _checked(n: int, answer: str = VERSION) -> Call:
    chatter = f"[+] Building {n}.{n}s ({n}/17) FINISHED\nContainer api-{n}  Started"
    response = {"stdout": f"Total reclaimed space: {n}41.6MB\n{answer}", "stderr": chatter}
    return Call("Bash", {"command": CHECKED[n % 4]}, response=response)


def test_a_restart_checked_in_the_same_command_is_judged_by_its_closing_look():
    # However each rebuild is spelt and whatever it prints, the look at its end answers as
    # before: the 4th is asked about, the 6th paused, and the reason names the command once.
    d = Driver()
    words = []
    for n in range(12):
        words.append(bool(d.turn(_checked(n))["context"]))
        if d.paused:
            break
    assert words.index(True) == 3
    assert d.paused is not None and "6 changes in a row" in d.paused["reason"]
    assert "(last: Bash: docker " in d.paused["reason"] and ", then" not in d.paused["reason"]


def test_a_checked_restart_whose_look_moves_is_no_loop():
    # The tax moved with each redeploy: each look answered something new.
    d = Driver()
    for n in range(8):
        out = d.turn(_checked(n, VERSION.replace("3.79", f"3.{80 + n}")))
        assert not out["context"], n
    assert d.paused is None


@pytest.mark.parametrize(
    "answer",
    [
        '{\n  "ok": false,\n  "commit": "4b7d0a1"\n}',  # `}` closes every pretty-printed answer
        "<html><body>\n<p>v2</p>\n</div></body></html>",  # and `</html>` every page
        "200",  # a status code, `active`: alike for every service that is up
        "active",
    ],
)
def test_a_checked_restart_whose_closing_line_says_too_little_is_not_compared(answer):
    d = Driver()
    for n in range(8):
        assert not d.turn(_checked(n, answer))["context"], n
    assert d.main["stuck"].get("futile", 0) == 0


VERSION_LINE = '{"version": "3.1.4"}\n'


def _restart_then_version() -> Call:
    out = {
        "stdout": VERSION_LINE,
        "stderr": " Container api-1  Restarting\n Container api-1  Started",
    }
    command = "docker compose restart api && curl -s localhost:8080/version"
    return Call("Bash", {"command": command}, response=out)


def test_a_checked_restart_and_a_restart_then_a_look_are_one_run():
    # Whether the look came in the same command or the next, version 3.1.4 is one answer.
    d = Driver()
    words = []
    for n in range(4):
        if n % 2:
            out = d.turn(_restart_then_version())
        else:
            d.turn(bash("docker compose restart api", response=""))
            out = d.turn(bash("curl -s localhost:8080/version", response=VERSION_LINE))
        words.append(bool(out["context"]))
    assert words == [False, False, False, True]


def test_a_checked_restart_answering_as_before_goes_on_with_the_run_it_repeats():
    # The same version asked three ways, then once more after a restart: the restart moved
    # nothing the answer shows, so the run of repeats goes on.
    d = Driver()
    for options in ("-s", "-sS", "--silent"):
        d.turn(bash(f"curl {options} localhost:8080/version", response=VERSION_LINE))
    d.turn(_restart_then_version())
    assert d.main["stuck"]["repeats"] == 3


@pytest.mark.parametrize(
    "change",
    [
        "git add src/{}.py && git commit -qm 'add {}' && git status --short",
        "kubectl apply -f k8s/{}.yaml && kubectl get pods",
        "uv add {} && git status --short",
    ],
)
def test_changes_of_files_each_checked_by_a_status_are_no_loop(change):
    # Each commits, applies or adds something else; the status's last line does not answer
    # for it.
    d = Driver()
    for name in ("parser", "loader", "report", "cli", "docs", "bench", "ci", "lint"):
        out = {"stdout": f"done {name}\n?? notes.md\n", "stderr": ""}
        call = Call("Bash", {"command": change.format(name, name)}, response=out)
        assert not d.turn(call)["context"], name
    assert d.paused is None


def test_restarts_of_one_service_after_another_checked_alike_are_no_loop():
    d = Driver()
    for name in ("api", "auth", "billing", "catalog", "mailer", "search", "web", "worker"):
        command = f"make deploy SERVICE=acme-{name} && curl -s localhost:8080/healthz"
        out = {"stdout": '{"status": "ok", "checks": 4}\n', "stderr": ""}
        assert not d.turn(Call("Bash", {"command": command}, response=out))["context"], name
    assert d.paused is None


def test_a_batch_over_the_next_range_each_time_is_a_sweep_not_a_retry():
    # A backfill in ranges of ids, the replica's lag checked after each: the check reads alike
    # (under a second) because all is well, and each batch was given other numbers.
    d = Driver()
    for n in range(10):
        low, high = n * 100_000, (n + 1) * 100_000
        update = (
            f'psql "$PRIMARY_URL" -c "update orders set code = 1 where id >= {low} and id < {high}"'
        )
        d.turn(bash(update, response=f"UPDATE 9{n}616"))
        out = d.turn(bash('psql "$REPLICA_URL" -Atc "select replay_lag()"', response="00:00:00"))
        assert not out["context"]
    assert d.paused is None


def test_the_same_batch_again_with_the_same_check_is_a_retry():
    # The same range each time, however spelt: a change retried, and the count says it did
    # nothing.
    d = Driver()
    ranges = ("id >= 0 and id < 100000", "id < 100000 and id >= 0", "id >= 0 and id < 100000 ")
    looks = (
        "select count(*) from orders where code is null",
        "SELECT count(*) FROM orders WHERE code IS NULL",
    )
    words = []
    for n in range(6):
        update = f'psql -X "$PRIMARY_URL" -c "update orders set code = 1 where {ranges[n % 3]}"'
        d.turn(bash(update, response="UPDATE 0"))
        out = d.turn(bash(f'psql "$PRIMARY_URL" -Atc "{looks[n % 2]}"', response="1094317"))
        words.append(bool(out["context"]))
    assert words.index(True) == 3


def test_a_batch_over_ranges_of_long_ids_or_over_shards_is_a_sweep():
    batches = (
        'psql -c "update jobs set retries = 0 where id >= {} and id < {}"',
        'psql -c "update jobs set retries = 0, priority = 1 where shard = {} and state = 500{}"',
    )
    for batch in batches:
        d = Driver()
        for n in range(1, 10):
            low, high = (n * 1_000_000, (n + 1) * 1_000_000) if "id" in batch else (100 + n, "")
            d.turn(bash(batch.format(low, high), response="UPDATE 7"))
            out = d.turn(bash("curl -s localhost:8080/health", response="ok"))
            assert not out["context"], batch
        assert d.paused is None


def test_a_value_tried_or_a_process_killed_is_no_sweep():
    # A timeout set by name to one value after another, or a server killed by its pid and
    # started again: each a retry, the same 504 after it.
    for change in ("kubectl set env deploy/api UPSTREAM_TIMEOUT={}", "kill {} && nohup ./server &"):
        d = Driver()
        words = []
        for n in range(6):
            d.turn(bash(change.format(30 * (n + 1) + 4000 * n), response=""))
            out = d.turn(bash("curl -s localhost:8080/api/orders", response="504 Gateway Timeout"))
            words.append(bool(out["context"]))
        assert words.index(True) == 3, change


def test_a_change_spelt_its_own_way_by_a_small_number_is_a_retry():
    # `--try 2`, `restarted-2.flag`: a retry's own spelling, not the next target of a sweep.
    for change in ("touch restarted-{}.flag", "./svc restart api --try {}"):
        d = Driver()
        words = []
        for n in range(1, 7):
            d.turn(bash(change.format(n), response=""))
            out = d.turn(bash("cat status.txt", response="502 Bad Gateway"))
            words.append(bool(out["context"]))
        assert words.index(True) == 3, change
