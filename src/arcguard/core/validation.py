"""Typed records over the state file's JSON objects, and the checks a loaded file must pass.

A record (`Record`) is a thin view over one parsed JSON object: each field is declared once,
in `core.schema`, with its type (the annotation), its check and its default (`field`, `opt`,
`sub`, `maybe`, `many`, `keyed`). Reading a field reads the underlying dict, and writing one writes
it, so a loaded file is never converted (a hook pays nothing at load for the operations and
runs it does not touch) and what is saved is the same dict. A field absent from the dict reads
as its default; a container read that way is a new one, not yet in the dict: assign it back to
keep it. mypy reads each record as a dataclass (`dataclass_transform`), so a wrong field name
or type is a type error, and `Run(seq=1, ...)` builds a new record with the fields given.

The check of every record is derived from its fields: every field the hooks and verbs read is
checked for the type they assume, down to each run of each operation, so that a file that
parses but holds `"tracks": [1]` is set aside like an unparsable one instead of failing every
hook of its session. Fields this version does not know are allowed (a newer version may add
some); a field it knows must have its type, and the required ones must be present.

Pure: no I/O.
"""

from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterable
    from collections.abc import Iterator
    from typing import Generic
    from typing import Protocol
    from typing import Self
    from typing import TypeVar
    from typing import dataclass_transform

    from arcguard.jsonio import JSONObject

    T = TypeVar("T")
    T_co = TypeVar("T_co", covariant=True)
    R = TypeVar("R", bound="Record")

    class _Typed(Generic[T]):
        pass

    class Check(Protocol[T_co]):
        """A check of a JSON value that, when it passes, holds a `T_co`: it returns None for a
        good value, else what is wrong, with the path to it from the value checked
        (`.guard.tracks: expected an object`). Paths are only built on the way back from a
        problem: the hooks check every load, and most loads are good. At run time a check is
        a plain function: a load calls one for every value of the file."""

        def __call__(self, value: object, /) -> str | None: ...

else:
    T = T_co = R = None

    class _Typed:
        __slots__ = ()

        def __class_getitem__(cls, _item):
            return cls

    def dataclass_transform(**_options):
        return lambda decorator: decorator


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# The exact types that pass a check, for the checks that are a test of type alone: a value of
# one of them passes without the check being called. A file's values are exactly the types the
# JSON parser makes, so a load of a good file checks its scalars, and lists and maps of them,
# in C; any other value goes through the check itself, which says what is wrong and where.
_EXACT: dict[object, frozenset[type]] = {}


def _exactly(check: Check[T], types: frozenset[type]) -> Check[T]:
    _EXACT[check] = types
    return check


def _scalar(test: Callable[[object], bool], what: str, *types: type) -> Check[T]:
    problem = f": expected {what}"
    return _exactly(lambda value: None if test(value) else problem, frozenset(types))


INT: Check[int] = _scalar(_is_int, "an integer", int)
NUMBER: Check[float] = _scalar(_is_number, "a number", int, float)
STR: Check[str] = _scalar(lambda v: isinstance(v, str), "a string", str)
BOOL: Check[bool] = _scalar(lambda v: isinstance(v, bool), "true or false", bool)
LIST: Check[list[object]] = _scalar(lambda v: isinstance(v, list), "a list", list)


def optional(check: Check[T]) -> Check[T | None]:
    """`check`, or null."""
    checked: Check[T | None] = lambda value: None if value is None else check(value)  # noqa: E731
    exact = _EXACT.get(check)
    return checked if exact is None else _exactly(checked, exact | {type(None)})


def list_of(check: Check[T]) -> Check[list[T]]:
    exact = _EXACT.get(check)

    def checked(value: object) -> str | None:
        if not isinstance(value, list):
            return ": expected a list"
        if exact is not None and exact.issuperset(map(type, value)):
            return None
        for n, item in enumerate(value):
            wrong = check(item)
            if wrong is not None:
                return f"[{n}]{wrong}"
        return None

    return checked


def map_of(check: Check[T]) -> Check[dict[str, T]]:
    exact = _EXACT.get(check)

    def checked(value: object) -> str | None:
        if not isinstance(value, dict):
            return ": expected an object"
        if exact is not None and exact.issuperset(map(type, value.values())):
            return None
        for key, item in value.items():
            wrong = check(item)
            if wrong is not None:
                return f".{key}{wrong}"
        return None

    return checked


def record_check(
    fields: dict[str, Check[object]], required: tuple[str, ...], other: Check[object] | None
) -> Check[JSONObject]:
    """An object: `required` keys present, known keys of their type, others checked by `other`
    (anything goes when it is None)."""
    # A known field's own exact types, or None when its check is more than a type test;
    # only keys the record does not know go by `other`'s.
    exact = {key: _EXACT.get(check) for key, check in fields.items()}
    other_exact = _EXACT.get(other) if other is not None else None

    def checked(value: object) -> str | None:
        if not isinstance(value, dict):
            return ": expected an object"
        for key in required:
            if key not in value:
                return f": missing {key}"
        for key, item in value.items():
            types = exact.get(key, other_exact)
            if types is not None and type(item) in types:
                continue
            check = fields.get(key, other)
            wrong = None if check is None else check(item)
            if wrong is not None:
                return f".{key}{wrong}"
        return None

    return checked


# --- fields --------------------------------------------------------------------------------


class _Missing:
    __slots__ = ()


MISSING = _Missing()


class Field:
    """One field of a record: its key in the JSON object, its check, and what it reads as
    when absent (a required field has no default: the check guarantees it is there).

    Slotted and made without `@value`: a hook declares every field of the schema at start-up,
    a few hundred of them."""

    __slots__ = ("check", "default", "factory", "kind", "name")
    check: Check[object]
    default: object
    factory: Callable[[], object] | None
    kind: type[Record] | None  # a record field's record
    name: str

    @classmethod
    def made(
        cls,
        check: Check[object],
        default: object,
        factory: Callable[[], object] | None,
        kind: type[Record] | None = None,
    ) -> Self:
        made = object.__new__(cls)
        made.check, made.default, made.factory, made.kind = check, default, factory, kind
        made.name = ""
        return made

    @property
    def required(self) -> bool:
        return self.default is MISSING and self.factory is None

    def __get__(self, obj: Record | None, owner: type | None = None) -> object:
        if obj is None:
            return self
        data = obj.data
        name = self.name
        if name in data:
            return self.load(data[name])
        if self.factory is not None:
            return self.load(self.factory())
        if self.default is MISSING:
            raise AttributeError(name)
        return self.default

    def __set__(self, obj: Record, value: object) -> None:
        obj.data[self.name] = self.dump(value)

    def __delete__(self, obj: Record) -> None:
        obj.data.pop(self.name, None)  # `del record.field`: back to its default

    def load(self, raw: object) -> object:
        return raw

    def dump(self, value: object) -> object:
        return value


class _Sub(Field):
    __slots__ = ()

    def load(self, raw: object) -> object:
        return None if raw is None else self.kind.view(raw)  # type: ignore[union-attr, arg-type]

    def dump(self, value: object) -> object:
        return value.data if isinstance(value, Record) else value


class _Many(_Sub):
    __slots__ = ()

    def load(self, raw: object) -> object:
        view = Keyed if isinstance(raw, dict) else Many
        return view.over(self.kind, raw)  # type: ignore[arg-type]

    def dump(self, value: object) -> object:
        return value.items if isinstance(value, Many | Keyed) else value


def field(
    check: Check[T],
    *,
    default: T | _Missing = MISSING,
    default_factory: Callable[[], T] | None = None,
) -> T:
    """A field of JSON data (a number, a text, a list of them...) checked by `check`."""
    return Field.made(check, default, default_factory)  # type: ignore[return-value]


def opt(check: Check[T], *, default: None = None) -> T | None:
    """A field that may be absent, and then reads as None (null is not a value it takes)."""
    return Field.made(check, None, None)  # type: ignore[return-value]


def sub(kind: type[R], *, default_factory: Callable[[], object] | None = None) -> R:
    """A field holding a record (`default_factory`: it may be absent, and reads as empty)."""
    factory = dict if default_factory is not None else None
    return _Sub.made(kind.check, MISSING, factory, kind)  # type: ignore[return-value]


def maybe(kind: type[R], *, default: None = None, null: bool = True) -> R | None:
    """A field holding a record, that reads as None when absent (`null`: or when null)."""
    return _Sub.made(optional(kind.check) if null else kind.check, None, None, kind)  # type: ignore[return-value]


def many(kind: type[R], *, default_factory: Callable[[], object] | None = None) -> Many[R]:
    """A field holding a list of records."""
    factory = list if default_factory is not None else None
    return _Many.made(list_of(kind.check), MISSING, factory, kind)  # type: ignore[return-value]


def keyed(kind: type[R], *, default_factory: Callable[[], object] | None = None) -> Keyed[R]:
    """A field holding an object of records by key."""
    factory = dict if default_factory is not None else None
    return _Many.made(map_of(kind.check), MISSING, factory, kind)  # type: ignore[return-value]


# --- records -------------------------------------------------------------------------------


@dataclass_transform(kw_only_default=True, field_specifiers=(field, opt, sub, maybe, many, keyed))
class Record:
    """A typed view over one JSON object of the state file (see the module's docstring).

    `Kind(a=1)` makes a new object with the fields given, in that order; `Kind.view(data)`
    reads an existing one (checked by `Kind.check` when it was loaded)."""

    __slots__ = ("data",)
    fields: dict[str, Field]
    check: Check[JSONObject]

    def __init_subclass__(cls, other: Check[object] | None = None) -> None:
        # One pass, naming each field as it goes: every hook declares the whole schema.
        own: dict[str, Field] = {}
        checks: dict[str, Check[object]] = {}
        required: list[str] = []
        for name, declared in cls.__dict__.items():
            if isinstance(declared, Field):
                declared.name = name
                own[name] = declared
                checks[name] = declared.check
                if declared.default is MISSING and declared.factory is None:
                    required.append(name)
        cls.fields = own
        cls.check = record_check(checks, tuple(required), other)

    data: JSONObject

    def __new__(cls, **values: object) -> Self:
        made = object.__new__(cls)
        made.data = {}
        for name, given in values.items():
            setattr(made, name, given)
        return made

    @classmethod
    def view(cls, data: JSONObject) -> Self:
        made = object.__new__(cls)
        made.data = data
        return made

    def has(self, name: str) -> bool:
        """The field is in the object (not read as its default)."""
        return name in self.data

    def raw(self, name: str) -> object:
        """The field's JSON value as it is, None when absent: for data not checked yet."""
        return self.data.get(name)

    def valid(self, name: str) -> bool:
        """The field is in the object and passes its check: for data not checked as a whole."""
        return name in self.data and type(self).fields[name].check(self.data[name]) is None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and type(other) is type(self) and other.data == self.data

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.data!r})"


class Many(_Typed[R]):
    """A list of records, as a view over the JSON list."""

    __slots__ = ("items", "kind")
    kind: type[R]
    items: list[JSONObject]

    @classmethod
    def over(cls, kind: type[R], items: list[JSONObject]) -> Many[R]:
        made = object.__new__(cls)
        made.kind = kind
        made.items = items
        return made

    @classmethod
    def of(cls, kind: type[R], records: Iterable[R]) -> Many[R]:
        return cls.over(kind, [item.data for item in records])

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[R]:
        view = self.kind.view
        return (view(item) for item in self.items)

    def __getitem__(self, index: int) -> R:
        return self.kind.view(self.items[index])

    def append(self, item: R) -> None:
        self.items.append(item.data)

    def keep_last(self, count: int) -> None:
        del self.items[:-count]


class Keyed(_Typed[R]):
    """An object of records by key, as a view over the JSON object."""

    __slots__ = ("items", "kind")
    kind: type[R]
    items: dict[str, JSONObject]

    @classmethod
    def over(cls, kind: type[R], items: dict[str, JSONObject]) -> Keyed[R]:
        made = object.__new__(cls)
        made.kind = kind
        made.items = items
        return made

    def __len__(self) -> int:
        return len(self.items)

    def __contains__(self, key: str) -> bool:
        return key in self.items

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.items))

    def __getitem__(self, key: str) -> R:
        return self.kind.view(self.items[key])

    def __setitem__(self, key: str, item: R) -> None:
        self.items[key] = item.data

    def __delitem__(self, key: str) -> None:
        del self.items[key]

    def get(self, key: str) -> R | None:
        found = self.items.get(key)
        return None if found is None else self.kind.view(found)

    def pop(self, key: str) -> R | None:
        found = self.items.pop(key, None)
        return None if found is None else self.kind.view(found)

    def values(self) -> Iterator[R]:
        view = self.kind.view
        return (view(item) for item in self.items.values())

    def pairs(self) -> Iterator[tuple[str, R]]:
        view = self.kind.view
        return ((key, view(item)) for key, item in self.items.items())
