"""Lines of a print that report a failure, as programs word them.

Read where a command's status does not say whether it failed (`exit_status.hidden_failure`:
`make 2>&1 | tail -3` exits with `tail`'s status), and where a failure's print is compared with
the last one (`persisting`: a tally moving, `Found 41 errors` then `Found 30 errors`, is news).

A line reports a failure when it opens with one (`FAILED tests/...`, `[ERROR] ...`,
`Traceback`, `fatal: ...`, `npm ERR!`), shouts one at either end (`BUILD FAILED in 6s`,
`** ARCHIVE FAILED **`, `> Task :app:lint FAILED`), labels one (`[cause]: Error: ...`,
`torch.OutOfMemoryError: ...`, `error[E0432]: ...`) or counts some (`3 failed,`,
`Found 41 errors in 13 files.`). Not when it tallies none (`Failed requests: 0`, `errors=0`,
`0 errors`), labels a measure (`Test error: 1.2%`), names a file (`errors.go | 12 ++--`), or
says the word inside a sentence (`returns 404 error for an unknown id`, a commit's subject
`Retry payments left in FAILED state`).
"""

from __future__ import annotations


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
NPM_ERROR = "err!"  # `npm ERR! code E404`
BRACKETS = "[](){}<>'\"`*"
PUNCTUATION = ":!,;."
PASSED = frozenset(
    "passed passing success successful successfully succeeded ok done finished complete "  # noqa: SIM905
    "completed built".split()
)
SCAN_CHARS = 4000  # of a print's end: where a failure's report and its tally are


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
        if at == 0 and bare.partition("[")[0] in OPENINGS:
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
