"""A look run inside a container or a pod, on another machine, as another user, or sent to a
data store's client, is a look (`loop_guard.inner_commands`): asked again and answering as
before, it is a repeat, not a change that starts every count again."""

from __future__ import annotations

from testing.guard_driver import Driver
from testing.guard_driver import bash

from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import tool_effects


def test_what_a_container_runs_is_read_as_the_command_it_is():
    reads = tool_effects.is_read_only_command
    assert reads("docker compose exec redis redis-cli -n 1 LLEN emails")
    assert reads("docker compose exec -T worker celery -A mailer inspect active")
    assert reads("docker exec -u app web cat /etc/nginx/nginx.conf")
    assert reads("kubectl exec -n prod api-0 -c app -- ls -la /data")
    assert not reads("docker exec web rm -rf /tmp/cache")
    assert reads("docker compose exec -T db psql -U app -c 'select 1'")
    assert not reads("docker compose exec -T db psql -U app -c 'delete from jobs'")
    assert not reads("kubectl exec api-0 cat /etc/hosts")  # no `--`: an older, unclear form
    assert not reads("docker exec -it web sh") and not reads("docker exec web")
    assert not reads("docker compose exec worker cat /app/log > copy.log")


def test_a_data_stores_client_reads_only_with_a_command_that_reads():
    reads = tool_effects.is_read_only_command
    assert reads("redis-cli -h cache -p 6379 GET session:42") and reads("redis-cli INFO memory")
    assert not reads("redis-cli FLUSHALL") and not reads("redis-cli -n 2 DEL k")
    assert not reads("redis-cli CLIENT KILL TYPE pubsub") and not reads("redis-cli SLOWLOG RESET")
    assert not reads("redis-cli") and not reads("celery -A app purge")


def test_one_look_inside_a_container_asked_in_other_words_brings_nothing_new():
    # The queue's depth, asked again and again in new spellings, always the same answer: a
    # run of repeats, where each would have been a change starting every count again.
    d = Driver()
    spellings = [
        f"docker compose exec {t}redis redis-cli -n 1 {c} emails{p}"
        for t in ("", "-T ")
        for c in ("LLEN", "llen")
        for p in ("", " | cat", " 2>&1")
    ]
    said = [bool(d.turn(bash(command, "(integer) 14"))["context"]) for command in spellings]
    assert any(said)


def test_a_look_over_ssh_or_as_another_user_is_read_as_the_command_it_carries():
    reads = tool_effects.is_read_only_command
    assert reads("ssh ops@reports-01 'sudo journalctl -u report.service --since \"1 week ago\"'")
    assert reads("ssh -i ~/.ssh/ops -p 2222 -o StrictHostKeyChecking=no db-1 'df -h | tail -n +2'")
    assert reads("sudo -u postgres psql -Atc 'select count(*) from jobs'") and reads(
        "sudo tail x.log"
    )
    assert not reads("ssh web-1 'sudo systemctl reload nginx'") and not reads("ssh web-1")
    assert not reads("ssh web-1 'cat $(ls -t /var/log/app/*.log | head -1)'")  # runs more
    assert not reads("sudo -e /etc/hosts") and not reads("sudo systemctl restart app")


def test_a_query_reads_and_a_statement_that_acts_does_not():
    reads = tool_effects.is_read_only_command
    assert reads('psql -h replica -U ops -d orders -Atc "select pg_last_wal_replay_lsn()"')
    assert reads("psql -c '\\dt'") and reads('mysql -Ne "SHOW TABLES"')
    assert reads("sqlite3 app.db \"select * from jobs where state = 'failed'\"")
    assert reads("sqlite3 app.db .tables")
    assert not reads('psql "$URL" -c "select pg_terminate_backend(48121)"')  # a query that acts
    assert not reads("psql -c 'select * into backup from jobs'")
    assert not reads("psql -c 'update jobs set state = 1'") and not reads("psql -f fix.sql")
    assert not reads("psql -c 'select 1' -o out.txt") and not reads("psql")
    assert not reads('sqlite3 app.db "delete from jobs"')


def test_setting_up_the_shells_environment_changes_nothing():
    reads = tool_effects.is_read_only_command
    assert reads("source .venv/bin/activate && grep -n archived migrations/*.py")
    assert reads(". .env && curl -s https://api.example.com/v1/items")
    assert not reads("source .venv/bin/activate && pytest -q")  # the test run, not the setup
    assert not reads("source ./deploy.sh")


def test_a_bar_inside_quotes_is_no_output_filter():
    # What runs on the other machine keeps its filter: cutting at the quoted bar would leave a
    # quote open and the command unread.
    remote = "ssh ci-agent-01 'df -h / | tail -n +2'"
    assert shape.observed_command(remote) == remote
    assert shape.observed_command("grep -E 'a|b' app.log | tail -5") == "grep -E 'a|b' app.log"


def test_one_answer_over_ssh_asked_in_other_words_brings_nothing_new():
    # A unit's journal read through one filter after another, always empty: the same answer,
    # where each call read as a change would start every count again.
    d = Driver()
    options = ("", " --since today", " -p err", " -b", " -o json", " -n 50", " --no-pager")
    said = [
        bool(
            d.turn(
                bash(f"ssh ops@reports-01 'sudo journalctl -u report{o}{u}'", "-- No entries --")
            )["context"]
        )
        for u in ("", ".service")
        for o in options
    ]
    assert any(said)


def test_a_sweep_over_machines_answering_alike_is_no_loop():
    d = Driver()
    for n in range(1, 13):
        out = d.turn(
            bash(
                f"ssh ci-agent-{n:02d} 'df -h /var/lib/docker | tail -n +2'",
                "/dev/sdb1 200G 94G 104G 47%",
            )
        )
        assert not out["context"]


def test_what_a_carrier_may_do_besides_is_a_change():
    reads = tool_effects.is_read_only_command
    assert not reads("psql -qAtf fix.sql -c 'select 1'") and not reads(
        "psql -Ato out -c 'select 1'"
    )
    assert not reads("mysql -e 'select 1' --init-command='delete from t'")
    for query in (
        "select pg_catalog.pg_terminate_backend(4812)",
        "select pg_stat_statements_reset()",
        "select lo_unlink(1)",
        "select * from dblink_exec('x', 'y')",
        "select cron.schedule('x')",
        "select * from jobs $FILTER",
        "",
    ):
        assert not reads(f'psql -c "{query}"'), query
    assert not reads("psql -c '\\dt `touch /tmp/p`'") and not reads("sqlite3 app.db ''")
    assert not reads("ssh -f -L 5432:db:5432 bastion sleep 600")
    assert not reads("ssh -o ProxyCommand='nc %h %p' host cat /etc/hosts")
    assert not reads("ssh -oLocalCommand=reboot -oPermitLocalCommand=yes host uptime")
    assert not reads('ssh host "ls $DIR"')
    assert not reads("source .envrc") and not reads("source scripts/env")


def test_carriers_inside_carriers_are_read_a_few_deep_and_no_deeper():
    reads = tool_effects.is_read_only_command
    assert reads("ssh bastion ssh db-1 'sudo tail -n 5 /var/log/app.log'")
    assert not reads("sudo " * 800 + "cat x") and not reads("ssh h " * 200 + "cat x")
    assert not reads("docker exec web " * 500 + "cat x")
