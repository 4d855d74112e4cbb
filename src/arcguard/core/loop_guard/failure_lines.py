"""Lines of a print that report a failure, as programs word them.

Read where a command's status does not say whether it failed (`exit_status.hidden_failure`:
`make 2>&1 | tail -3` exits with `tail`'s status), and where a failure's print is compared with
the last ones (`persisting`, `same_cause`): its failing lines, those that say what went wrong
or went through, and its counts (a tally moving, `Found 41 errors` then `Found 30 errors`, is
news).

A line reports a failure when it opens with one (`FAILED tests/...`, `[ERROR] ...`,
`Traceback`, `fatal: ...`, `npm ERR!`, an error's code: `ERR_PNPM_NO_MATCHING_VERSION ...`),
shouts one at either end (`BUILD FAILED in 6s`, `** ARCHIVE FAILED **`, `> Task :app:lint
FAILED`), labels one (`[cause]: Error: ...`, `torch.OutOfMemoryError: ...`, `error[E0432]:
...`), names one after the place a compiler reports (`src/cart.ts(42,7): error TS2322: ...`)
or counts some (`3 failed,`, `Found 41 errors in 13 files.`). Not when it tallies none
(`Failed requests: 0`, `errors=0`, `0 errors`), labels a measure (`Test error: 1.2%`), names a
file (`errors.go | 12 ++--`), or says the word inside a sentence (`returns 404 error for an
unknown id`, a commit's subject `Retry payments left in FAILED state`).
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core.loop_guard import shape
from arcguard.values import value


# A line's first word that reports a failure, in lower case, its trailing `:`/`!` and an
# error code (`error[E0432]:`) aside.
OPENINGS = frozenset(
    {"error", "errors", "fail", "failed", "failure", "fatal", "panic", "traceback"}
)
# What a label of a failure ends in (`ValueError:`, `FAILED:`, `panic:`).
LABELLED = ("error", "exception", "failed", "failure", "fatal", "panic")
SHOUTED = frozenset({"FAILED", "FAILURE", "FAIL", "ERROR", "FATAL", "PANIC"})
TALLIES = frozenset({"failed", "failures", "errors", "error", "failing"})  # `3 failed,`
TALLY_NEXT = frozenset({"in", "and", "of", "found", "(", "|"})  # `41 errors in 13 files`
NONE_WORDS = frozenset({"0", "none"})  # `failures: 0`: a tally of none
# What a count of failures is named, ending its name (`errors=0`, `FAILED=0`).
TALLY_WORDS = ("error", "errors", "failed", "failures", "fail", "failure")
PASSING = frozenset({"passed", "passing"})  # `5 passed`, counted beside the failures
NPM_ERROR = "err!"  # `npm ERR! code E404`
# What a compiler says after the place it reports, before a code or words (`src/cart.ts(42,7):
# error TS2322: ...`; not a line of source found by `grep -n`, `app.py:12: error = ...`).
LOCATED = frozenset({"error", "fatal"})
CODE_OPENING = "ERR_"  # an error's code opening a line (`ERR_PNPM_NO_MATCHING_VERSION No ...`)
BRACKETS = "[](){}<>'\"`*"
PUNCTUATION = ":!,;."
PASSED = frozenset(
    "passed passing success successful successfully succeeded ok done finished complete "  # noqa: SIM905
    "completed built".split()
)
PASSES = PASSED | {"pass"}  # `--- PASS: TestQuota`, `PASS src/cart.test.ts`
SCAN_CHARS = 4000  # of a print's end: where a failure's report and its tally are
MAX_COUNTS, COUNT_DIGITS = 8, 12  # of a print's tally, kept
# What says something went wrong, as tools word it (no `re` on the hook path): a word that opens
# with one of `WRONG_OPENINGS` or ends in one of `WRONG_ENDINGS` (`ValueError`, not
# `new_error_msgs`), or, in a clause, one of `WRONG_PHRASES`.
FAILING_OPENINGS = ("fail", "fatal", "panic")
WRONG_ENDINGS = ("error", "exception")
WRONG_OPENINGS = (
    *FAILING_OPENINGS, "denied", "refused", "unauthorized", "forbidden", "cannot", "unable",
    "invalid", "timeout", "missing", "undefined",
)  # fmt: skip
# A line of one of these alone is a value printed (`pnpm config get x` of a key not set), not
# what went wrong.
NO_VALUE = frozenset({"undefined", "null", "none", "nil"})
WRONG_PHRASES = ("not found", "could not", "couldn't", "can't", "no such", "timed out")
# A part of every word `failure_line` reads as a failure (`err_`, `ValueError:`, `FAILED`).
STEMS = ("err", "fail", "fatal", "panic", "traceback", "exception")
HEAD_CHARS = 160  # of a failing line, compared: a print cut at a width still shows them
HEAD_DIGEST = 8  # hex digits of each failing line's digest, kept
MAX_HEADS = 8  # failing lines of a print, kept
# What a failure quotes, which fixes rewrite (`unquoted`): the statement a database layer echoes
# after its error, and source at its line number. A statement's echo follows a label ending in
# one of `ECHO_LABELS` (SQLAlchemy's `[SQL: `, Laravel's `(SQL: ` or `(Connection: pgsql, SQL: `,
# TypeORM's `query failed: `, a server log's `STATEMENT:  `) and opens with one of `WRITES`.
ECHO_LABELS = ("sql", "query", "query failed", "statement")
WRITES = frozenset({"alter", "create", "drop", "insert", "update", "delete", "truncate"})
UNSAID = frozenset({"column"})  # a keyword one dialect writes and another leaves out
STATEMENT_HEAD = 5  # words of an echoed statement read: what it acts on, not how
STATEMENT_ENDS = " ]),;'\""  # what closes an echo (`...]`, `...)`, `...',`)
# What `echoed` reads of a label's end (its longest) and of the text after it: a line with many
# `: ` is then read once, not again from each.
LABEL_CHARS = max(map(len, ECHO_LABELS))
PEEK_CHARS = 64
FRAME = "\u2502"  # the frame terraform draws around an error, quoted source included


def unquoted(line: str) -> str:
    """`line` without what a fix rewrites in a quote: a new column type in `[SQL: ALTER TABLE
    projects ADD COLUMN archived_at ...]` (another table or column is news); code at its line
    number, in terraform's frame or indented as code (`7:   zones = var.zones`; not an error
    chain's `1: unknown field`): no quote at all, only the error says what failed."""
    at = _echo_at(line)
    if at >= 0:
        words = line[at:].rstrip(STATEMENT_ENDS).split()
        return line[:at] + " ".join([w for w in words if w.lower() not in UNSAID][:STATEMENT_HEAD])
    number, _, code = line.lstrip(FRAME + " ").partition(shape.CLAUSE_BREAK)
    quoted = line.lstrip().startswith(FRAME) or code.startswith(" ")  # indented: code
    return "" if number.isdigit() and quoted else line


def echoed(label: str, text: str) -> bool:
    """`text`, after `label` and `: `, is a statement a database layer echoes (`ECHO_LABELS`)."""
    first = text[:PEEK_CHARS].lstrip(" '\"").split(maxsplit=1)[:1]
    return (
        bool(first)
        and first[0].lower() in WRITES
        and label[-LABEL_CHARS:].lower().endswith(ECHO_LABELS)
    )


def _echo_at(line: str) -> int:
    """Where the statement `line` echoes starts (`echoed`), or -1."""
    start = 0
    while (at := line.find(shape.CLAUSE_BREAK, start)) >= 0:
        start = at + len(shape.CLAUSE_BREAK)
        if echoed(line[max(0, at - LABEL_CHARS) : at], line[start : start + PEEK_CHARS]):
            return start
    return -1


def may_report(line: str) -> bool:
    """`line` holds a word every failure line holds one of (`failure_line`): a cheap test
    before the full one, for prints read line by line."""
    lowered = line.lower()
    return any(stem in lowered for stem in STEMS)


def reports_failure(text: str) -> bool:
    """A line of the end of `text` reports a failure (`failure_line`)."""
    return any(failure_line(line) for line in text[-SCAN_CHARS:].splitlines())


def says_passed(text: str) -> bool:
    """A word of the end of `text` says a run went through (`41 passed`, `BUILD SUCCESSFUL`)."""
    return any(
        w.strip(BRACKETS + PUNCTUATION).lower() in PASSED for w in text[-SCAN_CHARS:].split()
    )


def failure_line(line: str) -> bool:
    """`line` reports a failure (see the module's docstring)."""
    words = [w for w in line.split() if w.strip(BRACKETS + PUNCTUATION)]  # `**` aside
    if not words or _tallies_none(words):
        return False
    last = len(words) - 1
    for at, word in enumerate(words):
        core = word.strip(BRACKETS).lower()
        bare = core.rstrip(PUNCTUATION)
        following = words[at + 1].lower() if at < last else ""
        if at == 0 and (bare.partition("[")[0] in OPENINGS or _coded(word, last)):
            return True
        if at == 1 and bare in LOCATED and _reported(core, following) and _location(words[0]):
            return True
        if core == NPM_ERROR or (
            at in (0, 1, last) and word.strip(BRACKETS + PUNCTUATION) in SHOUTED
        ):
            return True
        if core.endswith(":") and bare.endswith(LABELLED) and not following[:1].isdigit():
            return True
        if bare in TALLIES and _counted(words[at - 1] if at else "", word, following):
            return True
    return False


def _coded(word: str, last: int) -> bool:
    """`word`, opening a line of more words, is an error's code in capitals
    (`ERR_PNPM_NO_MATCHING_VERSION`; not `err_rate:`, `ERR_OK` alone)."""
    code = word.strip(BRACKETS)
    return last > 0 and code.startswith(CODE_OPENING) and code.isupper()


def _reported(core: str, following: str) -> bool:
    """What follows `error` after a place is a compiler's report: a colon, or a code with digits
    (`error TS2322:`, `error CS0618:`, `error MD013/line-length`; not `error codes`)."""
    return core.endswith(":") or (following[:1].isalpha() and any(c.isdigit() for c in following))


def _location(word: str) -> bool:
    """`word` names a place in a file, as a compiler opens its report with it:
    `src/cart.ts(42,7):`, `Cart.cs(11,22):`, `docs/index.md:44:121`."""
    place = word.rstrip(":")
    if place.endswith(")"):
        path, _, numbers = place[:-1].rpartition("(")
        return bool(path) and numbers.replace(",", "").isdigit()
    path, *lines = place.split(":")
    return bool(path) and 0 < len(lines) <= 2 and all(n.isdigit() for n in lines)


def _tallies_none(words: list[str]) -> bool:
    """`Failed requests: 0`, `errors=0`: a count of failures that is none."""
    for at, word in enumerate(words):
        name, equals, value = word.lower().partition("=")
        if equals and value.rstrip(PUNCTUATION) in NONE_WORDS and name.endswith(TALLY_WORDS):
            return True
        if word.endswith(":") and at + 1 < len(words) and words[at + 1].lower() in NONE_WORDS:
            return True
    return False


def _counted(number: str, word: str, following: str) -> bool:
    """`3 failed,`, `41 errors in`, `2 failed` at the end: a count above none of failures."""
    count = number.lstrip("(")
    if not (count.isascii() and count.isdigit()) or count.strip("0") == "":
        return False
    return word[-1:] in ",.)" or not following or following in TALLY_NEXT


@value
class Reading:
    """What a failing print's lines say, each line judged once (`read`)."""

    tally: str  # the counts of failures, as one string: a print counting otherwise moved
    passes: int  # the most passes a failure line counts (`1 failed, 41 passed`)
    wrong: list[str]  # digests of the lines saying what went wrong, but for those counting
    passing: list[str]  # digests of the lines saying something went through, not failing
    failing: int = 0  # how many lines say what went wrong, repeats too (seven alike errors)


def read(printed: list[str]) -> Reading:
    """The counts of failures a print's failure lines give (`3 failed,`, `Found 41 errors in`,
    as `failure_line` reads a count; not `port 5432 failed:`) and of passes beside them; the
    lines that say what went wrong (`says_wrong`), paths and numbers kept, but for the marks
    before them (`_unmarked`) and for those counting failures (compared apart); and the lines
    that say something went through (`ok  pkg/api`, `--- PASS: TestQuota`) and not what went
    wrong. Lines as short digests, the last `MAX_HEADS` of each."""
    counts: list[tuple[str, str]] = []
    wrong, passing = [], []
    for line in printed:
        failing = failure_line(line)
        mine = _counts(line) if failing else []
        counts += mine
        said = unquoted(line) if says_wrong(line) else ""  # a statement's echo by its head
        if said and not any(word in TALLIES for _, word in mine):
            wrong.append(said)
        if _passes(line) and not failing:
            passing.append(line)
    return Reading(
        tally=" ".join([count for count, word in counts if word in TALLIES][-MAX_COUNTS:]),
        passes=max((int(count) for count, word in counts if word in PASSING), default=0),
        wrong=_digests(wrong),
        passing=_digests(passing),
        failing=len(wrong),
    )


def _counts(line: str) -> list[tuple[str, str]]:
    """The counts a failure line gives, each with what it counts (`failed`, `passed`)."""
    counts = []
    words = line.split()
    for at, word in enumerate(words[1:], 1):
        following = words[at + 1].lower() if at + 1 < len(words) else ""
        bare = word.strip(BRACKETS + PUNCTUATION).lower()
        if bare in TALLIES | PASSING and _counted(words[at - 1], word, following):
            counts.append((words[at - 1].lstrip("(")[:COUNT_DIGITS], bare))
    return counts


def _passes(line: str) -> bool:
    """A word of `line` says something went through (`PASSED`, or a runner's `PASS`)."""
    words = {w.strip(BRACKETS + PUNCTUATION).lower() for w in line.split()}
    return bool(words & PASSES)


def _digests(lines: list[str]) -> list[str]:
    unique = dict.fromkeys(_unmarked(line) for line in lines)
    return [hashing.digest(line)[:HEAD_DIGEST] for line in unique][-MAX_HEADS:]


def _unmarked(line: str) -> str:
    """A line without the one-character marks a runner puts before what it quotes (`E   `
    before a test's error, `> ` before a build's cause): the same error as printed alone."""
    words = line.split()
    while len(words) > 1 and len(words[0]) == 1:
        words.pop(0)
    return " ".join(words)[:HEAD_CHARS]


def failing_heads(printed: list[str]) -> str:
    """The lines of a failure's print that say what failed (`FAILING_OPENINGS`, or as
    `failure_line` reads them: `Found 41 errors`), paths and counts kept, as short digests
    after how many there are: when they move (a count lower, another file failing), so did the
    failure. Lines around them (a banner, `could not be reused`) may come and go, and so may
    the rest of each line past its first sentence (`_head`), and a line shown twice: the same
    failure cut at another width (`| cut -c1-150`) reads the same. Of many, the last
    `MAX_HEADS` are kept; their number still shows one fixed among them."""
    heads = [
        hashing.digest(_head(line))[:HEAD_DIGEST]
        for line in printed
        if says(line, FAILING_OPENINGS) or failure_line(line) or _code_opens(line)
    ]
    unique = list(dict.fromkeys(heads))
    return " ".join([str(len(unique)), *unique[-MAX_HEADS:]])


def _code_opens(line: str) -> bool:
    """A line a print keeps in lower case opens with an error's code (`err_pnpm_no_matching_version
    no matching version found`): `_coded`, its capitals gone."""
    first, _, rest = line.partition(" ")
    return bool(rest) and _error_code(first)


def _error_code(word: str) -> bool:
    """`word`, in lower case, is an error's code (`err_pnpm_no_matching_version`,
    `err_module_not_found`; not a metric's name, `err_rate:`)."""
    return word.startswith("err_") and word.count("_") >= 2 and word[-1] != ":"


def whole_heads(printed: str) -> set[str]:
    """The failing lines `failing_heads` kept of a print, when it kept them all; else none."""
    count, *heads = printed.split() or ["0"]
    whole = count.isdigit() and int(count) <= MAX_HEADS
    return set(heads) if whole else set()


def _head(line: str) -> str:
    """A failing line up to the end of its first sentence, at most `HEAD_CHARS` of it
    (`torch.outofmemoryerror: cuda out of memory.` of a line going on with the sizes)."""
    cut = line[:HEAD_CHARS]
    end = cut.find(". ")
    return cut[: end + 1] if end > 0 else cut


def says_wrong(text: str) -> bool:
    """A word or a phrase of `text` (lower case) says something went wrong: a Node-style code
    (`ERR_PNPM_NO_MATCHING_VERSION`) too, not a value printed alone (`NO_VALUE`)."""
    if text.strip() in NO_VALUE:
        return False
    return (
        says(text, WRONG_OPENINGS)
        or any(phrase in text for phrase in WRONG_PHRASES)
        or ("err_" in text and any(_error_code(word) for word in text.split()))
    )


def says(text: str, openings: tuple[str, ...]) -> bool:
    """A word of `text` (lower case) opens with one of `openings` or ends in an error's name."""
    return any(w.startswith(openings) or w.endswith(WRONG_ENDINGS) for w in shape.words_of(text))
