"""What a call may have done to the world, and whether it only waits.

The loop guard asks two questions of a finished call. May it have changed something a later
read would see? Then a read that looked stale may be news again. Did it only wait for work
running elsewhere? Then its repeats are patience, not a loop. When a command cannot be read
with confidence, it counts as a change: treating a change as none is what denies real work.
Commands are split into simple commands as the shell reads them (`shell_words`), never
evaluated; a quote left open makes the whole command a change.
"""

from __future__ import annotations

from arcguard.core.loop_guard import cloud_clis
from arcguard.core.loop_guard import inner_commands
from arcguard.core.loop_guard import reading_commands
from arcguard.core.loop_guard import shell_words
from arcguard.core.loop_guard.reading_commands import GH_READ_ONLY
from arcguard.core.loop_guard.reading_commands import GIT_LISTING
from arcguard.core.loop_guard.reading_commands import GIT_READ_ONLY
from arcguard.core.loop_guard.reading_commands import LISTING
from arcguard.core.loop_guard.reading_commands import ONLY_ASKS
from arcguard.core.loop_guard.reading_commands import READ_ONLY_PROGRAMS
from arcguard.core.loop_guard.reading_commands import READ_ONLY_SUBCOMMANDS
from arcguard.core.loop_guard.reading_commands import VERSION_V
from arcguard.core.loop_guard.reading_commands import WRITING_OPTIONS


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.tool_call import ToolCall

BASH = "Bash"
HELP = "--help"
# Programs whose last word may be another's: a container's or a host's command, a request's
# data, a program `go run` builds and runs.
HELP_PASSED = frozenset({"docker", "podman", "kubectl", "ssh", "curl", "wget", "go"})
PYTHONS = frozenset({"python", "python3"})
# Built-in tools that change nothing a read could see (their own lists, searches, views).
QUIET_TOOLS = frozenset(
    "Read Grep Glob LS WebFetch WebSearch TodoWrite TodoRead TaskList TaskGet TaskOutput "  # noqa: SIM905
    "TaskCreate TaskUpdate BashOutput AgentOutputTool ToolSearch AskUserQuestion EnterPlanMode "
    "ExitPlanMode Skill Agent Task SendMessage".split()
)
# Edit and Write are judged by their response (a real patch), not here.
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit"})
# Tools that report on background work; calling them again is how a model waits.
STATUS_TOOLS = frozenset({"TaskList", "TaskGet", "TaskOutput", "BashOutput", "AgentOutputTool"})
# MCP tool names made of these words only read.
MCP_READ_WORDS = tuple(
    "get list read search fetch view query find describe show status lookup resolve info".split()  # noqa: SIM905
)

# Shell keywords that start the command they precede: `do rm x` runs `rm`.
LEADING_KEYWORDS = frozenset({"do", "then", "else", "elif", "if", "while", "until", "!"})
# awk prints into a file or a command from inside its program (`print > "out"`, `print |
# "sort"`), or runs one (`system(...)`); a comparison before its `print` (`$3 > 5`) is none.
AWK_PROGRAMS = frozenset({"awk", "gawk", "mawk", "nawk"})
# Prefixes that run the rest of the command: judge what they run.
WRAPPERS = frozenset({"timeout", "time", "nice", "nohup", "command", "builtin", "exec", "env"})
# Options before a subcommand that take the next word (`kubectl -n staging get pods`).
LOOP_WORDS = frozenset({"for", "while", "until", "do", "done"})  # words that make a loop
# Programs judged by their words, which a substitution's output may stand for: an option, a
# program text or a statement may make them write (`-delete`, `print >`, `psql -c "$(cat f)"`).
ARGUMENT_JUDGED = frozenset({"curl", "wget", "gh", "date", "redis-cli", *WRITING_OPTIONS}).union(
    AWK_PROGRAMS, inner_commands.CARRIERS, cloud_clis.CLIS
) - {"kubectl", "helm"}
VALUED_OPTIONS = frozenset(
    "-n -f -p -c -V -H --namespace --context --kubeconfig --cluster --file --project-name "  # noqa: SIM905
    "--env-file --profile --host -A --app".split()
)
# git's own options before its subcommand that take a value (`-C dir`, `-c key=value`).
GIT_VALUED_OPTIONS = frozenset({"-C", "-c"})
SAFE_REDIRECTS = (
    *("2>&1", "1>&2", ">&2", "2>/dev/null", ">/dev/null", "&>/dev/null", "1>/dev/null"),
    *("> /dev/null", "2> /dev/null", "&> /dev/null"),
)
GROUP_WORDS = frozenset({"{", "}"})
# Programs that print what the command tells them, or nothing, not what the world is; and
# the words that close a loop or a branch (`for ...; do ...; done`), whose body printed last.
SAYING = frozenset(
    "echo printf true false : exit seq date pwd cd test [ [[ done fi esac".split()  # noqa: SIM905
)
# Words that make a command a wait for something else to finish.
WAIT_PROGRAMS = frozenset({"sleep", "wait", "watch"})
WAIT_SUBCOMMANDS = frozenset({"wait", "watch"})
WAIT_OPTIONS = ("--watch", "--wait")
# Subcommands that watch until their work is done (`kubectl -n api rollout status`).
WAIT_PAIRS = (["rollout", "status"],)
# Verbs among a command's first words, options aside, that make a poll act (`helm upgrade
# --wait`, `sleep 10 && git add`): a probe after a wait (`pg_isready`, `kubectl exec ... curl`)
# only looks.
ACTING_VERBS = frozenset(
    "upgrade install up apply deploy create sync "  # noqa: SIM905
    "add require update commit push publish upload".split()
)
ACTING_WORDS = 4
# Verbs that bring a service up again or anew (`systemctl restart`, `docker compose up`,
# `kubectl rollout restart`, `make redeploy`): a look after one checks that it took.
RESTARTING_VERBS = frozenset(
    "restart start reload up recreate rollout deploy redeploy".split()  # noqa: SIM905
)
# A command is read word by word, simple command by simple command; one longer than this, or
# of more simple commands, is not read at all (a change, not a wait: see the module's
# docstring), so a megabyte command costs the guard no more than an ordinary one.
COMMAND_CHARS = 16 * 1024
MAX_SEGMENTS = 64
MAX_CARRIED = 4  # commands carried in one another (`ssh a ssh b sudo ...`) read at most


def command_of(call: ToolCall) -> str | None:
    if call.name != BASH or not isinstance(call.input, dict):
        return None
    command = call.input.get("command")
    return command if isinstance(command, str) and len(command) <= COMMAND_CHARS else None


def may_change_world(call: ToolCall) -> bool:
    """The call may have changed files or repository state (Edit/Write excluded: see above)."""
    if call.name in QUIET_TOOLS or call.name in EDIT_TOOLS:
        return False
    if call.name == BASH:
        command = command_of(call)
        return command is None or not is_read_only_command(command)
    if call.name.startswith("mcp__"):
        return not _mcp_reads(call.name)
    return True  # NotebookEdit, and any tool we do not know


def _mcp_reads(tool_name: str) -> bool:
    action = tool_name.rsplit("__", 1)[-1].lower().replace("-", "_")
    words = [w for w in action.split("_") if w]
    return bool(words) and words[0] in MCP_READ_WORDS


def without_safe_redirects(command: str) -> str:
    """`command` with its harmless redirects (`2>&1`, `> /dev/null`, ...) blanked out."""
    text = command
    for safe in SAFE_REDIRECTS:
        text = text.replace(safe, " ")
    return text


def harmless(command: str) -> str | None:
    """`command` `without_safe_redirects`, a substitution's output one word (`shell_words`);
    None when it writes through another redirect or a substitution does more than read."""
    found = shell_words.substitutions(without_safe_redirects(command))
    if found is None or not all(is_read_only_command(inner) for inner in found[1]):
        return None
    text = found[0]
    bare = shell_words.outside_quotes(text)
    if bare is None or ">" in bare:
        return None
    code = shell_words.outside_quotes(text, double=False) or ""
    if "$(" in code or "`" in code:
        return None
    return text


_SEGMENTS: dict[str, tuple[list[list[str]] | None]] = shell_words.new_memo()


def segments(command: str) -> list[list[str]] | None:
    """The simple commands of `command` as the shell splits their words (`shell_words`), the
    variables set for each and a group's braces aside; None when it is not `harmless`, leaves
    a quote open, or has more than `MAX_SEGMENTS` of them (too many to read)."""
    hit = _SEGMENTS.get(command)
    if hit:
        return hit[0]
    return shell_words.remembered(_SEGMENTS, command, _segments(command))


def _segments(command: str) -> list[list[str]] | None:
    text = harmless(command)
    split = shell_words.commands(text) if text is not None else None
    if split is None or len(split) > MAX_SEGMENTS:
        return None
    return _simple(split)


def _simple(split: list[list[str]]) -> list[list[str]]:
    """The commands `split` runs: a group's braces and `VAR=value` prefixes aside."""
    found = []
    for words in split:
        first = 0
        while first < len(words) and (
            words[first] in GROUP_WORDS
            or ("=" in words[first] and not words[first].startswith("="))
        ):
            first += 1
        if first < len(words) and not words[first].startswith("#"):
            found.append(words[first:])
    return found


def is_read_only_command(command: str, carried: int = 0) -> bool:
    """`carried`: how many commands carry this one (`ssh host 'sudo ...'`)."""
    parts = segments(command)
    return parts is not None and all(reads(words, carried) for words in parts)


def unwrap(words: list[str]) -> list[str]:
    """The command a wrapper (`timeout 60 ...`, `env X=1 ...`), a keyword (`do ...`) or a
    variable set for it (`LC_ALL=C ...`) runs. Walked by index and sliced once: a command of
    many wrappers costs its length, no more."""
    first, count = 0, len(words)
    while first < count and (
        words[first] in LEADING_KEYWORDS or ("=" in words[first] and words[first][0] != "=")
    ):
        first += 1
    while first < count and program_name(words[first]) in WRAPPERS:
        first += 1
        while first < count and (
            words[first].startswith("-")
            or "=" in words[first]
            or words[first].rstrip("smhd").replace(".", "").isdigit()
        ):
            first += 1
    return words[first:] if first else words


def program_name(word: str) -> str:
    """The program a command word runs, without its directory (`/usr/bin/grep`: `grep`)."""
    return word.rsplit("/", 1)[-1]


def reads(words: list[str], carried: int = 0) -> bool:
    """The simple command `words` only reads; `carried`: how many commands carry it (`docker
    exec`, `ssh`, `sudo`), read no deeper than `MAX_CARRIED`."""
    if carried > MAX_CARRIED:
        return False
    words = unwrap(words)
    if not words:
        return True
    program = program_name(words[0])
    if program in ARGUMENT_JUDGED and any(shell_words.SUBSTITUTED in w for w in words[1:]):
        return False  # what a substitution prints may be the option that writes (`-delete`)
    if program == "git":
        return _git_reads(words[1:])
    if program == "gh":
        if len(words) > 1 and words[1] == "api":
            return reading_commands.gh_api_reads(words[2:])
        return len(words) >= 3 and words[2] in GH_READ_ONLY
    if (len(words) == 2 and words[1] in ONLY_ASKS) or _asks_help(program, words):
        return True
    if program in PYTHONS and len(words) > 2 and words[1] == "-m":
        return _module_reads(words[2:], carried)
    if words[1:] == ["-v"] and program in VERSION_V:
        return True
    if words[0].startswith(("./", "../")):
        return False  # the project's own script (`./host start`), whatever its name
    if program in READ_ONLY_SUBCOMMANDS:
        return _subcommand_reads(program, words[1:], carried)
    if program in ("curl", "wget"):
        return reading_commands.fetch_reads(program, words[1:])
    if program == "date":
        return reading_commands.date_reads(words[1:])
    if program == "redis-cli":
        args = words[1:]
        return inner_commands.redis_reads(args, subcommand_at(args, inner_commands.REDIS_VALUED))
    if program in cloud_clis.CLIS:
        return cloud_clis.reads(program, words[1:])
    if program in inner_commands.CARRIERS:
        return _carried_reads(program, words[1:], carried + 1)
    if program in AWK_PROGRAMS:
        return not awk_writes(words[1:])
    if program not in READ_ONLY_PROGRAMS:
        return False
    return not _writes(program, words[1:])


def _asks_help(program: str, words: list[str]) -> bool:
    """The command ends asking its program for its help (`python tool.py --help`, `terraform
    apply --help`): it prints that and stops. Not after `--`, nor to a program that may pass the
    word on (`HELP_PASSED`)."""
    return words[-1] == HELP and "--" not in words and program not in HELP_PASSED


def _module_reads(words: list[str], carried: int) -> bool:
    """Python's module `words[0]`, run with the rest, only reads: `pip` as the program `pip`
    does, `json.tool` given at most one file (its input; a second is where it writes), its
    options and `--indent`'s value aside."""
    if words[0] == "json.tool":
        files = [
            w for at, w in enumerate(words[1:], 1) if w[:1] != "-" and words[at - 1] != "--indent"
        ]
        return len(files) <= 1
    return words[0] == "pip" and reads(words, carried)


def _carried_reads(program: str, args: list[str], carried: int) -> bool:
    """The command `program ARGS` carries only reads (`inner_commands`)."""
    if program == "sudo":
        inner = inner_commands.after_sudo(args)
        return inner is not None and reads(inner, carried)
    if program == "ssh":
        remote = inner_commands.over_ssh(args)
        return remote is not None and is_read_only_command(remote[1], carried)
    if program in ("source", "."):
        return inner_commands.sets_environment(args)
    return inner_commands.sql_reads(program, args)


def _subcommand_reads(program: str, args: list[str], carried: int = 0) -> bool:
    """`program ARGS` runs a subcommand that only reports (or, for a group such as `kubectl
    rollout`, one of its reporting subcommands: `status`, not `restart`)."""
    at = subcommand_at(args)
    if program == "docker" and args[at : at + 1] == ["compose"]:
        program, args = "docker-compose", args[at + 1 :]
        at = subcommand_at(args)
    if at >= len(args):
        return False
    if args[at] == "exec" and program in inner_commands.EXECUTING:
        rest = args[at + 1 :]
        inner = inner_commands.carried(
            program, rest, subcommand_at(rest, inner_commands.EXEC_VALUED)
        )
        return inner is not None and reads(inner, carried + 1)
    listing = LISTING.get(program, {}).get(args[at])
    if listing is not None:
        reporting = at + 1 < len(args) and args[at + 1] in listing
    else:
        reporting = args[at] in READ_ONLY_SUBCOMMANDS[program]
    return reporting and not _writes(program, args)


def _writes(program: str, args: list[str]) -> bool:
    """An option among `args` makes the reading `program` write (`WRITING_OPTIONS`)."""
    writing = WRITING_OPTIONS.get(program, ())
    return bool(writing) and any(arg.startswith(writing) for arg in args)


def awk_writes(args: list[str]) -> bool:
    """An awk program among `args` writes a file or runs a command."""
    for arg in args:
        printing = arg.find("print")
        if "system(" in arg or (printing >= 0 and any(c in arg[printing:] for c in ">|")):
            return True
    return False


def subcommand_at(args: list[str], valued: frozenset[str] = VALUED_OPTIONS) -> int:
    """Where the subcommand is in a program's `args`, past the options before it (`valued`:
    those that take the next word)."""
    at = 0
    while at < len(args) and args[at].startswith("-"):
        at += 2 if args[at] in valued else 1
    return at


def subcommand_of(program: str, args: list[str]) -> int:
    """Where `program`'s subcommand is in its `args` (`subcommand_at`), past git's own options
    that take a value (`-C dir`) or another program's (`-n prod`)."""
    return subcommand_at(args, GIT_VALUED_OPTIONS if program == "git" else VALUED_OPTIONS)


def git_sub(args: list[str]) -> list[str]:
    """The subcommand of `git ARGS` and what follows it."""
    return args[subcommand_at(args, GIT_VALUED_OPTIONS) :]


def _git_reads(args: list[str]) -> bool:
    sub, then = [*git_sub(args)[:2], "", ""][:2]
    if not sub or sub in GIT_READ_ONLY:
        return True
    allowed = GIT_LISTING.get(sub)
    return allowed is not None and then in allowed


def is_wait(call: ToolCall) -> bool:
    """The call waits on work running elsewhere: a sleep or watch, or a status tool."""
    if call.name in STATUS_TOOLS:
        return True
    command = command_of(call)
    if command is None:
        return False
    parts = segments(command) or [command.split()]
    return any(_waits(unwrap(words)) for words in parts)


def _waits(words: list[str]) -> bool:
    """The simple command `words` waits: `sleep`, `watch`, a `wait` or `watch` subcommand, a
    `--wait`/`--watch` option, `kubectl rollout status`."""
    if not words:
        return False
    if program_name(words[0]) in WAIT_PROGRAMS:
        return True
    args = words[1:]
    at = subcommand_at(args)
    return (
        any(w in WAIT_SUBCOMMANDS for w in [*args[:2], *args[at : at + 1]])
        or any(w.startswith(WAIT_OPTIONS) for w in args)
        or args[at : at + 2] in WAIT_PAIRS
    )


def acts(call: ToolCall) -> bool:
    """Besides waiting, the call acts: a change after a wait (`sleep 10 && git add`), or one
    that starts something and waits for it (`helm upgrade --wait`, `docker compose -f x.yml up
    --wait`), by one of `ACTING_VERBS` among its first words. A probe after a wait
    (`sleep 10 && pg_isready`) or a script that only waits (`wait-for-it.sh --wait`) does not."""
    command = command_of(call)
    for words in (segments(command) if command is not None else None) or ():
        words = unwrap(words)
        if ACTING_VERBS.intersection(_first_verbs(words)) and not reads(words):
            return True
    return False


def checked_restart(call: ToolCall) -> str:
    """What a command ran before the look it ends on, when that brought a service up again or
    anew (one of `RESTARTING_VERBS` among a command's first words), as words, commands apart
    by ` ; ` (`docker compose up -d --build api && sleep 4 && curl -s localhost:8080/version`:
    `docker compose up -d --build api ; sleep 4`); "" otherwise. The look is a pipeline of its
    own that only reads, neither waits nor says what it is told. Not `make install && echo
    done`, nor `npm install | tail`, whose `tail` reads what the install printed, nor a change
    of files checked by a status that does not answer for it (`git add a.py && git status`)."""
    command = command_of(call)
    parts = segments(command) if command is not None else None
    text = harmless(command) if command is not None and parts else None
    last = _simple(shell_words.last_pipeline(text) or []) if text is not None else []
    if not parts or not last:
        return ""
    looks = [unwrap(w) for w in last]
    if not looks[0] or program_name(looks[0][0]) in SAYING:
        return ""
    if not all(reads(w) and not _waits(w) for w in looks):
        return ""
    # The last pipeline's commands are the last of all the command's (`segments`).
    before = [unwrap(w) for w in parts[: len(parts) - len(last)]]
    restarts = any(RESTARTING_VERBS.intersection(_first_verbs(w)) for w in before)
    return " ; ".join(" ".join(w) for w in before) if restarts else ""


def _first_verbs(words: list[str]) -> list[str]:
    return [w for w in words[1:] if not w.startswith("-")][:ACTING_WORDS]


def is_poll(call: ToolCall) -> bool:
    """A shell call that waits before or while it looks (`sleep 30; gh run view`, `watch`,
    `--wait`, an `until` loop with a sleep, `gh run watch`): repeating it is how one waits."""
    return call.name == BASH and is_wait(call)
