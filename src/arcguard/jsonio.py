"""JSON for the hook path, on CPython's C accelerator without importing `json`.

`import json` pulls in `re` (and `enum` with it), which alone costs the hook about as much as
Python's own start-up; `import orjson` costs twice that (see the README's performance section).
The C scanner and encoder that `json` itself uses are in the builtin `_json` module, so the hook
path uses them directly and falls back to `json` where `_json` is missing. Verbs that parse a lot
(forensics, replay) use orjson through `arcguard.forensics`.
"""

from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_WHITESPACE = " \t\n\r"


class JSONError(ValueError):
    """Input that is not one JSON document."""


try:
    import _json as _accelerator
except ImportError:  # pragma: no cover (non-CPython)
    _accelerator = None  # type: ignore[assignment]

_json: Any = _accelerator


class _ScannerContext:
    # The attributes `_json.make_scanner` reads, as `json.JSONDecoder` would set them.
    strict = False
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float
    memo: dict[str, str] = {}  # noqa: RUF012 (read by the C scanner)


def _make_loads() -> Callable[[str], object]:
    if _json is None:  # pragma: no cover (non-CPython)
        import json

        return json.loads
    scan = _json.make_scanner(_ScannerContext())

    def loads(text: str) -> object:
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            value, end = scan(text, start)
        except (StopIteration, ValueError, SystemError):
            # Malformed input: the C scanner reports errors through `json.decoder`, which it
            # expects to be imported already (SystemError otherwise). Let `json` say what is
            # wrong; this path is rare, so it may pay for the import.
            return _slow_loads(text)
        if text[end:].strip(_WHITESPACE):
            raise JSONError(f"extra data at {end}")
        return value

    return loads


def _slow_loads(text: str) -> object:
    import json

    try:
        return json.loads(text)
    except ValueError as exc:
        raise JSONError(str(exc)) from None


def _make_dumps() -> Callable[[object], str]:
    if _json is None:  # pragma: no cover (non-CPython)
        import json

        return lambda obj: json.dumps(obj, sort_keys=True, separators=(",", ":"))

    def default(obj: object) -> object:
        if isinstance(obj, tuple):
            return list(obj)
        raise TypeError(f"not JSON serializable: {type(obj).__name__}")

    encode = _json.make_encoder(
        {}, default, _json.encode_basestring_ascii, None, ":", ",", True, False, False
    )
    return lambda obj: "".join(encode(obj, 0))


_loads = _make_loads()
_dumps = _make_dumps()


def loads(data: bytes | str) -> object:
    """Parse one JSON document. Raises JSONError on anything else (bad UTF-8 included)."""
    if isinstance(data, bytes | bytearray):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONError(f"not UTF-8: {exc}") from None
    try:
        return _loads(data)
    except RecursionError:
        raise JSONError("nested too deeply") from None


def dumps(obj: object) -> str:
    """Compact, key-sorted, ASCII-only JSON (lone surrogates come out escaped)."""
    return _dumps(obj)


def dumps_pretty(obj: object) -> str:
    import json  # only verbs print indented JSON; the hook path never does

    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False)
