"""How a command ended, when the harness's report does not say it plainly: what the staged
rules (`stuck`) read of a Bash result (`as_reported`).

- A status the command printed of itself. A command often ends with `; echo "exit=$?"` so
  that its status shows; the shell then exits 0 and the harness reports a completed call,
  though the command before the echo failed. It is read as the failure the harness would have
  reported without the echo (`Exit code 2`, then what the command printed), also when printed
  by `printf`, kept in a variable first (`rc=$?; echo "rc=$rc"`) or inside a shell's script
  (`bash -c 'make; echo $?'`). Only a status the echo's own line shows is read, and only
  from a command that may change the world: a read-only look's status is its answer (`diff`
  exits 1 when the files differ, `grep` when nothing matched). A status printed in a loop,
  one per pass, is left as it is.
- A command that did not finish in time (`hung`): killed by the harness at its timeout
  (`Exit code 143` and its own line: a command starting with `sleep`), moved to the background
  at its timeout (any other: the result names a new task each time; not one the user moved
  there), or killed by `timeout` (status 124, reported or printed). However it was cut short,
  it reads as one failure of the program and subcommand it ran, with what it printed before:
  a commit that hangs is the same failure under every spelling, and a build and a test run
  that each outlive their timeout are two. Its task completing later makes that attempt no
  failure (`hangs`); its failing, or being stopped, does not.
- A fetch the server answered with an error (`curl` exits 0 on a 502): the failure of that
  request (`served`).
- A failure a filter hid (`hidden_failure`). `python train.py 2>&1 | tail -3` exits with `tail`'s
  status, 0, whatever the training did; when what is left of its print still holds a line
  that reports a failure (`failure_lines`: `Error: ...`, `BUILD FAILED`, `3 failed,`,
  `torch.OutOfMemoryError: ...`), the run failed, as the harness would have said without the
  filter. Only for a command that may change the world: a look's print (files, logs here or
  over `ssh`, a grep for errors) tells of errors, it does not fail.
"""

from __future__ import annotations

from arcguard.core.loop_guard import background
from arcguard.core.loop_guard import failure_lines
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import served
from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import shell_words
from arcguard.core.loop_guard import tool_effects
from arcguard.core.tool_call import ToolResult


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.tool_call import ToolCall

# What stands for the last exit status in an echo's words.
PIPE_STATUS = "${PIPESTATUS"  # a pipeline member's status
STATUS_WORDS = ("$?", "${?}", PIPE_STATUS)
PRINTERS = frozenset({"echo", "printf"})  # the commands that print a status
EXIT_LINE = "Exit code "  # how the harness opens a failed command's report
MAX_STATUS = 255
TIMEOUT_STATUS = 124  # `timeout`'s status for a command it killed
TIMEOUT_PROGRAMS = frozenset({"timeout", "gtimeout"})
OUTPUT_KEYS = ("stdout", "stderr")  # a Bash report's output, an echo's line among the first
ASKED_BACKGROUND = "run_in_background"  # the Bash parameter that asks for the background
# A Bash report's marks of a command moved to the background by the user, not its timeout.
MOVED_OTHERWISE = ("backgroundedByUser", "backgroundedToDeliverMessage")
# How the harness says it moved a command to the background, newer and older releases.
MOVED = ("Command did not complete within its", "Command running in background with ID")
# The line a command that did not finish in time reads as, before its program.
HUNG = "Did not finish in time"
# Programs that run the script they are given: the script is what ran (`sh ./hang`).
SHELLS = frozenset({"sh", "bash", "zsh", "dash"})
# Programs that run the script file they are given first: `python manage.py migrate` runs
# `manage.py`, whose subcommand is `migrate`.
INTERPRETERS = frozenset({"python", "python3", "node", "ruby", "perl", "php", "bun", "deno"})
# Subcommands that run, or group, what the next word names (`npm run build`, `docker compose up`).
RUNNERS = frozenset({"run", "exec", "x", "dlx", "compose"})
ALIASES = {"i": "install"}  # `npm i` is `npm install`
COMPOSE = "compose"  # the runner that takes options of its own before what it runs
AFTER_FILTER = ";&\n()`"  # what runs something after a filter, or ends a subshell around it
# Looks at logs, here or on another host: the errors they print are what they read.
LOG_WORDS = frozenset({"logs", "logging", "log", "journalctl", "ssh"})
# Programs that are not what did not finish: they print, wait or filter another's output.
NOT_RUNS = tool_effects.SAYING | tool_effects.WAIT_PROGRAMS | shape.FILTERS


def as_reported(call: ToolCall, result: ToolResult) -> ToolResult:
    """`result` as the staged rules read it: a printed non-zero status as the failure it
    reports (`printed`), and a command that did not finish in time as one failure (`HUNG`)."""
    command = tool_effects.command_of(call)
    if command is None:
        return result
    if result.failed:
        error = result.error if isinstance(result.error, str) else ""
        if opkey.is_harness_timeout(error):
            return hung(command, "")
        code, _, rest = error.partition("\n")
        timed = code == f"{EXIT_LINE}{TIMEOUT_STATUS}" and _timed(command)
        return hung(command, rest) if timed else result
    if moved_to_background(call, result):
        return hung(command, "")
    text = shape.result_text(result)
    failure = served.as_failure(command, text) or hidden_failure(command, text)
    if failure is not None:
        return ToolResult(failed=True, error=failure, duration_ms=result.duration_ms)
    if not any(word in command for word in STATUS_WORDS):
        return result
    command = _script(command)
    text, stderr = _printed_text(result)
    found = printed(command, text)
    if found is None or found[0] == 0:
        return result
    if tool_effects.is_read_only_command(command):
        return result
    status, line = found
    lines = text.splitlines()
    rest = "\n".join([*lines[:line], *lines[line + 1 :], stderr]).strip("\n")
    if status == TIMEOUT_STATUS and _timed(command):
        return hung(command, rest)
    error = f"{EXIT_LINE}{status}\n{rest}" if rest else f"{EXIT_LINE}{status}"
    return ToolResult(failed=True, error=error, duration_ms=result.duration_ms)


def hidden_failure(command: str, text: str) -> str | None:
    """The failure a filter at the end of `command` hid (`| tail -3`, `| grep -E ...`), as the
    harness would have reported it, from what the filter let through (`text`); None when there
    is no such filter (`filtered`), the command only looks (at files or at logs), or no line of
    its print reports a failure (`failure_lines`)."""
    if not filtered(command) or tool_effects.is_read_only_command(command):
        return None
    if any(word in LOG_WORDS for word in command.lower().split()):
        return None
    if not failure_lines.reports_failure(text):
        return None
    return f"{EXIT_LINE}1\n{text}"


def filtered(command: str) -> bool:
    """`command` exits with the status of a filter at its end (`| tail -3`): whether what ran
    before it failed, its status does not say."""
    bare = shell_words.outside_quotes(command)  # `grep -E 'error|Found'` holds no pipe
    head, bar, last = (bare or "").rpartition("|")
    if not bar or head.endswith("|") or "pipefail" in command:
        return False
    if any(c in last for c in AFTER_FILTER):
        return False  # something runs after the filter (`| tail -3; echo $?`): its status
    words = last.split()
    return bool(words) and tool_effects.program_name(words[0]) in shape.FILTERS


def moved_to_background(call: ToolCall, result: ToolResult) -> bool:
    """The harness moved the command to the background at its timeout: the call did not ask
    to run there, nor did the user move it (or a message the user sent while it ran), and its
    result names the task it became."""
    if call.name != opkey.BASH or not isinstance(call.input, dict) or result.failed:
        return False
    if call.input.get(ASKED_BACKGROUND) is True:
        return False
    response = result.response
    if isinstance(response, dict):
        if any(response.get(key) is True for key in MOVED_OTHERWISE):
            return False
        return background.launched_by(response, call.id, call.name) is not None
    return isinstance(response, str) and response.startswith(MOVED)


def _printed_text(result: ToolResult) -> tuple[str, str]:
    """What the command printed where an echo prints (its standard output, when the report
    keeps it apart), and the rest: a status is never read from a warning's line."""
    response = result.response
    if isinstance(response, dict):
        stdout, stderr = (response.get(key) for key in OUTPUT_KEYS)
        if isinstance(stdout, str):
            return stdout, stderr if isinstance(stderr, str) else ""
    return shape.result_text(result), ""


def hung(command: str, printed: str) -> ToolResult:
    """The failure of a command that did not finish in time, after what it printed."""
    head = " ".join(_head(command))
    line = f"{HUNG}: {head}" if head else HUNG
    return ToolResult(failed=True, error=f"{printed.strip()}\n{line}" if printed.strip() else line)


def without_hang(text: str) -> str:
    """A failure's text without the line `hung` gives it."""
    return "\n".join(line for line in text.splitlines() if not line.startswith(HUNG))


def _head(command: str) -> list[str]:
    """The program that did not finish and its subcommand (`git commit`): the one run under
    `timeout`, else the last that neither only prints, waits nor filters output (`rm -f
    .git/index.lock; git commit`, `npm test | tail`); a shell's script for the shell."""
    parts = tool_effects.segments(command) or [part.split() for part in command.split("|")]
    runs = [
        (_under_timeout(part), run)
        for part in parts
        if (run := tool_effects.unwrap(part)) and tool_effects.program_name(run[0]) not in NOT_RUNS
    ]
    if not runs:
        return []
    run = ([run for timed, run in runs if timed] or [run for _, run in runs])[-1]
    program, args = tool_effects.program_name(run[0]), run[1:]
    script = args[0] if args and not args[0].startswith("-") else ""
    if script and (program in SHELLS or (program in INTERPRETERS and _is_script(script))):
        program, args = tool_effects.program_name(script), args[1:]
    at = tool_effects.subcommand_of(program, args)
    sub = [ALIASES.get(word, word) for word in args[at : at + 1] if _names_a_command(word)]
    if sub and sub[0] in RUNNERS:
        # `npm run build` and `npm run test` are two commands: a runner's subcommand names
        # none, what it runs does (past compose's own options: `docker compose -p x up`).
        rest = args[at + 1 :]
        skip = tool_effects.subcommand_at(rest) if sub[0] == COMPOSE else 0
        sub += [word for word in rest[skip : skip + 1] if _names_a_command(word)]
    return [program, *sub]


def _names_a_command(word: str) -> bool:
    """Not an option, a path or a setting (`FOO=bar`): a subcommand, or what a runner runs."""
    return "/" not in word and "=" not in word and not word.startswith("-")


def _is_script(word: str) -> bool:
    return word.rpartition(".")[2] in shape.FILE_EXTENSIONS


def _timed(command: str) -> bool:
    """The command runs something under `timeout`."""
    return any(_under_timeout(part) for part in tool_effects.segments(command) or [])


def _under_timeout(part: list[str]) -> bool:
    return bool(part) and tool_effects.program_name(part[0]) in TIMEOUT_PROGRAMS


def printed(command: str, text: str) -> tuple[int, int] | None:
    """The status one `echo` of `command` printed, and the index of its line in `text`: the
    last line that opens with what the echo prints before the status, then the status. An echo
    that prints nothing before it (`echo $?`) must be the command's last, its line the output's
    last. None when there is no such echo, more than one, no command before it, or a loop."""
    parts = tool_effects.segments(command)
    if not parts or any(word in tool_effects.LOOP_WORDS for part in parts for word in part):
        return None
    kept = _kept_in(command)
    marks = (*STATUS_WORDS, *kept)
    echoes = [at for at, part in enumerate(parts) if _prints_status(part, marks)]
    if len(echoes) != 1 or echoes[0] == 0:
        return None
    at = echoes[0]
    before = _said_before(parts[at], marks)
    if before is None or (not before and at != len(parts) - 1):
        return None
    # Whose status it is: the command before the print, or before the variable was set (a
    # pipeline's member for `PIPESTATUS`: not known here). A look's status is its answer (`npm
    # ci; npm ls left-pad; rc=$?`).
    shown = [mark for mark in kept if _mentions(parts[at], (mark,))]
    whose = kept[shown[0]] if shown else parts[at - 1]
    if not whose:
        return None  # kept before any command: the status of what ran before this call
    piped = whose == [PIPE_STATUS] or any(PIPE_STATUS in word for word in parts[at])
    if not piped and tool_effects.is_read_only_command(" ".join(whose)):
        return None
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return None  # the print went elsewhere (`echo $? > rc`)
    # With nothing printed before it, only the last line can be told to be the echo's.
    for index in range(len(lines) - 1, -1 if before else len(lines) - 2, -1):
        line = lines[index].strip()
        if line.startswith(before):
            status = _leading_number(line[len(before) :].lstrip())
            return None if status is None else (status, index)
    return None


def _prints_status(part: list[str], marks: tuple[str, ...]) -> bool:
    return bool(part) and part[0] in PRINTERS and _mentions(part[1:], marks)


def _mentions(words: list[str], marks: tuple[str, ...]) -> bool:
    return any(_mention_at(word, mark) >= 0 for word in words for mark in marks)


def _mention_at(text: str, mark: str) -> int:
    """Where `text` shows `mark`: a variable's `$rc` not as the start of a longer name
    (`$rcfile`); -1 if nowhere."""
    at = text.find(mark)
    while at >= 0:
        after = text[at + len(mark) : at + len(mark) + 1]
        if mark in STATUS_WORDS or mark.startswith("${") or not (after.isalnum() or after == "_"):
            return at
        at = text.find(mark, at + 1)
    return -1


def _said_before(part: list[str], marks: tuple[str, ...]) -> str | None:
    """What a status print shows before the status: an echo's words up to it, a `printf`
    format's text up to its one conversion when the status is its one argument. None when a
    substitution comes first, or a format is not that simple."""
    words = [word for word in part[1:] if not word.startswith("-")]
    if part[0] == "printf":
        form = words[0] if words else ""
        if form.count("%") != 1 or len(words) != 2 or not _mentions(words[1:], marks):
            return None
        said = form.replace("\\n", " ")
        return said[: said.find("%")].strip()
    said = " ".join(words)
    first = min((at for m in marks if (at := _mention_at(said, m)) >= 0), default=-1)
    before = said[:first].strip()
    return None if first < 0 or "$" in before or "`" in before else before


def _kept_in(command: str) -> dict[str, list[str]]:
    """How the command prints a status it kept in a variable first (`rc=$?; echo "rc=$rc"`:
    `$rc` and `${rc}`), each with the words of the command whose status it kept."""
    kept: dict[str, list[str]] = {}
    for word in command.replace(";", " ").replace("&&", " ").split():
        name, equals, value = word.partition("=")
        if equals and name.isidentifier() and value.strip("'\"").startswith(STATUS_WORDS):
            before = tool_effects.segments(command[: command.find(word)]) or [[]]
            whose = [PIPE_STATUS] if PIPE_STATUS in value else before[-1]
            kept.update({f"${name}": whose, f"${{{name}}}": whose})
    return kept


def _script(command: str) -> str:
    """The script a shell is given to run in single quotes (`bash -c 'make; echo $?'`), else
    the command: in double quotes the calling shell puts its own `$?` in before it runs."""
    parts = tool_effects.segments(command)
    if parts and len(parts) == 1 and len(parts[0]) == 3:
        shell, flag, script = parts[0]
        if tool_effects.program_name(shell) in SHELLS and flag == "-c" and f"'{script}'" in command:
            return script
    return command


def _leading_number(text: str) -> int | None:
    digits = ""
    for char in text:
        if not char.isascii() or not char.isdigit():
            break
        digits += char
    if not digits or (len(digits) < len(text) and text[len(digits)].isalnum()):
        return None
    status = int(digits)
    return status if status <= MAX_STATUS else None
