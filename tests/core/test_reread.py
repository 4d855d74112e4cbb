"""One failure read again and again through other readers (`reread`): asked about at the 4th
reading, paused at the 6th; whatever brings another failing line, or changes something, does
not count."""

from __future__ import annotations

from typing import Any

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import edit
from testing.guard_driver import nudge_rule
from testing.guard_driver import staged
from testing.guard_driver import tag

from arcguard.core.loop_guard import reread
from arcguard.core.schema import StateFile
from arcguard.core.tool_call import ToolResult


LOG = "logs/app.log"
TRACE = [
    "2026-05-12 08:14:03,221 ERROR django.request Internal Server Error: /webhooks/orders",
    "Traceback (most recent call last):",
    '  File "/srv/app/webhooks/shopify.py", line 31, in _shipping_from_payload',
    '    "phone": addr["phone"],',
    "KeyError: 'phone'",
]


def _logged(at: str) -> list[str]:
    """The traceback as the log holds it, logged at `at`."""
    return [TRACE[0].replace("08:14:03,221", at), *TRACE[1:]]


def _read(offset: int, at: str) -> Call:
    """The `Read` tool's answer: the file's lines, numbered as the model sees them."""
    content = "\n".join(f"{offset + n:6}→{line}" for n, line in enumerate(_logged(at)))
    return Call(
        "Read",
        {"file_path": f"/srv/app/{LOG}", "offset": offset, "limit": 5},
        response={"type": "text", "file": {"filePath": f"/srv/app/{LOG}", "content": content}},
    )


def _read_file(path: str) -> Call:
    content = "\n".join(_logged("08:14:03,221"))
    return Call(
        "Read",
        {"file_path": path},
        response={"type": "text", "file": {"filePath": path, "content": content}},
    )


def _numbered(first: int, at: str, path: str = "") -> str:
    """The traceback as `grep -n` (or `grep -rn`, given `path`) prints it."""
    return "\n".join(f"{path}{first + n}:{line}" for n, line in enumerate(_logged(at)))


READINGS = [
    bash(f"grep -n -A4 'Internal Server Error' {LOG} | head -5", _numbered(2504, "08:14:03,221")),
    _read(6148, "10:46:48,588"),
    bash(f"tail -n 5 {LOG}", "\n".join(_logged("10:46:48,588"))),
    bash(
        "grep -rn -A4 'Internal Server Error' logs | tail -5",
        _numbered(6148, "10:46:48,588", f"{LOG}:"),
    ),
    bash(f"sed -n '4275,4279p' {LOG}", "\n".join(_logged("09:28:09,557"))),
    bash(f"grep -B1 -A3 Traceback {LOG} | tail -5", "\n".join(_logged("10:38:40,516"))),
    bash(
        f"awk '/Internal Server Error/,/KeyError/' {LOG} | tail -5",
        "\n".join(_logged("10:12:01,004")),
    ),
]
CODE = Call(
    "Read",
    {"file_path": "/srv/app/webhooks/shopify.py"},
    response={"type": "text", "file": {"filePath": "x", "content": "def f():\n    return 1"}},
)


def test_one_traceback_read_through_every_reader_is_asked_about_then_paused():
    d = Driver()
    seen = staged(d, READINGS)
    assert seen == ["", "", "", "word", "", "pause"]
    assert nudge_rule(d) == "reread"
    assert "read 6 ways" in d.paused["reason"]


def test_the_request_says_what_was_read_again():
    d = Driver()
    for call in READINGS[:3]:
        d.turn(call)
    (text,) = d.turn(READINGS[3])["context"]
    assert "The same failure, read 4 ways" in text and "awk" not in text


def test_other_looks_between_the_readings_do_not_end_the_run():
    d = Driver()
    calls = [*READINGS[:2], CODE, bash("git log --oneline -3", "a1b2c3d fix"), *READINGS[2:4]]
    assert staged(d, calls)[-1] == "word"


def test_many_looks_without_a_failing_line_end_the_run():
    d = Driver()
    staged(d, READINGS[:3])
    staged(d, [bash(f"cat src/mod{n}.py", f"x = {n}") for n in range(reread.GAP + 1)])
    assert "word" not in staged(d, READINGS[3:6])


@pytest.mark.parametrize(
    "between",
    [
        edit("/srv/app/webhooks/shopify.py", 'addr["phone"]', 'addr.get("phone", "")'),
        bash("docker compose restart web", " Container web  Started"),
    ],
)
def test_an_edit_or_a_change_between_starts_the_count_again(between: Call):
    d = Driver()
    staged(d, READINGS[:3])
    d.turn(between)
    assert staged(d, READINGS[3:6]) == ["", "", ""]


def test_the_users_words_start_the_count_again():
    d = Driver()
    staged(d, READINGS[:3])
    d.operator("look at the handler, not the log")
    assert "word" not in staged(d, READINGS[3:6])


def test_a_reading_that_shows_another_failure_too_is_not_counted():
    d = Driver()
    staged(d, READINGS[:3])
    other = [*_logged("11:02:00,001"), "ValueError: invalid literal for int() with base 10: 'x'"]
    assert staged(d, [bash(f"tail -n 6 {LOG}", "\n".join(other))]) == [""]
    assert staged(d, READINGS[3:4]) == ["word"]  # the 4th reading: the news counted nothing


def test_a_look_at_another_failure_alone_starts_the_run_again():
    d = Driver()
    staged(d, READINGS[:3])
    other = "ValueError: invalid literal for int() with base 10: 'x'"
    assert staged(d, [bash(f"grep -m1 ValueError {LOG}", other)]) == [""]
    assert "word" not in staged(d, READINGS[3:6])


def test_the_same_reader_again_and_readers_issued_together_count_once():
    d = Driver()
    d.turn(READINGS[0])
    d.turn(READINGS[1], READINGS[2])  # one turn: neither saw the other's answer
    d.turn(READINGS[1])
    assert not d.turn(READINGS[3])["context"]  # the 3rd reading


def test_a_failing_attempt_is_the_failures_rules_not_this_one():
    d = Driver()
    calls = [
        Call("Bash", {"command": f"pytest -k t{n}"}, error="Exit code 1\nKeyError: 'phone'")
        for n in range(5)
    ]
    for call in calls:
        d.turn(call)
    assert StateFile.view(d.state).guard.tracks["main"].stuck.reread is None


def test_pages_of_a_long_log_each_showing_the_error_again_are_news():
    # Each page shows the recurring error among lines the run had not seen.
    d = Driver()
    pages = []
    for n in range(7):
        lines = [*(f"GET /api/items/{tag(40 * n + k)} 200" for k in range(6)), TRACE[-1]]
        content = "\n".join(f"{40 * n + k:6}→{line}" for k, line in enumerate(lines))
        answer = {"type": "text", "file": {"filePath": f"/srv/app/{LOG}", "content": content}}
        pages.append(
            Call("Read", {"file_path": f"/srv/app/{LOG}", "offset": 40 * n}, response=answer)
        )
    assert "word" not in staged(d, pages)


def test_the_same_log_lines_printed_at_other_times_bring_nothing_new():
    # A job's log read again: every line stamped anew, none new once its time is set aside.
    def job(at: str) -> str:
        return "\n".join(
            [
                *(f"{at} step {tag(n)} started" for n in range(5)),
                f"{at} ERROR build failed: KeyError: 'phone'",
            ]
        )

    d = Driver()
    spellings = (
        "tail -6 build.log",
        "tail -n 6 build.log",
        "sed -n '1,6p' build.log",
        "head -6 build.log",
    )
    readers = [bash(spelt, job(f"2026-05-12T08:1{n}:03.221Z")) for n, spelt in enumerate(spellings)]
    assert staged(d, readers)[-1] == "word"


def test_one_failure_met_in_one_log_after_another_is_a_sweep():
    d = Driver()
    pods = [
        bash(f"kubectl logs worker-{pod} --previous | tail -3", "\n".join(_logged("08:14:03,221")))
        for pod in ("a1", "b2", "c3", "d4", "e5", "f6", "g7")
    ]
    assert "word" not in staged(d, pods)
    logs = [_read_file(f"/srv/logs/worker-{n}.log") for n in range(7)]
    assert "word" not in staged(Driver(), logs)


def test_source_that_names_an_error_is_no_failure_read():
    d = Driver()
    source = "\n".join(
        [
            "def charge(order):",
            "    try:",
            "        gateway.charge(order)",
            "    except GatewayError as e:",
            '        logger.error("Payment failed: %s", e)',
            '        t.Fatalf("unexpected error: %v", err)',
        ]
    )
    views = [
        bash("cat billing/charge.py", source),
        bash("sed -n '1,6p' billing/charge.py", source),
        bash("grep -n -A5 'def charge' billing/charge.py", source),
        bash("nl -ba billing/charge.py", source),
        bash("head -6 billing/charge.py", source),
    ]
    assert "word" not in staged(d, views)


@pytest.mark.parametrize(
    ("line", "bare"),
    [
        ("  6148→KeyError: 'phone'", "KeyError: 'phone'"),
        ("2504:KeyError: 'phone'", "KeyError: 'phone'"),
        ("2505-Traceback (most recent call last):", "Traceback (most recent call last):"),
        ("logs/app.log:2504:KeyError: 'phone'", "KeyError: 'phone'"),
        ("     37 KeyError: 'phone'", "KeyError: 'phone'"),
        ("0 errors", "0 errors"),
        ("KeyError: 'phone'", "KeyError: 'phone'"),
        ("2026-05-12 08:14:03 ERROR boom", "2026-05-12 08:14:03 ERROR boom"),
        ("2505-2026-05-12 08:14:03 ERROR boom", "2026-05-12 08:14:03 ERROR boom"),
        ("panic: runtime error: nil map", "panic: runtime error: nil map"),
    ],
)
def test_a_readers_marks_are_set_aside(line: str, bare: str):
    assert reread._unmarked(line) == bare


def test_one_error_logged_at_two_times_is_one_line():
    def failing(text: str) -> list[str]:
        response: Any = {"stdout": text, "stderr": ""}
        return reread.shown(ToolResult(response=response)).failing

    assert failing("\n".join(_logged("08:14:03,221"))) == failing(
        "\n".join(_logged("10:46:48,588"))
    )
    assert failing("all good\n3 passed in 0.2s") == []
