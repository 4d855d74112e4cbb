"""Commands that carry another command: one run inside a container or a pod (`docker exec`,
`docker compose exec`, `kubectl exec ... --`), on another machine (`ssh host 'journalctl -u
app'`) or as another user (`sudo -u postgres ...`), and one sent to a data store's client
(`redis-cli LLEN emails`, `psql -Atc "select ..."`, `mysql -e`, `sqlite3 app.db "select
..."`). Setting up a shell's environment first (`source .venv/bin/activate && ...`, `. .env`)
carries nothing and changes nothing a later call could see.

`tool_effects` reads the carried command as what it is: a look run inside a container (`cat`,
`redis-cli LLEN`, `celery inspect active`) or over `ssh` only reads, and a look asked again
that answers as before is seen to; anything else run inside stays a change, the safe side.
`kubectl exec` without `--` (an old form, its command hard to tell from its options) stays a
change too, as does `ssh` with no command (a login), `sudo -e` (an edit), a query read from a
file or written to one, and any statement but a query: `select pg_terminate_backend(...)`
acts, as does `select ... into`.
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


CARRIERS = frozenset({"sudo", "ssh", "source", ".", "psql", "mysql", "sqlite3"})
SUDO_VALUED = frozenset("-u -g -U -C -D -h -p -r -t -T".split())  # noqa: SIM905
SUDO_EDITS = frozenset({"-e", "--edit"})
SSH_VALUED = frozenset("bcDEeFIiJLlmOopQRSWwB")  # ssh's one-letter options that take a value
# ssh's options that act here too: a tunnel or a forward (`-L`, `-f`, a master), or a command
# run on this machine (`-o ProxyCommand=...`, `-o LocalCommand=...`).
SSH_ACTING = frozenset("LRDWfMNwS")
SSH_ACTING_SETTINGS = ("proxycommand", "localcommand", "permitlocalcommand")
# Files a shell sources to set its environment: a virtualenv's `bin/activate`, a `.env` file
# (not direnv's `.envrc`, which may build a virtualenv).
ACTIVATE = "/bin/activate"
# A client's options whose statement follows (`psql -Atc "select 1"`, `mysql -Ne`); the
# letters of one-letter options, and the long options, that read statements from a file, run
# one given apart or write the answers to a file: not read, a change.
SQL_GIVEN = {"psql": ("c", "--command"), "mysql": ("e", "--execute")}
SQL_FILE_LETTERS = frozenset("foL")
SQL_FILES = ("--file", "--output", "--log-file", "--tee", "--init-command", "-cmd", "-init")
# A query's opening words, and the words or name pieces (`pg_catalog.pg_terminate_backend`:
# `terminate`) that make one act or write wherever they stand.
QUERY_OPENINGS = frozenset({"select", "show", "explain", "table", "values", "with", "describe"})
SQL_ACTING = frozenset(
    "insert update delete drop alter create truncate grant revoke copy call merge into set "  # noqa: SIM905
    "analyze vacuum lock advisory nextval setval cancel terminate reload switch promote pause "
    "resume reset notify exec schedule emit rotate import export unlink load writefile".split()
)
# Meta-commands of psql and sqlite3 that only describe (`\\dt`, `.schema`).
META_READS = frozenset(
    r"\d \dt \di \dn \df \dv \du \l \x \conninfo .tables .schema .indexes".split()  # noqa: SIM905
)


def after_sudo(args: list[str]) -> list[str] | None:
    """The command `sudo ARGS` runs as another user, past sudo's own options; None when it
    runs none (`sudo -v`) or edits a file (`sudo -e`)."""
    at = 0
    while at < len(args) and args[at].startswith("-"):
        if args[at] in SUDO_EDITS:
            return None
        at += 2 if args[at] in SUDO_VALUED else 1
        if args[at - 1 : at] == ["--"]:
            break
    return args[at:] or None


def over_ssh(args: list[str]) -> tuple[str, str] | None:
    """The machine `ssh ARGS` goes to and the command it runs there, as its shell will read it
    (ssh joins the words with spaces); None for a login with no command, an option that acts
    here too (`SSH_ACTING`) or a command a shell fills in."""
    at = 0
    while at < len(args) and args[at].startswith("-"):
        option = args[at]
        at += 1
        if option == "--":
            break
        letters = option[1:]
        if not letters.isalpha():
            letters = letters[:1]  # a value given with its option: `-p2222`, `-oX=y`
        if SSH_ACTING.intersection(letters):
            return None
        setting = option[2:] if len(option) > 2 else ""
        if letters[-1:] in SSH_VALUED and option[1:].isalpha():
            setting = args[at] if at < len(args) else ""
            at += 1  # its value is the next word (`-i key`, `-p 2222`)
        if letters[-1:] == "o" and setting.lower().startswith(SSH_ACTING_SETTINGS):
            return None
    remote = " ".join(args[at + 1 :])
    # A value a shell fills in (`$DIR`, a backtick) is unknown: what runs there cannot be read.
    return (args[at], remote) if remote and "$" not in remote and "`" not in remote else None


def sets_environment(args: list[str]) -> bool:
    """`source FILE` (or `. FILE`) only sets the shell's environment: a virtualenv's
    `bin/activate`, a `.env` file."""
    path = args[0] if len(args) == 1 else ""
    name = path.rsplit("/", 1)[-1]
    env = (name.startswith(".env") and name != ".envrc") or name.endswith(".env")
    return env or ("/" + path).rpartition(ACTIVATE)[2] in ("", ".sh", ".fish", ".csh")


def sql_reads(program: str, args: list[str]) -> bool:
    """`psql`, `mysql` or `sqlite3` given statements that only query or describe."""
    for arg in args:
        letters = arg[1:] if arg[:1] == "-" and arg[1:].isalpha() else ""
        if arg.startswith(SQL_FILES) or (program != "sqlite3" and SQL_FILE_LETTERS & set(letters)):
            return False
    statements = _sqlite_statements(args) if program == "sqlite3" else _given(program, args)
    return any(s.strip() for s in statements) and all(_queries(s) for s in statements)


def _given(program: str, args: list[str]) -> list[str]:
    """The statements given on `program`'s command line (`-c TEXT`, `-Atc TEXT`,
    `--command=TEXT`)."""
    letter, long = SQL_GIVEN[program]
    found = []
    for at, arg in enumerate(args):
        if arg.startswith(long + "="):
            found.append(arg.partition("=")[2])
        elif arg == long or (arg[:1] == "-" and arg[1:].isalpha() and arg[-1] == letter):
            found.append(args[at + 1] if at + 1 < len(args) else "")
    return found


def _sqlite_statements(args: list[str]) -> list[str]:
    """What `sqlite3 [OPTIONS] FILE SQL...` runs: the words after the database file."""
    words = [a for a in args if not a.startswith("-")]
    return words[1:]


def _queries(text: str) -> bool:
    """Every statement in `text` queries or describes, and none acts (`SQL_ACTING`, as a word
    or a piece of a name). A shell's value in it (`$FILTER`) or a command run by psql's
    backticks is unknown: a change."""
    if "$" in text or "`" in text:
        return False
    for statement in text.split(";"):
        words = "".join(c.lower() if c.isalnum() or c in "_\\." else " " for c in statement).split()
        if not words:
            continue
        pieces = {p for w in words for p in w.replace(".", "_").split("_")}
        if words[0].startswith(("\\", ".")):
            if words[0] not in META_READS:
                return False
        elif words[0] not in QUERY_OPENINGS or SQL_ACTING.intersection(pieces):
            return False
    return True
