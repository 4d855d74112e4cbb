"""Edits that move nothing: a failure that after an edit prints the same, but where it quotes
the edit, is that failure again; one that moved in any other way is news.

Each case is a class: a setting toggled that a test run's header reports, a build step
respelt that the build quotes; and the look-alikes, where the edit took effect (an error
fixed, a count lower, another file failing, another error in place of the one before).
"""

from __future__ import annotations

from typing import Any

from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import tag

from arcguard.core.loop_guard import edited
from arcguard.core.tool_call import ToolCall


def edit(path: str, old: str, new: str) -> Call:
    response = {"filePath": path, "structuredPatch": [{"lines": [f"-{old}", f"+{new}"]}]}
    return Call(
        "Edit", {"file_path": path, "old_string": old, "new_string": new}, response=response
    )


def fail(command: str, text: str) -> Call:
    return Call("Bash", {"command": command}, error=f"Exit code 1\n{text}")


def _pytest(mode: str, error: str = "RuntimeError: got Future attached to a different loop") -> str:
    return (
        f"platform linux -- Python 3.12.7, pytest-8.3.3\nasyncio: mode=Mode.{mode.upper()}\n"
        f"tests/test_events.py .....F\nbroker = <MemoryBroker object at 0x7f3a9c21d0b8>\n"
        f"E   {error}\nFAILED tests/test_events.py::test_consume\n1 failed, 5 passed in 0.42s"
    )


def _check_ins(d: Driver, outs: list[dict[str, Any]]) -> list[int]:
    return [n + 1 for n, out in enumerate(outs) if out["context"]]


def test_a_setting_toggled_that_the_failing_run_reports_is_checked_in_on_then_paused():
    d = Driver()
    runs = ("pytest tests/test_events.py -q", "python -m pytest tests -q", "pytest -x -q")
    outs = [d.turn(fail(runs[2], _pytest("auto")))]
    mode = "auto"
    for n in range(8):
        new = ("strict", "auto")[n % 2]
        d.turn(
            edit(
                "/p/pyproject.toml",
                f'asyncio_mode = "{mode}"',
                f'asyncio_mode = "{new}"',
            )
        )
        mode = new
        outs.append(d.turn(fail(runs[n % 3], _pytest(mode))))
    assert _check_ins(d, outs)[:1] == [4]
    assert d.paused is not None and "failed the same way" in d.paused["reason"]


def test_a_build_step_respelt_that_the_build_quotes_is_the_same_failure():
    d = Driver()
    spellings = ("COPY config/ /app/config/", "COPY ./config /app/config", "COPY config /app/")

    def build(step: str) -> Call:
        return fail(
            "docker build -t billing:dev .",
            f"#9 [5/6] {step}\n#9 ERROR: failed to calculate checksum of ref 5d48:c2c2: "
            f'"/config": not found\n------\n > [5/6] {step}:\nERROR: failed to solve',
        )

    outs = [d.turn(build(spellings[0]))]
    for n in range(1, 4):
        d.turn(edit("/p/Dockerfile", spellings[(n - 1) % 3], spellings[n % 3]))
        outs.append(d.turn(build(spellings[n % 3])))
    assert _check_ins(d, outs) == [4]


def _after_each_edit(first: str, later: list[str]) -> list[int]:
    """Check-ins over a failing run, then an edit that the next run echoes before each."""
    d = Driver()
    outs = [d.turn(fail("pytest -q", first))]
    for n, text in enumerate(later):
        old, new = ("auto", "strict")[n % 2], ("strict", "auto")[n % 2]
        d.turn(edit("/p/pyproject.toml", f'mode = "{old}"', f'mode = "{new}"'))
        outs.append(d.turn(fail("pytest -q", text)))
    return _check_ins(d, outs)


def test_a_failure_whose_count_falls_after_an_echoed_edit_is_news():
    runs = [
        _pytest(m).replace("1 failed, 5", f"{4 - n} failed, {n + 5}")
        for n, m in enumerate(("strict", "auto", "strict", "auto"))
    ]
    assert _after_each_edit(_pytest("auto").replace("1 failed", "5 failed"), runs) == []


def test_another_error_in_place_of_the_last_after_an_echoed_edit_is_news():
    errors = ("ValueError: bad mode", "KeyError: 'loop'", "TypeError: x", "OSError: y")
    modes = ("strict", "auto", "strict", "auto")
    runs = [_pytest(m, e) for m, e in zip(modes, errors, strict=True)]
    assert _after_each_edit(_pytest("auto"), runs) == []


def test_another_file_failing_alike_after_an_echoed_edit_is_news():
    runs = [
        _pytest(m).replace("test_events.py", f"test_{m}_{tag(n)}.py")
        for n, m in enumerate(("strict", "auto", "strict", "auto"))
    ]
    assert _after_each_edit(_pytest("auto"), runs) == []


def test_an_error_gone_and_another_scrolled_in_after_an_edit_is_news():
    # A compiler stops at ten errors: one fixed, the next one shows; paths tell them apart.
    def errors(first: int) -> str:
        return "\n".join(
            f"internal/f{n}.go:4:2: s.store.Get undefined (type *Store has no method Get)"
            for n in range(first, first + 10)
        )

    d = Driver()
    outs = [d.turn(fail("go build ./...", errors(0)))]
    for n in range(6):
        d.turn(
            edit(f"/p/internal/f{n}.go", "v, err := s.store.Get(k)", "v, ok := s.store.Lookup(k)")
        )
        outs.append(d.turn(fail("go build ./...", errors(n + 1))))
    assert _check_ins(d, outs) == []


def test_an_edits_swaps_are_its_changed_lines_and_the_one_word_changed_in_each():
    call = ToolCall(
        "Edit", {"old_string": 'a = 1\nmode = "auto"', "new_string": 'a = 1\nmode = "Strict"'}
    )
    assert edited.swaps(call) == [['mode = "strict"', 'mode = "auto"'], ["strict", "auto"]]
    many = {
        "edits": [
            {"old_string": "x y", "new_string": "x z w"},
            {"old_string": "a", "new_string": "b\nc"},
        ]
    }
    assert edited.swaps(ToolCall("MultiEdit", many)) == [["x z w", "x y"]]
    assert edited.swaps(ToolCall("Write", {"content": "all new"})) == []


def test_a_failures_print_keeps_paths_and_its_counts_apart():
    lines = edited.printed(
        "Exit code 1\ntests/a.py:12: assert 3 == 4\n---\n2 failed, 1 passed in 0.3s"
    )
    assert lines == [
        "exit code 0",
        "tests/a.py:0: assert 0 == 0",
        "0 failed, 0 passed in 0s",
        "=2f 1p",
    ]


def test_one_of_two_errors_gone_after_an_echoed_edit_is_news():
    both = _pytest("auto").replace("E   ", "E   KeyError: 'loop'\nE   ")
    runs = [_pytest(m) for m in ("strict", "auto", "strict")]
    assert _after_each_edit(both, runs) == []
