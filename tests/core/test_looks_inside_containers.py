"""A look run inside a container or a pod, or sent to a data store's client, is a look
(`loop_guard.inner_commands`): asked again and answering as before, it is a repeat, not a
change that starts every count again."""

from __future__ import annotations

from testing.guard_driver import Driver
from testing.guard_driver import bash

from arcguard.core.loop_guard import tool_effects


def test_what_a_container_runs_is_read_as_the_command_it_is():
    reads = tool_effects.is_read_only_command
    assert reads("docker compose exec redis redis-cli -n 1 LLEN emails")
    assert reads("docker compose exec -T worker celery -A mailer inspect active")
    assert reads("docker exec -u app web cat /etc/nginx/nginx.conf")
    assert reads("kubectl exec -n prod api-0 -c app -- ls -la /data")
    assert not reads("docker exec web rm -rf /tmp/cache")
    assert not reads("docker compose exec -T db psql -U app -c 'select 1'")  # cannot tell
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
