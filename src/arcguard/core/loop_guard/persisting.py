"""A failure that outlives what was tried against it.

The runs `stuck` counts start again at anything that may have moved the world: an edit to a
content a file never had, a reinstall, a cache cleared, a new answer from a one-off look. That
keeps them from counting work that goes somewhere. But a session that turns setting after
setting (a timeout raised four times, a rule switched off in one config file after another),
or rewrites code in one file after another, and respells its command (a flag added, a cache
cleared first) while the build prints the same failure each time goes nowhere either, and no
one of those runs sees it. This record does.

It keeps the last few failures seen (`Persist.failures`, as
`stuck` keys them, `failures.aimed`; or, printed again with other lines around the same
clauses that say what went wrong, by the same program not aimed at another target nor showing
a value its call names anew: `_spelt_again`) and
counts the failing attempts whose failure is one kept, its failing lines as printed before
(`Persist.again`). A failure whose failing lines moved (a count lower, another file failing)
is news: the count starts again. So is a new failure after a command that may have changed
the world answered; without one, a new failure (a check's other spelling, two failures taking
turns) neither counts nor ends the count. A failure right after an edit back to a content the
file had (a suspect ruled out and put back) is what the session expected: it neither counts
nor moves. Staged as a failure's run is (`stages`: one request for both, and the pause at as many
attempts whatever was edited between them). With settings edited, nothing counts until the
command was also run another way (`attempts`).

Fixes to code count too (`Persist.coded`): when the failure comes back printed as before after
an edit to a content a file never had, the edit did not reach what fails, and a fourth attempt
so is as telling as a fourth retry (a request rewritten in one file after another, each time
the same 422). Only a print the same as the last one (`Persist.whole`: its last lines, clock
values, sizes and a runner's random seed aside) shows that: a compiler's next error scrolled in
is what the edit did. Or one cut by another filter (`sliced`) showing the failing lines a print
showed, or more: `| grep Error` after `| tail -4` shows no more of the print whole, and what
it shows failed as before (fewer may be the fix's work: such an attempt neither counts nor
starts the count again). An edit that only turns values in place (`edited.turned`: `TTL =
3` to `4`, a flag, a quoted word) is a value tried, whose failure stands until the right one:
it counts as a setting does. Lines taken out of a file, the failure as before, then put back
were a suspect ruled out: that attempt does not count (`Persist.probe`). Fixes to code in one
or two files that an attempt shows aimed at the failure are paused for as retries are. Others
(spread over more files, made from the shell, or beside a failure the check does not ask about)
are asked about, never paused for (`fixes_aimed`): a failure left as it was may be one beside the
work.
One cause printed other ways is the same failure too (`same_cause`), whatever filter cut it,
whichever command printed it and whatever was edited since; fewer of its lines than its
spelling printed last is the fixes' work (news).
Fixes that go round count too (`_back_to`, `Persist.shown`): a failure back after another of the
same check, printing only lines one of its last few attempts printed, shows the fixes since
that print went round (a header made a client component, then a server one, then a client one
again, each rewrite new content). Once two failures, each printed otherwise, came back so, every
attempt since the round began counts (asked about, and paused for as other fixes are); values
turned in a file of settings count once one was put back. A change answered between starts
the prints kept over.
What starts it again is what shows the failure gone or changed what fails: other code checked
out (`_restarts`), the user's words (`stuck.heard`), or the program that failed completing
(not behind a filter whose status hid its own: `exit_status.filtered`). A failure read through
another filter is the same failure when its failing lines are some of those seen, or more
(`_printed_before`). A poll is left to the wait's own rule, and a refusal read only through a
filter that hid its status to the runs `stuck` counts (`_hidden`). Parallel copies in one
turn are one attempt, a repeat the guard refuses is one more (`refused`), and failures not
seen for `WINDOW` calls are forgotten. Pure functions of the track's `Stuck` record and the
call.
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core.loop_guard import command_words
from arcguard.core.loop_guard import edited
from arcguard.core.loop_guard import exit_status
from arcguard.core.loop_guard import failure_lines
from arcguard.core.loop_guard import failures
from arcguard.core.loop_guard import fixes_aimed
from arcguard.core.loop_guard import known_causes
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import reverts
from arcguard.core.loop_guard import same_cause
from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import stuck
from arcguard.core.loop_guard import tool_effects
from arcguard.core.loop_records import Persist


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.loop_records import Stuck
    from arcguard.core.tool_call import ToolCall

MAX_FAILURES = 4  # failures kept: a check taking turns between two or three answers is one
MAX_ERRORS = 12  # the last clauses of a failure that say what went wrong
MAX_VALUES = 8  # the values a failing command names, kept
VALUE_CHARS = 24  # of each, kept
WINDOW = 24  # calls after which the failures kept, none seen again, are forgotten
LABEL_CHARS = 60
TO_FILTERS = "2>&1"  # sends what a command says is wrong where its print goes
MAX_SHOWN = 2 * MAX_FAILURES  # attempts' whole prints kept line by line (`Persist.shown`)
# Marks of a print kept: not (yet) a stop on a round of fixes; a stop; the comeback that
# showed the round (`_went_round`).
STOP, ROUND, CAME_BACK = "-", "o", "@"
# Failures that came back, each otherwise printed: one back while another moves may be one
# beside the work, back after the new one was fixed.
MIN_COMEBACKS = 2


def observe(st: Stuck, seq: int, turn: int, call: ToolCall, f: stuck.Finished) -> None:
    """Count one finished call (mutates `st`)."""
    if _restarts(call, f):
        st.persist = None
        return
    persist = st.persist
    if persist is not None and seq - persist.seen > WINDOW:
        persist = st.persist = None
    if persist is not None and f.edit:
        _edited(persist, call, new=f.edit == stuck.NEW)
    elif persist is not None and f.wrote and not f.outcome.startswith(opkey.FAILED):
        # Files written from the shell: a fix to code as far as anyone can tell, asked about
        # and never paused for; the whole print shows whether it moved anything.
        persist.fixed, persist.out = True, ""
        persist.coded += 1
        fixes_aimed.keep(persist, fixes_aimed.SHELL)
    elif persist is not None and f.changed and f.outcome.startswith(opkey.COMPLETED):
        persist.changed = True
    if call.name != opkey.BASH or (tool_effects.is_poll(call) and not tool_effects.acts(call)):
        return
    if f.result.startswith(opkey.FAILED) and not _hidden(f):
        _failed(st, persist, seq, turn, call, f)
        fixes_aimed.note(st.persist, call, f.printed or [])
    elif _answers_otherwise(call, f, persist):
        st.persist = None


def _hidden(f: stuck.Finished) -> bool:
    """A platform's refusal read through a filter whose status hid the act's
    (`Finished.quiet`): the refusal is one cause, counted in `stuck`'s runs, but what the filter
    let through is no print to compare with the failing ones, so it neither counts here nor
    starts the count again."""
    completed = f.quiet and f.outcome.startswith(opkey.COMPLETED)
    return completed and any(known_causes.refused(piece) for piece in f.pieces or ())


def _answers_otherwise(call: ToolCall, f: stuck.Finished, persist: Persist | None) -> bool:
    """The program that failed completed; unless a filter's status hid its own and what the
    filter let through said neither way (`Finished.quiet`: `grep -c OOM` printing 1)."""
    return (
        f.outcome.startswith(opkey.COMPLETED)
        and not f.quiet
        and persist is not None
        and _program(call) in persist.programs
    )


def refused(st: Stuck, seq: int, turn: int, call: ToolCall) -> None:
    """The repeat guard refused `call`, a command whose last run failed: one more attempt at
    a failure kept, once a turn (mutates `st`)."""
    persist = st.persist
    if persist is None or persist.turn == turn or _program(call) not in persist.programs:
        return
    persist.seen, persist.turn = seq, turn
    persist.again += 1


def attempts(st: Stuck) -> int:
    """The attempts that failed the same way, the first included: those that told nothing new
    (`Persist.again`). When settings or values were tried between them, none until the
    command was also run another way: a check run word for word after each is that setting's
    test (a workflow built up piece by piece); one respelt (a flag added, a cache cleared
    first) is one more try at the failure. Another filter on its print (`2>&1 | tail -40`)
    runs the same test (`_check`)."""
    persist = st.persist
    # A record from before `checks` was kept: its spellings stand in for them.
    if persist is None or (persist.edits and len(persist.checks or persist.ways) < 2):
        return 0
    return persist.again + 1


def word_due(st: Stuck, checkin: int) -> bool:
    """The attempts have earned their one request, at `checkin` of them."""
    return st.persist is not None and not st.persist.nudged and attempts(st) >= checkin


def pause_due(st: Stuck, pause: int) -> bool:
    """Still failing the same way at `pause` attempts, after the request, and any fixes to code
    among them aimed at it (`fixes_aimed.aimed`)."""
    persist = st.persist
    return (
        persist is not None
        and persist.nudged
        and (not persist.coded or fixes_aimed.aimed(persist))
        and attempts(st) >= pause
    )


def _edited(persist: Persist, call: ToolCall, *, new: bool) -> None:
    """An edit since the last attempt: a fix to code (`coded`); a setting or a value tried, or
    a setting put back (`edits`); code put back, which takes back a suspect the last attempt
    ruled out."""
    path = hashing.digest(opkey.file_path(call))
    settings = edited.edits_settings(call)
    persist.back = not new
    if not new and persist.probe == path:
        # The lines taken out before the last attempt are put back: they were a suspect ruled
        # out (the failure as before without them), not a fix that failed.
        persist.again, persist.coded = max(persist.again - 1, 0), max(persist.coded - 1, 0)
        persist.probe = ""
    if not settings and new:
        persist.fixed = True
        persist.out = path if edited.takes_out(call) else ""
    if settings or (new and edited.turned(call)):
        persist.edits += 1
    elif new:
        persist.coded += 1
        fixes_aimed.keep(persist, fixes_aimed.file_name(call))


def _restarts(call: ToolCall, f: stuck.Finished) -> bool:
    """Other code put in the working tree (a checkout, a bisect's next commit): what fails now
    is another program's failure. Files written otherwise from the shell (`sed -i`, a patch
    applied, `rm -rf DerivedData`) are a fix whose content is unseen (`observe`)."""
    return f.moved


def _failed(
    st: Stuck, persist: Persist | None, seq: int, turn: int, call: ToolCall, f: stuck.Finished
) -> None:
    key, errors = failures.aimed(st, f.result, call), _errors(f.pairs or {})
    printed, words = failure_lines.failing_heads(f.printed or []), command_words.named_words(call)
    if persist is None:
        persist = st.persist = Persist()
    whole, way = hashing.digest("\n".join(f.printed or [])), opkey.operation_id(call)
    # A print another filter chose from (`| tail -3` after `| grep ERROR`) is another slice.
    respelt = bool(persist.ways) and persist.ways[-1] != way
    sliced = respelt and _filtered_again(persist, call, words, key)
    another_slice = sliced and _printed_before(persist, printed, sliced=True)
    caused, burnt = same_cause.caused(persist, call, f)
    same = (
        key in persist.failures
        or _spelt_again(persist, call, words, errors, f.printed or [])
        or another_slice
        or caused
    )
    if persist.changed:
        persist.shown = []  # a change answered since: what failed before it was another world
    shown = _shown(call, f.printed or [])
    back = _back_to(persist, shown) if same else None
    known = caused or (
        same
        and not burnt
        and _printed_before(persist, printed, sliced=sliced, fixed=persist.fixed)
        and (not persist.fixed or whole == persist.whole or sliced)
    )
    # Fewer failing lines through another filter after a fix: the fix's work or the filter's.
    # It neither counts nor starts the count again.
    fewer = not known and persist.fixed and another_slice
    persist.whole, persist.seen = whole, seq
    if persist.turn == turn and known:
        return  # a parallel copy of the attempt
    persist.turn, persist.label = turn, opkey.label(call, LABEL_CHARS)
    _spelt(persist, way, _check(call, way))
    persist.probe = persist.out if known and persist.fixed and not persist.back else ""
    dropped = max(len(persist.shown) + 1 - MAX_SHOWN, 0)
    persist.shown = [*persist.shown, shown][-MAX_SHOWN:]
    went = _went_round(persist, max(back - dropped, 0)) if back is not None else 0
    if went:
        # The fixes went round: each attempt since the round began failed as one of them did.
        persist.again = max(persist.again + 1, went - 1)
        if reverts.restored(st):
            persist.edits = 0  # settings put back as they were: tried in turn, not explored
    elif known:
        # Right after an edit back to a content the file had (a suspect ruled out, then put
        # back), the failure is what the session expected: it neither counts nor moves.
        persist.again += 0 if persist.back else 1
    else:
        if (persist.changed or same or burnt) and not fewer:
            # What changed since the last failure moved it, or the failure itself moved (a
            # count lower, another file failing): news, and the edits before it are behind.
            _count_again(persist)
        persist.prints = [*persist.prints, printed][-2 * MAX_FAILURES :]
        if not same:
            _keep(persist, call, key, words, errors)
    persist.changed = persist.back = persist.fixed = False


def _count_again(persist: Persist) -> None:
    """News: the count starts again, the fixes and causes before it behind."""
    persist.again, persist.coded, persist.fixed_in = 0, 0, []
    del persist.aimed
    persist.causes = persist.causes[-1:]


def _keep(persist: Persist, call: ToolCall, key: str, words: list[str], errors: list[str]) -> None:
    del persist.aimed  # what showed the fixes aimed at the failures kept says nothing of this one
    persist.failures = [*persist.failures, key][-MAX_FAILURES:]
    persist.errors = [*persist.errors, errors][-MAX_FAILURES:]
    persist.words = [*persist.words, words][-MAX_FAILURES:]
    persist.values = [*persist.values, sorted(_values(call))[:MAX_VALUES]][-MAX_FAILURES:]
    program = " ".join(words[:2])
    if program not in persist.programs:
        persist.programs = [*persist.programs, program][-MAX_FAILURES:]


def _shown(call: ToolCall, printed: list[str]) -> str:
    """An attempt's print as `Persist.shown` keeps it: `STOP`, its check's and its spelling's
    digests, then its lines' digests, but for lines quoting source by line number (`12 |
    import x`), which show the code an edit changed, not what failed."""
    quoting = [line.split()[:2] for line in printed]
    lines = [
        hashing.digest(line)[: failure_lines.HEAD_DIGEST]
        for line, words in zip(printed, quoting, strict=True)
        if not (len(words) == 2 and words[0].isdigit() and words[1][:1] in "|:")
    ]
    check = hashing.digest(" ".join(command_words.check_words(call)))[: failure_lines.HEAD_DIGEST]
    way = opkey.operation_id(call)[: failure_lines.HEAD_DIGEST]
    return " ".join([STOP, check, way, *dict.fromkeys(lines)])


def _back_to(persist: Persist, shown: str) -> int | None:
    """Where a failure comes back to (the index in `Persist.shown`), if it does: every line it
    prints was printed by the same check's attempts kept (`command_words.check_words`), and one
    at least is not in the last one's print but in an earlier one of the last `MAX_FAILURES`
    (the last such): a round of at most that many stops. A print made of lines the last one
    printed is the same failure, or fewer of them (a fix's work), and so is one the same
    command printed with more lines, or one after a slice of that print (`| tail -3` of a list
    burnt down); a line never printed is news; a failure back from further (fixed, then others
    fixed one by one, then broken again) is a regression, not a round."""
    _, check, way, *lines = shown.split()
    kept = [entry.split()[1:] for entry in persist.shown]
    mine = [
        (at, entry[1], set(entry[2:]))
        for at, entry in enumerate(kept)
        if entry[:1] == [check] and len(entry) > 1
    ]
    if not lines or not mine or mine[-1][0] != len(kept) - 1:
        return None
    new = set(lines) - mine[-1][2]
    if not new or not set(lines) <= set().union(*(seen for _, _, seen in mine)):
        return None
    back, spelt, seen = max(print_ for print_ in mine if print_[2] & new)
    fewer = spelt == way and set(lines) < seen  # a filter of its own may show fewer
    # The last print a slice of that one (`| tail -3` of a list burnt down error by error).
    sliced = mine[-1][2] <= seen
    return back if back >= len(kept) - MAX_FAILURES and not fewer and not sliced else None


def _went_round(persist: Persist, back: int) -> int:
    """Mark the same check's prints from `back` to the latest, which came back, as stops on
    a round (mutates `persist`), and say how many of its attempts the round has been going:
    its marked prints at the end, however many comebacks linked them (a print, another, a
    third, then the second again), another check's between them aside; none until
    `MIN_COMEBACKS` failures, each otherwise printed, came back."""
    last = len(persist.shown) - 1
    check = persist.shown[last].split()[1]
    persist.shown = [
        (CAME_BACK if at == last or entry[:1] == CAME_BACK else ROUND) + entry[1:]
        if at >= back and entry.split()[1:2] == [check]
        else entry
        for at, entry in enumerate(persist.shown)
    ]
    going: list[list[str]] = []
    for entry in reversed(persist.shown):
        words = entry.split()
        if words[1:2] != [check]:
            continue
        if words[0] not in (ROUND, CAME_BACK) or len(words) < 4:
            break
        going.append(words)
    came = {frozenset(words[3:]) for words in going if words[0] == CAME_BACK}
    return len(going) if len(came) >= MIN_COMEBACKS else 0


def _printed_before(persist: Persist, printed: str, *, sliced: bool, fixed: bool = False) -> bool:
    """The failing lines were printed before; or, `sliced` by another filter (`| tail -3`
    after `| grep ERROR`), some of them or more: another slice of the same print, when both
    were kept whole. After a fix (`fixed`), not fewer: fewer failing lines seen through another
    filter may be what the fix did."""
    if printed in persist.prints:
        return True
    mine = failure_lines.whole_heads(printed)
    if not (sliced and mine):
        return False
    return any(
        (kept := failure_lines.whole_heads(seen)) and (kept <= mine or (mine <= kept and not fixed))
        for seen in persist.prints
    )


def _filtered_again(persist: Persist, call: ToolCall, named: list[str], key: str) -> bool:
    """A failure kept (`key`), or one of the same program and subcommand not aimed at another
    target, run again through a filter (`exit_status.filtered`). What it shows of the print is
    the filter's choice, so some of the failing lines, or more, are the same failure."""
    if not exit_status.filtered(tool_effects.command_of(call) or ""):
        return False
    return key in persist.failures or any(
        words[:2] == named[:2] and not failures.aimed_elsewhere(words, call)
        for words in persist.words
    )


def _spelt_again(
    persist: Persist, call: ToolCall, mine: list[str], errors: list[str], printed: list[str]
) -> bool:
    """A failure kept, printed again with other lines around the same errors (a build tool's
    banner the first time, a tally that counts what was cached): from the same program and
    subcommand (`mine`: the call's `command_words.named_words`), not aimed at another target
    (`failures.aimed_elsewhere`), and not printing a
    value its call names and the kept one's did not (`--python 3.11` after `3.10`, shown in the
    header: a matrix's finding, not a retry)."""
    if not errors:
        return False
    head, values = mine[:2], _values(call)
    shown = set(shape.words_of(" ".join(printed)))
    return any(
        kept == errors
        and words[:2] == head
        and not failures.aimed_elsewhere(words, call)
        and not (values - set(asked)) & shown
        for kept, words, asked in zip(persist.errors, persist.words, persist.values, strict=False)
    )


def _spelt(persist: Persist, way: str, check: str) -> None:
    """Keep the attempt's spelling and what it ran (`_check`), each last among the last few."""
    persist.ways = [*(w for w in persist.ways if w != way), way][-MAX_FAILURES:]
    persist.checks = [*(c for c in persist.checks if c != check), check][-MAX_FAILURES:]


def _check(call: ToolCall, way: str) -> str:
    """The attempt's spelling (`way`) without the filters at the end of its print and `2>&1`
    (`make 2>&1 | tail -40` is `make`): what it ran, as a short digest. A command too long to
    read is its spelling."""
    command = tool_effects.command_of(call)
    if command is None:
        return way[: failure_lines.HEAD_DIGEST]
    ran = shape.observed_command(command).split()
    return hashing.digest(" ".join(w for w in ran if w != TO_FILTERS))[: failure_lines.HEAD_DIGEST]


def _values(call: ToolCall) -> set[str]:
    """The words of a command with a digit in them, two characters or more (`11` of `3.11`,
    `py311`, `900000`): the values it names."""
    words = shape.words_of((tool_effects.command_of(call) or "").lower())
    return {w[:VALUE_CHARS] for w in words if len(w) > 1 and any(c.isdigit() for c in w)}


def _errors(pairs: dict[str, str]) -> list[str]:
    """The digests of the clauses of a failure that say what went wrong."""
    found = [d for d, text in pairs.items() if failure_lines.says_wrong(text.lower())]
    return sorted(found[-MAX_ERRORS:])


def _program(call: ToolCall) -> str:
    """The program a command runs first and its subcommand (`cd web && pnpm lint`: pnpm lint)."""
    return " ".join(command_words.named_words(call)[:2])
