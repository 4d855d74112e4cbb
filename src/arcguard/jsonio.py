"""JSON for the hook path, on CPython's C accelerator without importing `json`.

`import json` pulls in `re` (and `enum` with it), which alone costs the hook about as much as
Python's own start-up; `import orjson` costs twice that (see the README's performance section).
The C scanner and encoder that `json` itself uses are in the builtin `_json` module, so the hook
path uses them directly and falls back to `json` where `_json` is missing or misbehaves. Verbs
that parse a lot (forensics, replay) use orjson through `arcguard.forensics`.
"""

from __future__ import annotations

from arcguard.errors import ArcguardError


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    # A JSON object as parsed, before it is read into a typed record. Its values are `object`,
    # not `Any`, so each one must be checked before it is used: that check is the parsing.
    JSONObject = dict[str, object]

_WHITESPACE = " \t\n\r"


class JSONError(ArcguardError, ValueError):
    """Input that is not one JSON document."""


class _ScannerContext:
    # The attributes `_json.make_scanner` reads, as `json.JSONDecoder` sets them by default.
    # (No `memo`: the C scanner keeps its own; only the pure-Python scanner reads one.)
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float


# One round trip through the fast functions before trusting them.
_PROBE_TEXT = '{"a":[1,2.5,"\\u00e9",null,true],"b":{}}'
_PROBE_VALUE = {"a": [1, 2.5, "\u00e9", None, True], "b": {}}


def _accelerator() -> Any:
    try:
        import _json
    except ImportError:  # pragma: no cover (non-CPython)
        return None
    return _json


def _build(accelerator: Any) -> tuple[Callable[[str], object], Callable[[object], str]]:
    """The fast reader and writer on `accelerator`, or `json`'s own when it is missing or
    does not work: `_json` is private, and a version whose functions changed signature (or
    raise) must cost speed, never a hook's exit status."""
    if accelerator is not None:
        try:
            loads, dumps = _fast_loads(accelerator), _fast_dumps(accelerator)
            if loads(_PROBE_TEXT) == _PROBE_VALUE and dumps(_PROBE_VALUE) == _PROBE_TEXT:
                return loads, dumps
        except Exception:
            pass  # any failure means: use `json`
    return _slow_loads, _slow_dumps


def _fast_loads(accelerator: Any) -> Callable[[str], object]:
    scan = accelerator.make_scanner(_ScannerContext())

    def loads(text: str) -> object:
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            value, end = scan(text, start)
        except RecursionError:
            raise
        except Exception:
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


def _fast_dumps(accelerator: Any) -> Callable[[object], str]:
    def default(obj: object) -> object:
        raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")

    # No `markers` dict (None): the encoder then skips its circular-reference bookkeeping, a
    # dict entry per container, about a third of the time of writing a state file. What the
    # hook path encodes is parsed JSON and values built from it, never a cycle; one would end
    # in a RecursionError (the C encoder counts its depth), which fails open like any error.
    encode = accelerator.make_encoder(
        None, default, accelerator.encode_basestring_ascii, None, ":", ",", True, False, False
    )
    return lambda obj: "".join(encode(obj, 0))


def _slow_dumps(obj: object) -> str:
    import json

    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


_loads, _dumps = _build(_accelerator())


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
