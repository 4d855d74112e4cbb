"""States a status table reports that name a failure, as a poll's answer shows them.

A rollout's pod goes from `ErrImagePull` to `ImagePullBackOff` and back while the kubelet
retries a pull that cannot succeed; a sync reports `SecretSyncedError` until someone fixes a
permission. Such a state turning into another of its kind, in the same row, is no news of what
a wait waits for: `fold` reads each as one marker, so the row reads as before, and the wait is
one on a failure (`polls`), which waiting alone seldom mends.

A failing state is a cell of a table row: a word of its own, not the row's first nor followed
by a word in lower case (`api-7c9 0/1 CrashLoopBackOff 3 2m`; not `Error from server
(NotFound)` nor `curl: (7) Failed to connect`), in capitals,
ending in `Error`, `BackOff`, `Failed` or `Failure` (`CreateContainerConfigError`,
`ProvisioningFailed`) or opening with `Err` before another capital (`ErrImagePull`); not a
test's name (`TestHTTPError`).
"""

from __future__ import annotations


ENDINGS = ("Error", "BackOff", "Failed", "Failure")
OPENING = "Err"
NOT_STATES = ("Test",)  # a test's name that ends so (`TestParseError`)
MIN_CELLS = 3  # a row: a name, a state and something more
FOLDED = "<failing>"  # what a failing state reads as


def failing_word(word: str) -> bool:
    if not (word.isalpha() and word[:1].isupper()) or word.startswith(NOT_STATES):
        return False
    coded = word.startswith(OPENING) and len(word) > len(OPENING) and word[3].isupper()
    return coded or word.endswith(ENDINGS)


def fold(text: str) -> str | None:
    """`text` with every failing state in a table row read as one marker, or None when no row
    holds one."""
    lines = text.splitlines()
    folded = [_row(line) for line in lines]
    return None if folded == lines else "\n".join(folded)


def _row(line: str) -> str:
    cells = line.split()
    states = [at for at in range(1, len(cells)) if _state(cells, at)]
    if len(cells) < MIN_CELLS or not states:
        return line
    return " ".join(FOLDED if at in states else cell for at, cell in enumerate(cells))


def _state(cells: list[str], at: int) -> bool:
    """The cell at `at` is a failing state, not a sentence's word (`Failed to connect`)."""
    following = cells[at + 1] if at + 1 < len(cells) else ""
    return failing_word(cells[at]) and not (following.isalpha() and following.islower())
