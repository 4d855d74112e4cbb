"""Causes of failure that every tool words its own way.

A full disk fails a compiler, a linker, `sort`, `git worktree add` and Python's `tempfile`, each
in its own words; an unreachable server fails `kubectl` (`i/o timeout`), `helm` (`cluster
unreachable ... i/o timeout`), `curl` (`Connection timed out`) and `kubectl` again (`Client.Timeout
exceeded`). No phrase is shared by all of them, but each names one of a few causes that lie
outside the code: the disk, the network, a certificate, a credential, the memory. Two calls
failing on one of these with nothing changed between met one cause, whichever tools they ran.
Only causes no edit of the code moves are listed: a missing file or a failed assertion is
about what each call asked for.
"""

from __future__ import annotations


MARK = "~"  # before a cause's name among a failure's cause pieces (those are hex digests)
# Phrases as the tools print them, lower case, by the cause they name.
PHRASES = {
    "disk full": (
        "no space left on device",
        "enospc",
        "disk quota exceeded",
        "not enough space on the disk",
    ),
    "timed out connecting": (
        "i/o timeout",
        "connection timed out",
        "connect timed out",
        "connect timeout",
        "(tcp) timed out",
        "operation timed out",
        "etimedout",
        "client.timeout exceeded",
        "context deadline exceeded",
        "request timed out",
        "read timed out",
        "handshake timeout",
    ),
    "connection refused": ("connection refused", "econnrefused"),
    "host unreachable": (
        "no route to host",
        "network is unreachable",
        "host is unreachable",
        "ehostunreach",
        "enetunreach",
    ),
    "name not resolved": (
        "could not resolve host",
        "no such host",
        "name or service not known",
        "temporary failure in name resolution",
        "nodename nor servname",
        "getaddrinfo enotfound",
        "name resolution failed",
    ),
    "certificate": (
        "certificate verify failed",
        "self-signed certificate",
        "self signed certificate",
        "unable to get local issuer certificate",
        "certificate has expired",
        "certificate signed by unknown authority",
    ),
    "credentials": (
        "401 unauthorized",
        "status code 401",
        "http 401",
        "401 client error",
        ": unauthorized",
        "authentication failed",
        "authentication required",
        "bad credentials",
        "invalid credentials",
    ),
    "forbidden": ("403 forbidden", "status code 403", "http 403", ": forbidden"),
    "permission": ("permission denied", "eacces", "operation not permitted"),
    "read-only file system": ("read-only file system", "erofs"),
    "out of memory": (
        "out of memory",
        "cannot allocate memory",
        "enomem",
        "oomkilled",
    ),
    "address in use": ("address already in use", "eaddrinuse"),
    "rate limited": ("rate limit exceeded", "too many requests", "api rate limit"),
    "too many open files": ("too many open files", "emfile"),
}


def named(text: str) -> list[str]:
    """The causes `text` names, each as `MARK` and its name."""
    lower = text.lower()
    return [MARK + cause for cause, phrases in PHRASES.items() if any(p in lower for p in phrases)]


def is_known(piece: str) -> bool:
    return piece.startswith(MARK)
