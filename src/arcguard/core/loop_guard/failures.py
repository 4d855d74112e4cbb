"""Recent failures, and the results that show one of them again.

A failed call's cause (`shape.cause_pairs`: its clauses, read as a cause is) is kept for a few
turns, with the numbers and words its call named. A later command's result that shows one again
(`shown`) is that failure seen again, whatever its exit code: one showing every clause, or,
from another program with nothing changed since, a cause it gave (`cause_pieces`), or from
any program a cause outside the code it named (`known_causes`: a full disk); one showing
only clauses of it, with no file written since; one alike to it (most clauses of the shorter
of the two, and the failure's last clause, or the one before when a failing run's closing note
moved), with nothing changed since and naming nothing new that only its call asked for. A
failure from the command that first failed that way, aimed at another target, counts for that
target (`aimed`): a sweep's alike answers are findings. So does a completed answer from a
reading command that asks another target what a command that brought it asked (`swept`).
Pure functions of the track's `Stuck` record.
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core.loop_guard import cloud_clis
from arcguard.core.loop_guard import command_words
from arcguard.core.loop_guard import exit_status
from arcguard.core.loop_guard import failure_lines
from arcguard.core.loop_guard import inner_commands
from arcguard.core.loop_guard import known_causes
from arcguard.core.loop_guard import reading_commands
from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import tool_effects
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from arcguard.core.loop_records import Stuck
    from arcguard.core.tool_call import ToolCall


# Turns after which a failure not seen again is no longer the one a result may show again.
FAIL_MEMORY_TURNS = 10
# Failures whose causes are kept to recognise: one retried among others (`kill` failing
# between two starts that fail on the port) is still recognised.
MAX_CAUSES = 4
MAX_TARGETS = 8  # numbers kept of those a failed call named
# Words of a command that may differ from the one that first failed for it to be the same
# command aimed elsewhere (`us-east-1`: `us`, `east`).
MAX_SWAPS = 2
MAX_LOOKS = 16  # completed results whose asking commands are kept (`swept`): a run's worth
MAX_ASKED = 4  # commands kept for each: the first and the latest
MAX_TOKENS = 32  # a longer command is not compared word for word
COUNT = "#"  # a count or a duration in a command: how much it asks, not of what
ASKS = "-"  # marks a command's words that say what it asks: its program, subcommand, options
# Programs whose words name no target of a look: what they print is what they are told, or
# they wait.
UNASKED = tool_effects.SAYING | tool_effects.WAIT_PROGRAMS
# Programs whose first argument is a subcommand, not a target.
SUBCOMMANDS = frozenset({*reading_commands.READ_ONLY_SUBCOMMANDS, "git", "gh"})
AT = "@"  # between a failure and the target its run is counted at (`aimed`)
# The share of the shorter failure's clauses that two failures must have in common, and
# how many at least, ending the same way, to read as one failure when nothing changed between:
# one tool's `-v` adds lines, a filter keeps a few, and one shared closing line (go's `FAIL`)
# is not enough.
ALIKE = 1 / 2
ALIKE_ELSEWHERE = 2 / 3  # through another command, whose own lines may be shared too
MIN_SHARED = 2
# A piece of a line between `: ` with this many letters names a cause on its own, whichever
# program printed it; a failure's last few such pieces are kept.
CAUSE_CLAUSE_LETTERS = 24
MAX_PIECES = 12
# A line of numbers and at most this many other words is a tally (`1 failed, 5 passed, 2
# warnings in 0.35s`, `Found 4 errors in 4 files.`), not a cause.
TALLY_WORDS = 7


def shown(
    st: Stuck, turns: int, call: ToolCall, pairs: dict[str, str], pieces: list[str], *, failed: bool
) -> list[str]:
    """The recent failures (seen within `FAIL_MEMORY_TURNS` of `turns`) that a result of `call`
    with these cause pairs shows again (`_shows`), the latest first. `failed`: the call itself
    failed, not only a filter after it."""
    seen = _seen(pairs, call, pieces, failed=failed)
    targets = target_numbers(call)
    return [
        failure
        for failure in reversed(st.causes)
        if turns - st.cause_turns.get(failure, 0) <= FAIL_MEMORY_TURNS
        and st.causes[failure]
        # `curl :3001` refused is not `curl :3000` refused again; a full disk is a full disk
        # whatever numbers the call names (`known_causes.ANYWHERE`)
        and (
            not (targets and st.cause_targets.get(failure) not in (None, [], targets))
            or _known_anywhere(st, failure, seen)
        )
        and _shows(st, failure, seen)
    ]


@value
class Seen:
    """A result as `_shows` compares it, read once for every failure it is compared with."""

    lines: set[str]  # its cause clauses' digests (`shape.cause_pairs`)
    last: set[str]  # the last `shape.MAX_CAUSE_LINES` of them
    # By clause, the words its call asked for that it shows, even in a path (`named`), and
    # those of them its cause keeps, outside paths (`told`): only these did a failure that has
    # the clause show too.
    named: dict[str, set[str]]
    told: dict[str, set[str]]
    # Its call failed, and it ends with a tally (`_tally`), or with the clause `final`.
    tallied: bool = False
    final: str | None = None
    head: tuple[str, ...] = ()  # its call's program and subcommand (`command_words`)
    pieces: frozenset[str] = frozenset()  # the causes its lines give (`cause_pieces`)


def _seen(pairs: dict[str, str], call: ToolCall, pieces: list[str], *, failed: bool) -> Seen:
    command = tool_effects.command_of(call) or ""
    if not failed and any(map(known_causes.refused, pieces)) and not exit_status.filtered(command):
        pieces = [p for p in pieces if not known_causes.refused(p)]  # the act answered
    named_words = command_words.named_words(call)  # its program, subcommand, then what it asks
    asked = set(named_words[2:])
    shown = {d: asked.intersection(shape.words_of(line)) for d, line in pairs.items()}
    named = {d: words for d, words in shown.items() if words}
    told = {
        d: words.intersection(shape.words_of(shape.failure_text(pairs[d])))
        for d, words in named.items()
    }
    last = set(list(pairs)[-shape.MAX_CAUSE_LINES :])
    final = next(reversed(pairs), None) if failed else None
    tallied = final is not None and _tally(pairs[final])
    head = tuple(named_words[:2])
    return Seen(set(pairs), last, named, told, tallied, final, head, frozenset(pieces))


def _shows(st: Stuck, failure: str, seen: Seen) -> bool:
    """The result shows every clause of the failure (`lines`: its clauses' digests). Or it shows
    the failure's last clause and: only clauses of it (`| tail -8`), with no file written since;
    or most of them (`_alike`), with nothing changed since (no file written, no change answering
    something new) and naming nothing that only its own call asked for, even in a path (`tsc`
    failing alike in `packages/web` after `packages/api`: a triage of packages, not a retry).
    After a write, fewer errors are what it fixed; after an install, another missing module is
    what it did. A result with the failure's first clauses and not its last (a build's progress,
    then success) is not the failure, unless it failed closing where the failure closed but for
    its trailer: ending at the clause before it, or in a tally after that clause."""
    lines = st.causes[failure]
    if seen.lines.issuperset(lines) or _one_cause(st, failure, seen):
        return True
    if lines[-1] not in seen.lines:
        # A failing run's trailer moves with how it was started: a tally (`1 failed, 211
        # deselected` after `-k`, `1 failed` after a path), a wrapper's exit note (pnpm's
        # `ELIFECYCLE Command failed`, none from `vite build` run directly).
        before = lines[-2] if len(lines) > 1 else None
        closed = before in seen.lines and (seen.tallied or seen.final == before)
        return closed and _alike_since(st, failure, seen)
    if seen.lines <= set(lines):
        return st.wrote_turn < st.cause_turns.get(failure, 0)
    return _alike_since(st, failure, seen)


def _alike_since(st: Stuck, failure: str, seen: Seen) -> bool:
    """Most clauses alike, nothing changed since the failure, nothing new named."""
    lines = set(st.causes[failure])
    turn = st.cause_turns.get(failure, 0)
    same_command = tuple(st.cause_words.get(failure, ())[:2]) == seen.head
    if st.changed_turn >= turn or not _alike(lines, seen.last, same_command=same_command):
        return False
    return not _names_more(seen, lines, st.cause_words.get(failure, ()))


def _one_cause(st: Stuck, failure: str, seen: Seen) -> bool:
    """A cause the failure gave, given again: one cause surfacing through each tool that meets
    it. A piece of a line (`cause_pieces`) from another program with nothing changed since (a
    proxy's certificate under npm, pip, git and curl; a host name that does not resolve under
    psql and psycopg2); a cause outside the code (`known_causes`: a full disk, a server out of
    reach) from any program, however worded, with no file written since: a command that
    changed something (a reinstall, a refreshed kubeconfig) and left the disk full or the
    server out of reach did not move it. Only from a call that failed (a look at the failure's
    log tells it again), but for a platform's refusal: read only where a call acted on the
    platform, and where a filter after the act hid its status (`_seen`)."""
    shared = seen.pieces.intersection(st.cause_pieces.get(failure, ()))
    if seen.final is None and not any(known_causes.refused(piece) for piece in shared):
        return False
    turn = st.cause_turns.get(failure, 0)
    if st.wrote_turn < turn and any(known_causes.is_known(piece) for piece in shared):
        return True
    other = tuple(st.cause_words.get(failure, ())[:1]) != seen.head[:1]
    return bool(shared) and other and st.changed_turn < turn


def _known_anywhere(st: Stuck, failure: str, seen: Seen) -> bool:
    """The result and the failure name one cause outside the code met whatever a call aims at
    (`known_causes.any_target`): the target's numbers do not part them; all else `_shows` asks
    (no file written since) still holds."""
    shared = seen.pieces.intersection(st.cause_pieces.get(failure, ()))
    return any(known_causes.any_target(piece) for piece in shared)


def cause_pieces(text: str, call: ToolCall) -> list[str]:
    """Digests of the pieces between `: ` of a failure's lines that have one, read as a cause
    is, that are long enough to name a cause on their own (`self-signed certificate in
    certificate chain`, whether after `reason: `, `SSL certificate problem: ` or `error Error:
    `) and are no heading (`Traceback (most recent call last):`). A line without `: ` is no
    cause given for something (a test run's `platform linux -- Python 3.12` banner), nor is a
    warning's, nor what it quotes but a statement's head (`failure_lines.unquoted`), which
    names its target however short (`DELETE FROM users`). The last `MAX_PIECES`, then the
    causes outside the code it names (`known_causes`; a platform's refusal too when `call`
    acted through its client)."""
    if len(text) > shape.HEAD_CHARS + shape.TAIL_CHARS:
        text = text[-shape.TAIL_CHARS :]
    found: dict[str, None] = {}
    for line in map(failure_lines.unquoted, text.splitlines()):
        pieces = line.split(shape.CLAUSE_BREAK)
        if any(piece.endswith("Warning") for piece in pieces[:-1]):
            continue  # `DeprecationWarning: ...`: printed whatever fails, no cause
        for at, piece in enumerate(pieces if len(pieces) > 1 else ()):
            clean = shape.of_text(shape.failure_text(piece))
            head = at > 0 and failure_lines.echoed(pieces[at - 1], piece)
            enough = head or shape.letters(clean) >= CAUSE_CLAUSE_LETTERS
            if enough and not clean.rstrip().endswith(":"):
                digest = hashing.digest(clean)
                found.pop(digest, None)
                found[digest] = None
    refused = known_causes.acts_on_platform(call)
    return [*list(found)[-MAX_PIECES:], *known_causes.named(text, refused=refused)]


def _alike(lines: set[str], shown: set[str], *, same_command: bool) -> bool:
    """Most clauses of the two are the same (`ALIKE`, and at least `MIN_SHARED`): with nothing
    changed since the failure, what differs is the spelling (`--no-cache`, `flask db upgrade`
    for `alembic upgrade`) or noise (a judge's scores), not something an attempt moved. The
    same command (program and subcommand) may tell more or less of the failure (`-v` adds the
    passing tests, a narrower selection drops them): half of the shorter's clauses are enough.
    Another command needs two thirds: `yarn build` and `yarn lint` failing on two errors share
    yarn's own lines, not the failure."""
    shared = len(lines & shown)
    share = ALIKE if same_command else ALIKE_ELSEWHERE
    return shared >= MIN_SHARED and shared >= share * min(len(lines), len(shown))


def _names_more(seen: Seen, lines: set[str], words: Iterable[str]) -> bool:
    """The result names, in clauses the failure does not have among its last ones (those a
    failure is compared by: a clause far above, a build script's path, says nothing of the
    cause), something its call asked for that neither the failure's call nor the clauses the
    two share name: `-k test_tax` answering about `test_tax` after `-k test_total` is a
    triage; `-run TestParseDuration` answering about the test `./...` failed on is that
    failure narrowed."""
    known = set(words).union(*(told for d, told in seen.told.items() if d in lines))
    new = [named for d, named in seen.named.items() if d not in lines and d in seen.last]
    return any(not named <= known for named in new)


def target_numbers(call: ToolCall) -> list[str]:
    """The numbers naming the call's target (`shape.identity_numbers`), the first `MAX_TARGETS`."""
    return sorted(shape.identity_numbers(call))[:MAX_TARGETS]


def remember(
    st: Stuck, failure: str, call: ToolCall, lines: list[str], pieces: list[str], turn: int
) -> None:
    """Keep `failure`'s cause and targets as first seen, and its last turn seen (mutates `st`)."""
    causes, turns, targets, words = st.causes, st.cause_turns, st.cause_targets, st.cause_words
    # Assigned back: a record's default container is only kept once it is set.
    st.causes, st.cause_turns, st.cause_targets, st.cause_words = causes, turns, targets, words
    kept = st.cause_pieces  # set only once a failure gives a cause (`cause_pieces`)
    if failure not in causes:
        targets[failure] = target_numbers(call)
        words[failure] = command_words.named_words(call)
        if pieces:
            kept[failure] = pieces
            st.cause_pieces = kept
    causes[failure] = causes.pop(failure, []) or lines
    turns.pop(failure, None)
    turns[failure] = turn
    for old in list(causes)[:-MAX_CAUSES]:
        del causes[old]
        turns.pop(old, None)
        targets.pop(old, None)
        words.pop(old, None)
        kept.pop(old, None)


def join(st: Stuck, own: str, failure: str) -> None:
    """`own` was read as `failure`: so is its next sighting, even after a change (mutates `st`)."""
    st.cause_joined = _latest(st.cause_joined, own, failure)


def counted_in(st: Stuck, operation: str, key: str) -> None:
    """The operation's failure was counted in run `key` (mutates `st`)."""
    st.cause_ops = _latest(st.cause_ops, operation, key)


def _latest(kept: dict[str, str], key: str, value: str) -> dict[str, str]:
    """`kept` with `key` set to `value`, as its latest, and only its latest `2 * MAX_CAUSES`."""
    kept.pop(key, None)
    kept[key] = value
    for old in list(kept)[: -2 * MAX_CAUSES]:
        del kept[old]
    return kept


def aimed(st: Stuck, failure: str, call: ToolCall) -> str:
    """The run a failure from this call extends: the failure's own, unless the call is the one
    that first failed this way aimed at another target (`_swapped`). Then it is that target's
    run: answering alike for each target is what a sweep finds, not a retry, and only a target
    tried again counts."""
    swapped = _swapped(st.cause_words.get(failure) or [], call)
    return f"{failure}{AT}{hashing.digest(' '.join(swapped))}" if swapped else failure


def swept(st: Stuck, result: str, call: ToolCall) -> str:
    """The run a completed result seen again extends. A reading command that asks what one of
    the commands that brought it asked, of another target (`_retargeted`: `systemctl is-active
    redis` after `nginx`, the next endpoint, another namespace), is a sweep: the result counts
    in that target's run, as `aimed` counts a failure's, since a sweep's alike answers are
    findings. A target asked again counts in its own run; the first command that brought the
    result, and any other question, in the result's (mutates `st`)."""
    command = tool_effects.command_of(call)
    if command is None or not tool_effects.is_read_only_command(command):
        return result
    tokens = _tokens(tool_effects.segments(shape.observed_command(command)) or [])
    if not tokens:
        return result  # it names no target (`echo done`): nothing to compare
    looks = st.look_words
    st.look_words = looks  # kept in the record from now on
    asked = looks.pop(result, [])
    target = [AT, *tokens]  # kept so, a command is one of the sweep's targets
    if tokens in asked or not asked:
        kept = tokens  # the first command, or another question, asked again
    elif any(_retargeted(a[1:] if a[:1] == [AT] else a, tokens) for a in asked):
        kept = target
    else:
        kept = tokens  # another question, which brought nothing new either
    # The first command is kept, with the latest others: a sweep goes on from any of them.
    first = asked[0] if asked else kept
    others = [a for a in asked[1:] if a != kept] + ([kept] if kept != first else [])
    looks[result] = [first, *others[-(MAX_ASKED - 1) :]]
    for old in list(looks)[:-MAX_LOOKS]:
        del looks[old]
    return f"{result}{AT}{hashing.digest(' '.join(tokens))}" if kept == target else result


def retargets(first: list[str], tokens: list[str]) -> bool:
    """Whether the reading command whose words are `tokens` (`sweep_words`) asks what the one
    whose words were `first` asked, of another target: a sweep."""
    return bool(_retargeted(first, tokens))


def sweep_words(command: str) -> list[str]:
    """A reading command's words as a sweep compares them (`_tokens`)."""
    return _tokens(tool_effects.segments(shape.observed_command(command)) or [])


def _tokens(parts: list[list[str]], *, over_ssh: bool = True) -> list[str]:
    """A reading command's words as compared across calls, its output filters, what it echoes and
    its waits aside. Its program and subcommand (`kubectl get`), and an option's name (`-n`,
    `--context`), as `-` and a digest: what it asks. A count or a duration as `#` (`--tail=50` asks
    what `--tail=20` does). Any other word as a digest of what it names, a loopback address and a
    URL's scheme aside (`http://127.0.0.1:8080/x` names what `localhost:8080/x` does). An `ssh`
    command as its machine, then what it runs there, word by word (`over_ssh`; once: an `ssh` in
    that is words). At most `MAX_TOKENS` of them, else nothing."""
    tokens: list[str] = []
    for part in map(tool_effects.unwrap, parts):
        if not part or tool_effects.program_name(part[0]) in UNASKED:
            continue
        remote = _over_ssh(part) if over_ssh else None
        if remote is not None:  # what runs there, word by word, on that machine
            tokens += [ASKS + hashing.digest(part[0]), _token(remote[0]), *remote[1]]
            continue
        asks = _asking_words(part)
        tokens += [ASKS + hashing.digest(word) for word in part[:asks]]
        for word in part[asks:]:
            name, _, value = word.partition("=") if word.startswith("-") else ("", "", word)
            if name:
                tokens.append(ASKS + hashing.digest(name))
            if value or not name:
                tokens.append(_token(value))
    return tokens if len(tokens) <= MAX_TOKENS else []


def _over_ssh(part: list[str]) -> tuple[str, list[str]] | None:
    """The machine an `ssh` command goes to and its remote command's words (`_tokens`)."""
    if tool_effects.program_name(part[0]) != "ssh":
        return None
    remote = inner_commands.over_ssh(part[1:])
    inside = tool_effects.segments(remote[1]) if remote is not None else None
    # What runs there is read once: an `ssh` inside it is words like any other.
    return (remote[0], _tokens(inside, over_ssh=False)) if remote is not None and inside else None


def _asking_words(part: list[str]) -> int:
    """How many of a simple command's first words say what it asks: its program, then, for a
    program of subcommands, the subcommand (`kubectl get`, `systemctl is-active`), and for a
    cloud CLI its service too (`aws ec2 describe-instances`). `grep PATTERN` and `dig HOST`
    name a target at once."""
    program = tool_effects.program_name(part[0])
    words = 3 if program in cloud_clis.CLIS else 2 if program in SUBCOMMANDS else 1
    for at in range(1, min(words, len(part))):
        if part[at].startswith("-"):
            return at
    return min(words, len(part))


def _token(word: str) -> str:
    if not word:
        return ""
    if word.isdigit() or shape.is_duration(word):
        return COUNT
    return hashing.digest(command_words.host_aside(word))


def _retargeted(first: list[str], tokens: list[str]) -> list[str]:
    """The targets `tokens` swapped in for `first`'s: the same command word for word, its
    program, subcommand and options included, but for one or two other words."""
    if not first or len(first) != len(tokens):
        return []
    swapped = [b for a, b in zip(first, tokens, strict=True) if a != b]
    named = [t for t in swapped if t and t != COUNT and not t.startswith(ASKS)]
    if not 0 < len(swapped) <= MAX_SWAPS or len(named) != len(swapped):
        return []
    return swapped


def aimed_elsewhere(first: list[str], call: ToolCall) -> bool:
    """Whether `call` is the command whose words were `first` aimed at another target."""
    return bool(_swapped(first, call))


def _swapped(first: list[str], call: ToolCall) -> list[str]:
    """The words `call` swapped in for those of the command that first failed (`first`, its
    `command_words.named_words`), when it is that command aimed at another target: the same program
    and subcommand, the same words but for one or two swapped (`--region eu-west-1` for `us-east-1`,
    repo after repo). A swap of how it runs (`--browser-name=firefox-esr`) reads the same and is
    counted apart too: a retry counted late costs less than a sweep paused. Only words that read as
    names are targets: a commit retried under a new message (`-m "fix typing"`) is a retry."""
    words = command_words.named_words(call)
    if len(first) != len(words) or len(words) < 2 or first[:2] != words[:2]:
        return []
    swapped = [b for a, b in zip(first, words, strict=True) if a != b]
    if not 0 < len(swapped) <= MAX_SWAPS or not command_words.name_words(call).issuperset(swapped):
        return []
    return swapped


def _tally(line: str) -> bool:
    words = shape.words_of(line)
    counts = [word for word in words if word.isdigit()]
    return bool(counts) and len(words) - len(counts) <= TALLY_WORDS
