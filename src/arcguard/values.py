"""Small value classes without `dataclasses`.

`import dataclasses` pulls in `inspect` and `re`, which the hook path never loads
(`benchmarks/bench_hooks.py` checks that they stay absent), so the hook path cannot use it.
`@value` does the part arcguard needs: the annotated names, in order, become the parameters of
a generated `__init__` (positional or by keyword, with the class-level defaults), and
instances compare and print by their fields. mypy reads it as a dataclass
(`dataclass_transform`), so a wrong field or a missing argument is a type error.

What it refuses rather than get wrong, at class creation:
- a class with no annotated field (every instance would compare equal to every other);
- a mutable default (a list, dict, set or bytearray would be shared by every instance: use a
  tuple or a frozenset).
A value class may derive from another: the base's fields come first, as with dataclasses.
`ClassVar` annotations are not fields. An exception keeps its own `__init__`, so that its base
constructor runs.

Annotations are read from the class's own namespace. Under `from __future__ import annotations`
(which ruff requires of every module here) that is a dict of strings on every Python; a module
without it on Python 3.14 or later has only the lazy `__annotate__` function, read through
`annotationlib` in that case alone, so the usual start-up never imports it.
"""

from __future__ import annotations

import sys


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar
    from typing import dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_options):
        return lambda decorator: decorator


_MUTABLE = (list, dict, set, bytearray)


@dataclass_transform()
def value(cls: type[T]) -> type[T]:
    """`cls` with an `__init__`, `__eq__` and `__repr__` over its annotated fields.

    The class is completed in place, not rebuilt (as slots would need): a hook loads a few
    dozen of these, and rebuilding each one is start-up time it would pay on every call.
    """
    inherited, defaults = _inherited(cls)
    own = tuple(name for name, kind in _annotations(cls).items() if not _is_class_var(kind))
    names = inherited + tuple(name for name in own if name not in inherited)
    if not names:
        raise TypeError(f"@value class {cls.__qualname__} has no annotated field")
    defaults.update({name: cls.__dict__[name] for name in own if name in cls.__dict__})
    for name, default in defaults.items():
        if isinstance(default, _MUTABLE):
            raise TypeError(
                f"{cls.__qualname__}.{name}: a mutable default would be shared by every "
                "instance; use an immutable one (a tuple, a frozenset)"
            )
    setattr(cls, "__match_args__", names)  # noqa: B010 (mypy refuses the plain assignment)
    setattr(cls, "__value_defaults__", defaults)  # noqa: B010
    setattr(cls, "__init__", _init(cls.__name__, names, defaults))  # noqa: B010
    setattr(cls, "__eq__", _eq)  # noqa: B010
    setattr(cls, "__hash__", None)  # noqa: B010 (fields can be reassigned: not hashable)
    if "__repr__" not in cls.__dict__:
        setattr(cls, "__repr__", _repr)  # noqa: B010
    return cls


def _inherited(cls: type) -> tuple[tuple[str, ...], dict[str, object]]:
    """The fields and defaults of the nearest value class among `cls`'s bases."""
    for base in cls.__mro__[1:]:
        if "__value_defaults__" in base.__dict__:
            return base.__match_args__, dict(base.__value_defaults__)  # type: ignore[attr-defined]
    return (), {}


def _annotations(cls: type) -> dict[str, object]:
    own = cls.__dict__.get("__annotations__")  # noqa: RUF063 (inspect would be imported)
    if isinstance(own, dict):
        return own
    annotate = cls.__dict__.get("__annotate__")
    if annotate is None:
        return {}
    return _lazy_annotations(cls, annotate)


def _lazy_annotations(cls: type, annotate: Callable[[int], dict[str, object]]) -> dict[str, object]:
    # Python 3.14 and later, in a module without the future import: ask for forward
    # references, so a name imported only for type checking does not fail the class.
    try:
        import annotationlib  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return annotate(1)  # Format.VALUE: the one every `__annotate__` must support
    return dict(
        annotationlib.get_annotations(cls, format=annotationlib.Format.FORWARDREF)  # type: ignore[unused-ignore]
    )


def _is_class_var(kind: object) -> bool:
    if isinstance(kind, str):
        head = kind.partition("[")[0].strip()
        return head == "ClassVar" or head.endswith(".ClassVar")
    typing = sys.modules.get("typing")  # a ClassVar object means typing is loaded already
    if typing is None:
        return False
    return kind is typing.ClassVar or getattr(kind, "__origin__", None) is typing.ClassVar


def _init(owner: str, names: tuple[str, ...], defaults: dict[str, object]) -> Callable[..., None]:
    # Two dict updates, the defaults and then what was given, keep building the few hundred
    # values a hook makes cheap. A default is stored on the instance too: read from the class,
    # a function default would come back as a bound method.
    fields = frozenset(names)
    required = fields - defaults.keys()

    def __init__(self: object, *args: object, **kwargs: object) -> None:
        if len(args) > len(names):
            raise TypeError(f"{owner}() takes {len(names)} arguments, {len(args)} given")
        given = dict(zip(names, args, strict=False))
        if kwargs:
            for name in kwargs:
                if name not in fields:
                    raise TypeError(f"{owner}() has no field {name!r}")
                if name in given:
                    raise TypeError(f"{owner}() got two values for {name!r}")
            given.update(kwargs)
        if not required <= given.keys():
            missing = next(name for name in names if name in required and name not in given)
            raise TypeError(f"{owner}() is missing {missing!r}")
        self.__dict__.update(defaults)
        self.__dict__.update(given)

    return __init__


def _fields(item: object) -> tuple[object, ...]:
    return tuple(getattr(item, name) for name in type(item).__match_args__)  # type: ignore[attr-defined]


def _eq(self: object, other: object) -> bool:
    return type(other) is type(self) and _fields(self) == _fields(other)


def _repr(self: object) -> str:
    names = type(self).__match_args__  # type: ignore[attr-defined]
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
    return f"{type(self).__name__}({shown})"
