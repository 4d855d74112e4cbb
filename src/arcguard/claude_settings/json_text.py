"""Settings JSON as text: strict parsing, and edits that keep every untouched byte.

Pure. Claude Code reads settings with a standard JSON parser and ignores a whole file it
cannot parse, so arcguard accepts only standard JSON (no NaN or Infinity, no duplicate keys,
no unpaired surrogate escapes) and never re-serialises a value the user wrote: a changed file
is the old text with only the changed members spliced, in the file's own indentation style.
Adding a member and removing it again therefore gives back the original bytes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from typing import NamedTuple

from arcguard.errors import ArcguardError


if TYPE_CHECKING:
    from arcguard.jsonio import JSONObject


class JsonRefused(ArcguardError, ValueError):
    """Text that is not standard JSON, or not JSON arcguard can edit without changing it."""


class RawNumber(float):
    """A number that keeps the text it was written as (`1e400`, `1.10`, `-0` stay so)."""

    text: str

    def __new__(cls, text: str) -> RawNumber:
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __deepcopy__(self, memo: object) -> RawNumber:
        return self  # immutable: a copy would be the same number


def _number(text: str) -> int | RawNumber:
    if re.fullmatch(r"-?(?:0|[1-9][0-9]*)", text) and text != "-0":
        return int(text)  # an int re-emits its text exactly
    return RawNumber(text)


def _constant(name: str) -> None:
    raise JsonRefused(f"{name} is not standard JSON (Claude Code would reject the file)")


def _pairs(pairs: list[tuple[str, object]]) -> JSONObject:
    found = dict(pairs)
    if len(found) != len(pairs):
        keys = [k for k, _ in pairs]
        twice = next(k for i, k in enumerate(keys) if k in keys[:i])
        raise JsonRefused(f"duplicate key {twice!r} (which one applies is undefined)")
    return found


def _check_strings(value: object) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and re.search("[\ud800-\udfff]", item):
            raise JsonRefused(f"unpaired surrogate escape in {item[:40]!r} (not valid Unicode)")


def loads(text: str) -> object:
    """The value of standard JSON `text`; JsonRefused for anything else."""
    import json

    try:
        value = json.loads(
            text,
            parse_float=RawNumber,
            parse_int=_number,
            parse_constant=_constant,
            object_pairs_hook=_pairs,
        )
    except RecursionError:
        raise JsonRefused("nested too deeply") from None
    except JsonRefused:
        raise
    except ValueError as exc:
        raise JsonRefused(str(exc)) from None
    _check_strings(value)
    return value


# --- where each value sits in the text -------------------------------------------------------


class Node(NamedTuple):
    start: int
    end: int
    # Members of an object or array: (where the member starts, its value's node).
    items: list[tuple[int, Node]]


_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_SCALAR = re.compile(r'"(?:[^"\\]|\\.)*"|[^,\]}\s]+', re.S)


def _skip(text: str, pos: int) -> int:
    return _WS.match(text, pos).end()  # type: ignore[union-attr]


def scan(text: str, pos: int = 0) -> Node:
    """The layout of the value at `pos` of `text`, which `loads` has accepted."""
    pos = _skip(text, pos)
    opener = text[pos]
    if opener not in "{[":
        return Node(pos, _SCALAR.match(text, pos).end(), [])  # type: ignore[union-attr]
    closer = "}" if opener == "{" else "]"
    begin, items = pos, []
    pos = _skip(text, pos + 1)
    while text[pos] != closer:
        start = pos
        if opener == "{":
            pos = _skip(text, _STRING.match(text, pos).end()) + 1  # type: ignore[union-attr]
        node = scan(text, pos)
        items.append((start, node))
        pos = _skip(text, node.end)
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
    return Node(begin, pos + 1, items)


# --- writing ---------------------------------------------------------------------------------


class Style(NamedTuple):
    unit: str | None  # one level of indentation; None: everything on one line
    colon: str
    comma: str  # between members on one line


DEFAULT_STYLE = Style("  ", ": ", ", ")


def detect_style(text: str) -> Style:
    """The indentation (tabs, 2 or 4 spaces, one line) and separators `text` already uses."""
    colon = ":" if '":' in text and not re.search(r'"\s*:\s', text) else ": "
    if "," in text:
        comma = "," if not re.search(r",\s", text) else ", "
    else:
        comma = "," if colon == ":" else ", "
    body = text.strip()
    if re.fullmatch(r"\{\s*\}|", body):
        return DEFAULT_STYLE  # an empty object has no style to keep
    if "\n" not in body:
        return Style(None, colon, comma)
    for line in body.splitlines()[1:]:
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        if indent and line.strip():
            return Style(indent, colon, comma)
    return Style(DEFAULT_STYLE.unit, colon, comma)


def _scalar(value: object) -> str:
    import json
    import math

    if isinstance(value, RawNumber):
        return value.text
    if isinstance(value, float) and not math.isfinite(value):
        raise JsonRefused(f"{value} cannot be written as standard JSON")
    return json.dumps(value, ensure_ascii=False)


def render(value: object, style: Style = DEFAULT_STYLE, depth: int = 0) -> str:
    """`value` as JSON in `style`, its nested lines indented for `depth`."""
    import json

    if isinstance(value, dict):
        items = [
            json.dumps(k, ensure_ascii=False) + style.colon + render(v, style, depth + 1)
            for k, v in value.items()
        ]
        opener, closer = "{", "}"
    elif isinstance(value, list):
        items = [render(v, style, depth + 1) for v in value]
        opener, closer = "[", "]"
    else:
        return _scalar(value)
    if not items:
        return opener + closer
    if style.unit is None:
        return opener + style.comma.join(items) + closer
    inner = "\n" + style.unit * (depth + 1)
    return opener + inner + ("," + inner).join(items) + "\n" + style.unit * depth + closer


def same(a: object, b: object) -> bool:
    """Equal as JSON text would be: types, key order and number spelling included."""
    if type(a) is not type(b):
        return False
    # `b` is of `a`'s type from here on; the second checks only tell the type checker so.
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, RawNumber) and isinstance(b, RawNumber):
        return a.text == b.text
    return bool(a == b)


def rewrite(text: str | None, old: object, new: object) -> str:
    """`text` (holding `old`) changed to hold `new`, keeping every unchanged member's bytes."""
    if text is None or not text.strip():
        return render(new) + "\n"
    root = scan(text)
    edited = _edit(text, root, old, new, 0, detect_style(text))
    result = text[: root.start] + edited + text[root.end :]
    if not same(loads(result), new):  # a splice must never change what the file means
        return render(new, detect_style(text)) + "\n"
    return result


def _edit(text: str, node: Node, old: object, new: object, depth: int, style: Style) -> str:
    if same(old, new):
        return text[node.start : node.end]
    if node.items and isinstance(old, dict) and isinstance(new, dict):
        pieces = _object_pieces(text, node, old, new, depth, style)
        if pieces is not None:
            return _join(text, node, pieces, depth, style)
    if node.items and isinstance(old, list) and isinstance(new, list):
        return _join(text, node, _array_pieces(text, node, old, new, depth, style), depth, style)
    return render(new, style, depth)


def _object_pieces(
    text: str, node: Node, old: JSONObject, new: JSONObject, depth: int, style: Style
) -> list[tuple[str, int | None]] | None:
    """(text, old position or None) per member of `new`; None if members were reordered."""
    import json

    kept = [k for k in old if k in new]
    if list(new) != kept + [k for k in new if k not in old]:
        return None
    where = {k: i for i, k in enumerate(old)}
    pieces: list[tuple[str, int | None]] = []
    for key, value in new.items():
        if key not in where:
            member = json.dumps(key, ensure_ascii=False) + style.colon
            pieces.append((member + render(value, style, depth + 1), None))
            continue
        start, child = node.items[where[key]]
        edited = _edit(text, child, old[key], value, depth + 1, style)
        pieces.append((text[start : child.start] + edited, where[key]))
    return pieces


def _array_pieces(
    text: str, node: Node, old: list[object], new: list[object], depth: int, style: Style
) -> list[tuple[str, int | None]]:
    pieces: list[tuple[str, int | None]] = []
    nxt = 0
    for index, value in enumerate(new):
        match = next((j for j in range(nxt, len(old)) if same(old[j], value)), None)
        later = new[index + 1 :]
        if (
            match is None
            and nxt < len(old)
            and type(old[nxt]) is type(value)
            and isinstance(value, (dict, list))
            and not any(same(old[nxt], v) for v in later)
        ):
            match = nxt  # the same element, changed inside
        if match is None:
            pieces.append((render(value, style, depth + 1), None))
            continue
        child = node.items[match][1]
        pieces.append((_edit(text, child, old[match], value, depth + 1, style), match))
        nxt = match + 1
    return pieces


def _join(
    text: str, node: Node, pieces: list[tuple[str, int | None]], depth: int, style: Style
) -> str:
    """The container's text around `pieces`, reusing its own separators and padding."""
    opener, closer = text[node.start], text[node.end - 1]
    if not pieces:
        return opener + closer
    items = node.items
    seps = [text[items[k][1].end : items[k + 1][0]] for k in range(len(items) - 1)]
    fresh = style.comma if style.unit is None else ",\n" + style.unit * (depth + 1)
    out = [opener, text[node.start + 1 : items[0][0]]]
    previous: int | None = None
    for count, (piece, position) in enumerate(pieces):
        if count:
            out.append(_separator(previous, position, seps, fresh))
        out.append(piece)
        previous = position
    out += [text[items[-1][1].end : node.end - 1], closer]
    return "".join(out)


def _separator(before: int | None, after: int | None, seps: list[str], fresh: str) -> str:
    # The separator that followed the member before, else the one that preceded the member
    # after: a member spliced in and out again leaves the original separator in place.
    if before is not None and before < len(seps):
        return seps[before]
    if after is not None and after > 0:
        return seps[after - 1]
    return seps[-1] if seps else fresh


# --- one member's exact text -----------------------------------------------------------------


def _member(text: str, key: str) -> Node | None:
    """Where the value of the top-level member `key` sits in `text` (an accepted object)."""
    import json

    root = scan(text)
    if text[root.start] != "{":
        return None
    for start, node in root.items:
        name = _STRING.match(text, start)
        if name is not None and json.loads(name.group()) == key:
            return node
    return None


def member_text(text: str | None, key: str) -> str | None:
    """The exact text of the top-level member `key`'s value in `text`, or None."""
    if text is None or not text.strip():
        return None
    node = _member(text, key)
    return None if node is None else text[node.start : node.end]


def with_member_text(text: str, key: str, raw: str) -> str:
    """`text` with the value of its member `key` written as `raw`, when `raw` means exactly
    that value (then a value arcguard took out and put back keeps its own bytes); else `text`
    as it is."""
    node = _member(text, key)
    if node is None:
        return text
    result = text[: node.start] + raw + text[node.end :]
    try:
        if same(loads(result), loads(text)):
            return result
    except JsonRefused:
        pass
    return text
