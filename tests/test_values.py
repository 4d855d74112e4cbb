"""`@value` classes behave like the small dataclasses they stand in for."""

from __future__ import annotations

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
