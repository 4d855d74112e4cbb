"""The one short digest every fingerprint, key and over-long id uses.

A module of its own so that `state` (which keeps an over-long id as its digest) and `opkey`
(which clips labels with `state`'s helpers) both import it without importing each other.
"""

from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def digest(text: str) -> str:
    """A short stable digest of `text` (16 hex digits), the one every fingerprint uses."""
    return _digest(text)


def _digest(text: str) -> str:
    global _blake2b
    if _blake2b is None:
        _blake2b = pick_blake2b(_builtin_blake2())
    return str(_blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest())


_blake2b: Any = None
# blake2b(b"abc", digest_size=8), as hashlib computes it: a builtin must agree to be used.
_ABC_DIGEST = "d8bb14d833d59559"


def _builtin_blake2() -> Any:
    try:
        import _blake2  # builtin: spares hashlib's OpenSSL load on the hook path
    except ImportError:  # pragma: no cover (non-CPython)
        return None
    return _blake2


def pick_blake2b(module: Any) -> Any:
    """`module.blake2b` if it hashes as blake2b does, else hashlib's: `_blake2` is private,
    and a changed or broken one must cost speed, never a hook's decision."""
    try:
        if module.blake2b(b"abc", digest_size=8).hexdigest() == _ABC_DIGEST:
            return module.blake2b
    except Exception:
        pass
    from hashlib import blake2b

    return blake2b
