"""States a status reports that name a failure, as a poll's answer shows them.

A rollout's pod goes from `ErrImagePull` to `ImagePullBackOff` and back while the kubelet
retries a pull that cannot succeed; a sync reports `SecretSyncedError` until someone fixes a
permission. Such a state changing to another of its kind is no news of what a wait waits for:
a line of a poll's answer that names one reads as one and the same line (`fold`), so that the
wait goes on, and the wait is one on a failure (`polls`), which waiting alone seldom mends.

A failing state is a status word in capitals, not a sentence's word: one that ends in `Error`,
`BackOff`, `Failed` or `Failure` (`CreateContainerConfigError`, `CrashLoopBackOff`,
`ProvisioningFailed`), or opens with `Err` before another capital (`ErrImagePull`).
"""

from __future__ import annotations

from arcguard.core.loop_guard import shape


ENDINGS = ("Error", "BackOff", "Failed", "Failure")
OPENING = "Err"
FOLDED = "<failing state>"  # what a line naming one reads as


def failing_word(word: str) -> bool:
    if not (word.isalpha() and word[:1].isupper()):
        return False
    coded = word.startswith(OPENING) and len(word) > len(OPENING) and word[3].isupper()
    return coded or word.endswith(ENDINGS)


def names_one(line: str) -> bool:
    return any(failing_word(word) for word in shape.words_of(line))


def fold(text: str) -> str | None:
    """`text` with every line that names a failing state read as one line, or None when none
    does."""
    lines = text.splitlines()
    folded = [FOLDED if names_one(line) else line for line in lines]
    return None if folded == lines else "\n".join(folded)
