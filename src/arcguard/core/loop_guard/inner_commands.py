"""Commands that carry another command: one run inside a container or a pod (`docker exec`,
`docker compose exec`, `kubectl exec ... --`) and one sent to a data store's client
(`redis-cli LLEN emails`).

`tool_effects` reads the carried command as what it is: a look run inside a container (`cat`,
`redis-cli LLEN`, `celery inspect active`) only reads, and a look asked again that answers as
before is seen to; anything else run inside stays a change, the safe side. `kubectl exec`
without `--` (an old form, its command hard to tell from its options) stays a change too.
"""

from __future__ import annotations


# Options of `docker exec` and `docker compose exec` that take the next word (`-e KEY=value`,
# `-u app`); `kubectl exec` is read past its `--` instead.
EXEC_VALUED = frozenset("-e --env -u --user -w --workdir --env-file --index".split())  # noqa: SIM905
EXECUTING = frozenset(("docker", "docker-compose", "kubectl"))
# redis-cli's options that take the next word, and the commands of its that only read.
REDIS_VALUED = frozenset("-h -p -s -a -u -n -r -i --user --pass --sni --cacert".split())  # noqa: SIM905
REDIS_READS = frozenset(
    "GET MGET STRLEN EXISTS TYPE TTL PTTL KEYS SCAN DBSIZE INFO PING LLEN LRANGE LINDEX HGET "  # noqa: SIM905
    "HGETALL HKEYS HLEN HMGET SCARD SMEMBERS SISMEMBER ZCARD ZRANGE ZSCORE ZCOUNT XLEN XRANGE "
    "XINFO XPENDING".split()
)


def carried(program: str, args: list[str], target: int) -> list[str] | None:
    """The words a container or pod runs, `args` being what follows `exec` and `target` where
    its container or service is, past exec's own options; None when none."""
    if program == "kubectl":
        if "--" not in args:
            return None
        return args[args.index("--") + 1 :] or None
    return args[target + 1 :] or None


def redis_reads(args: list[str], command: int) -> bool:
    """`redis-cli ARGS` sends a command that only reads, `command` being where it is past the
    client's own options (with none it would wait for input)."""
    return command < len(args) and args[command].upper() in REDIS_READS
