"""Small value classes without `dataclasses`.

`import dataclasses` pulls in `inspect` and `re`, about a quarter of what a hook costs, so the
hook path cannot use it. `@value` does the part arcguard needs: the annotated names, in order,
become slots and the parameters of a generated `__init__` (positional or by keyword, with the
class-level defaults), and instances compare and print by their fields. mypy reads it as a
dataclass (`dataclass_transform`), so a wrong field or a missing argument is a type error.

Defaults are shared between instances, so they must be immutable: use a tuple, not a list.
A value class has no base class of its own fields; `ClassVar` annotations are not fields.
It is meant for values: an exception keeps its `__init__`, so that its base constructor runs.
"""

from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterable
    from typing import TypeVar
    from typing import dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_options):
        return lambda decorator: decorator


@dataclass_transform()
def value(cls: type[T]) -> type[T]:
    """`cls` rebuilt with slots for its annotated fields and an `__init__`, `__eq__`, `__repr__`."""
    # Read from the class's own namespace: `inspect.get_annotations` would import `inspect`.
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
    names = tuple(name for name, kind in annotations.items() if "ClassVar" not in str(kind))
    defaults = {name: cls.__dict__[name] for name in names if name in cls.__dict__}
    namespace = {
        key: item
        for key, item in cls.__dict__.items()
        if key not in defaults and key not in ("__dict__", "__weakref__")
    }
    namespace["__slots__"] = names
    namespace["__match_args__"] = names
    namespace["__init__"] = _init(cls.__name__, names, defaults)
    namespace["__eq__"] = _eq
    namespace["__hash__"] = None  # fields can be reassigned, so instances are not hashable
    namespace.setdefault("__repr__", _repr)
    namespace["__qualname__"] = cls.__qualname__
    rebuilt: type[T] = type(cls.__name__, cls.__bases__, namespace)
    _rebind(namespace.values(), cls, rebuilt)
    return rebuilt


def _rebind(members: Iterable[object], old: type, new: type) -> None:
    """Point the methods' `__class__` cell (what bare `super()` reads) at the rebuilt class."""
    for member in members:
        function = member.fget if isinstance(member, property) else member
        function = getattr(function, "__func__", function)  # classmethod, staticmethod
        for cell in getattr(function, "__closure__", None) or ():
            try:
                if cell.cell_contents is old:
                    cell.cell_contents = new
            except ValueError:  # an empty cell
                continue


def _init(owner: str, names: tuple[str, ...], defaults: dict[str, object]) -> Callable[..., None]:
    def __init__(self: object, *args: object, **kwargs: object) -> None:
        if len(args) > len(names):
            raise TypeError(f"{owner}() takes {len(names)} arguments, {len(args)} given")
        for name, arg in zip(names, args, strict=False):
            if name in kwargs:
                raise TypeError(f"{owner}() got two values for {name!r}")
            setattr(self, name, arg)
        for name in names[len(args) :]:
            if name in kwargs:
                setattr(self, name, kwargs.pop(name))
            elif name in defaults:
                setattr(self, name, defaults[name])
            else:
                raise TypeError(f"{owner}() is missing {name!r}")
        if kwargs:
            raise TypeError(f"{owner}() has no field {next(iter(kwargs))!r}")

    return __init__


def _fields(item: object) -> tuple[object, ...]:
    return tuple(getattr(item, name) for name in type(item).__slots__)  # type: ignore[attr-defined]


def _eq(self: object, other: object) -> bool:
    return type(other) is type(self) and _fields(self) == _fields(other)


def _repr(self: object) -> str:
    names = type(self).__slots__  # type: ignore[attr-defined]
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
    return f"{type(self).__name__}({shown})"
