"""`@value` classes behave like the small dataclasses they stand in for."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from arcguard.values import value


@value
class Point:
    x: int
    y: int = 0
    label: str = ""
    ORIGIN_NAME: ClassVar[str] = "origin"

    def moved(self, dx: int) -> Point:
        return Point(self.x + dx, self.y, label=self.label)


def test_fields_by_position_keyword_and_default() -> None:
    point = Point(1, label="a")
    assert (point.x, point.y, point.label) == (1, 0, "a")
    assert point.moved(2) == Point(3, 0, "a")
    assert Point.ORIGIN_NAME == "origin"


def test_instances_compare_and_print_by_their_fields() -> None:
    assert Point(1, 2) == Point(1, 2)
    assert Point(1, 2) != Point(2, 1)
    assert repr(Point(1, 2, "a")) == "Point(x=1, y=2, label='a')"


def test_fields_can_change() -> None:
    point = Point(1)
    point.y = 5
    assert point == Point(1, 5)


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((), {}, "missing 'x'"),
        ((1, 2, "a", 4), {}, "takes 3 arguments"),
        ((1,), {"x": 2}, "two values for 'x'"),
        ((1,), {"z": 2}, "no field 'z'"),
    ],
)
def test_wrong_arguments_are_refused(args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        Point(*args, **kwargs)


def test_values_are_not_hashable_since_fields_can_change() -> None:
    with pytest.raises(TypeError):
        hash(Point(1))


class Named:
    def describe(self) -> str:
        return "named"


@value
class Labelled(Named):
    label: str

    def describe(self) -> str:
        return f"{self.label}, {super().describe()}"

    @property
    def kind(self) -> str:
        return type(self).__qualname__


def test_methods_that_call_super_reach_the_rebuilt_class() -> None:
    assert Labelled("a").describe() == "a, named"
    assert Labelled("a").kind == "Labelled"


def _nothing() -> None:
    return None


@value
class WithCallback:
    done: object = _nothing  # a function default stays a plain function on the instance


def test_a_function_default_is_not_bound_to_the_instance() -> None:
    assert WithCallback().done is _nothing


def test_a_class_without_fields_is_refused() -> None:
    # Without this check, a class whose annotations were not found would compare every
    # instance equal to every other, silently.
    with pytest.raises(TypeError, match="no annotated field"):

        @value
        class Empty:
            pass


@pytest.mark.parametrize("default", [[], {}, set(), bytearray()])
def test_a_mutable_default_is_refused(default: object) -> None:
    with pytest.raises(TypeError, match="mutable default"):
        value(type("Shared", (), {"__annotations__": {"items": "list[int]"}, "items": default}))


@value
class Base:
    name: str
    size: int = 1


@value
class Derived(Base):
    colour: str = "red"
    size: int = 2


def test_a_derived_value_class_keeps_its_bases_fields_first() -> None:
    item = Derived("a")
    assert (item.name, item.size, item.colour) == ("a", 2, "red")
    assert Derived("a", 3, "blue") == Derived(name="a", size=3, colour="blue")
    assert repr(Derived("a")) == "Derived(name='a', size=2, colour='red')"
    assert Derived("a") != Base("a", 2)


class ClassVarBox:
    pass


@pytest.mark.parametrize(
    "annotation, is_field",
    [
        ("ClassVar[int]", False),
        ("typing.ClassVar[int]", False),
        (" t.ClassVar ", False),
        ("ClassVarBox", True),
        ("list[ClassVar]", True),
        ("tuple[int, ...]", True),
        (ClassVar[int], False),
        (int, True),
    ],
)
def test_class_variables_are_told_from_fields_by_their_annotation(
    annotation: object, is_field: bool
) -> None:
    made = value(type("Probe", (), {"__annotations__": {"first": "int", "probe": annotation}}))
    assert ("probe" in made.__match_args__) is is_field


def test_lazy_annotations_are_read_when_the_class_has_no_annotations_dict() -> None:
    # Python 3.14 and later, in a module without the future import, give a class only an
    # `__annotate__` function; the fields must come from it all the same.
    def __annotate__(format: int) -> dict[str, object]:
        assert format in (1, 3)
        return {"x": int, "label": str}

    made = value(type("Lazy", (), {"__annotate__": __annotate__, "label": ""}))
    assert made.__match_args__ == ("x", "label")
    assert made(1) == made(1, "")


def test_every_module_defining_value_classes_has_the_future_import() -> None:
    # With it, the annotations are a plain dict of strings on every Python, and reading them
    # costs no import.
    root = Path(__file__).resolve().parents[1]
    missing = [
        str(path.relative_to(root))
        for folder in ("src", "testing", "tests", "benchmarks", "scripts")
        for path in (root / folder).rglob("*.py")
        if "@value" in (text := path.read_text(encoding="utf-8"))
        and "from __future__ import annotations" not in text
    ]
    assert missing == []
