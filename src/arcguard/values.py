"""Small value classes without `dataclasses`.

`import dataclasses` pulls in `inspect` and `re`, which the hook path never loads
(`benchmarks/bench_hooks.py` checks that they stay absent), so the hook path cannot use it.
`@value` does the part arcguard needs: the annotated names, in order, become the parameters of
a generated `__init__` (positional or by keyword, with the class-level defaults), and
instances compare and print by their fields. mypy reads it as a dataclass
(`dataclass_transform`), so a wrong field or a missing argument is a type error.

Defaults are shared between instances, so they must be immutable: use a tuple, not a list.
A value class has no base class of its own fields; `ClassVar` annotations are not fields.
It is meant for values: an exception keeps its `__init__`, so that its base constructor runs.
"""

from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar
    from typing import dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_options):
        return lambda decorator: decorator


@dataclass_transform()
def value(cls: type[T]) -> type[T]:
    """`cls` with an `__init__`, `__eq__` and `__repr__` over its annotated fields.

    The class is completed in place, not rebuilt (as slots would need): a hook loads a few
    dozen of these, and rebuilding each one is start-up time it would pay on every call.
    """
    # Read from the class's own namespace: `inspect.get_annotations` would import `inspect`.
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
    names = tuple(name for name, kind in annotations.items() if "ClassVar" not in str(kind))
    defaults = {name: cls.__dict__[name] for name in names if name in cls.__dict__}
    setattr(cls, "__match_args__", names)  # noqa: B010 (mypy refuses the plain assignment)
    setattr(cls, "__init__", _init(cls.__name__, names, defaults))  # noqa: B010
    setattr(cls, "__eq__", _eq)  # noqa: B010
    setattr(cls, "__hash__", None)  # noqa: B010 (fields can be reassigned: not hashable)
    if "__repr__" not in cls.__dict__:
        setattr(cls, "__repr__", _repr)  # noqa: B010
    return cls


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
