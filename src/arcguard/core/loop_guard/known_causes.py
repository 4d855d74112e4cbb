"""Causes of failure that lie outside the code, which every tool words its own way.

A full disk fails a compiler, a linker, `sort`, `git worktree add` and Python's `tempfile`, each
in its own words; a server out of reach fails `kubectl` (`i/o timeout`), `helm` (`cluster
unreachable ... i/o timeout`), `curl` (`Connection timed out`) and `nc` (`timed out: Operation now
in progress`). No phrase is shared by all of them, but each names a cause no change to the code
under work moves: the disk, the network, a certificate, a read-only mount. Two calls failing on
the same one of these, with no file written between, met one cause, whichever tools they ran.

A cloud's or a cluster's access control refusing the caller (AWS's `AccessDenied`, Kubernetes'
`is forbidden: User "x" cannot`, Google Cloud's `PERMISSION_DENIED`), a spent quota and a
version a registry already holds (npm's `cannot publish over the previously published`) are
such causes too: a platform's own words for an account's rights or limits, which no flag, tool
or retry moves. Left out are causes the code under work produces as often as the machine does, and
that tests assert on: a refused connection (a dev server not started), a bare 401 or 403 (the
code's own server answers so), a permission denied (a file's mode),
an exhausted memory, an address in use, a rate limit, and any trouble reaching this machine
itself (`127.0.0.1`, `localhost`). Only the last lines of a failure are read, where a program
says why it stopped (a stack trace's frames aside: the cause is named above them; further up, a
test's own expectations quote such phrases), and a phrase counts only as whole words: `EMFILE`
is not in `Gemfile`.
"""

from __future__ import annotations


MARK = "~"  # before a cause's name among a failure's cause pieces (those are hex digests)
LAST_LINES = 6  # the lines at a failure's end that may name its cause
TAIL_CHARS = 4096  # where those lines are looked for: a hook reads no more of a long output
# Phrases as the tools print them, lower case, by the cause they name.
PHRASES = {
    "disk full": ("no space left on device", "enospc", "disk quota exceeded"),
    "timed out connecting": (
        "i/o timeout",
        "connection timed out",
        "connect timed out",
        "(tcp) timed out",
        "etimedout",
        "client.timeout exceeded",
    ),
    "host unreachable": (
        "no route to host",
        "network is unreachable",
        "host is unreachable",
        "ehostunreach",
        "enetunreach",
        "cluster unreachable",
    ),
    "name not resolved": (
        "could not resolve host",
        "no such host",
        "name or service not known",
        "temporary failure in name resolution",
        "nodename nor servname provided",
        "getaddrinfo enotfound",
    ),
    "certificate": (
        "certificate verify failed",
        "self-signed certificate",
        "self signed certificate",
        "unable to get local issuer certificate",
        "certificate has expired",
        "certificate signed by unknown authority",
    ),
    "read-only file system": ("read-only file system", "erofs"),
    "access refused": (
        "accessdenied",
        "accessdeniedexception",
        "is not authorized to perform",
        "unauthorizedoperation",
        "permission_denied",
        "authorizationfailed",
        "does not have authorization to perform",
        "is forbidden: user",
        "requested access to the resource is denied",
    ),
    "version taken": (
        "cannot publish over the previously published",
        "epublishconflict",
        "#file-name-reuse",
        "is already uploaded",
        "already exists on crates.io index",
    ),
    "quota": ("insufficient regional quota", "quota exceeded", "exceeded quota", "quotaexceeded"),
}
# A server on this machine is the code under work (a test's own server not started), not the
# network.
NETWORK = frozenset(("timed out connecting", "host unreachable", "name not resolved"))
LOOPBACK = ("127.0.0.1", "localhost", "::1", "0.0.0.0")


def named(text: str) -> list[str]:
    """The causes the last `LAST_LINES` lines of `text` name, each as `MARK` and its name; the
    frames of a stack trace (`at Foo.run(Foo.java:12)`) are no lines of it: the cause is named
    above them."""
    lines = [line for line in text[-TAIL_CHARS:].lower().splitlines() if _says(line)]
    end = "\n".join(lines[-LAST_LINES:])
    local = any(_has(end, host) for host in LOOPBACK)
    return [
        MARK + cause
        for cause, found in PHRASES.items()
        if not (local and cause in NETWORK) and any(_has(end, p) for p in found)
    ]


def _says(line: str) -> bool:
    """A line that may say why a program stopped: not empty, nor a Java or JavaScript stack
    frame."""
    first, _, rest = line.strip().partition(" ")
    if first == "at":
        return "(" not in rest and ":" not in rest  # `at Foo.run(Foo.java:12)`, `at /x.js:3:9`
    return bool(first)


def is_known(piece: str) -> bool:
    """The piece is a cause outside the code (`named`), not a digest of a line's piece."""
    return piece.startswith(MARK)


def any_target(piece: str) -> bool:
    """The piece is a cause outside the code that the machine or the account meets whatever a
    call aims at (a full disk, a refusal, a spent quota), not a host out of reach (`NETWORK`):
    another host may answer."""
    return is_known(piece) and piece[len(MARK) :] not in NETWORK


def _has(text: str, phrase: str) -> bool:
    """`phrase` is in `text` as whole words: no letter, digit or `_` on either side."""
    at = text.find(phrase)
    while at >= 0:
        end = at + len(phrase)
        before = text[at - 1] if at else " "
        after = text[end] if end < len(text) else " "
        if not _word_char(before) and not _word_char(after):
            return True
        at = text.find(phrase, at + 1)
    return False


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"
