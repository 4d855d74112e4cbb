"""Edits that move nothing: a failure that after an edit prints the same, but where it quotes
the edit, is that failure again; one that moved in any other way is news.

Each case is a class: a setting toggled that a test run's header reports, a build step
respelt that the build quotes; and the look-alikes, where the edit took effect (an error
fixed, a count lower, another file failing, another error in place of the one before).
"""

from __future__ import annotations

from typing import Any

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import edit
from testing.guard_driver import fail
from testing.guard_driver import tag

from arcguard.core.loop_guard import edited
from arcguard.core.loop_guard import persisting
from arcguard.core.loop_records import Persist
from arcguard.core.loop_records import Stuck
from arcguard.core.tool_call import ToolCall


_runs = iter(range(1000))


def _pytest(mode: str, error: str = "RuntimeError: got Future attached to a different loop") -> str:
    # Each run: another address in a repr, another duration (across a second too).
    n = next(_runs)
    return (
        f"platform linux -- Python 3.12.7, pytest-8.3.3\nasyncio: mode=Mode.{mode.upper()}\n"
        f"tests/test_events.py .....F\nbroker = <MemoryBroker object at 0x7f3a9c{n:06x}>\n"
        f"E   {error}\nFAILED tests/test_events.py::test_consume\n"
        f"1 failed, 5 passed in {n % 3}.{n % 100:02d}s"
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


def test_a_failures_print_keeps_paths_and_counts_and_sets_the_clock_aside():
    text = (
        "Exit code 1\ntests/a.py:12: assert 3 ==  4\n---\nsent 46.72kB, ref 5d481589-9189-424d\n"
        "2 failed, 1 passed in 1.23s at 10:42:01"
    )
    assert edited.printed(text) == [
        "exit code 1",
        "tests/a.py:12: assert 3 == 4",
        "sent <t>, ref <t>",
        "2 failed, 1 passed in <t> at <t>",
    ]


def test_an_edit_holding_a_secret_or_a_long_line_is_not_kept():
    key = ToolCall(
        "Edit",
        {"old_string": "stripe_secret_key=sk_live_51habc", "new_string": "stripe_secret_key=sk_9"},
    )
    long = ToolCall(
        "Edit", {"old_string": "x = 1 " + "a" * 200, "new_string": "x = 2 " + "a" * 200}
    )
    assert edited.swaps(key) == [] and edited.swaps(long) == []


def test_one_of_two_errors_gone_after_an_echoed_edit_is_news():
    both = _pytest("auto").replace("E   ", "E   KeyError: 'loop'\nE   ")
    runs = [_pytest(m) for m in ("strict", "auto", "strict")]
    assert _after_each_edit(both, runs) == []


def _toggle_until_checked_in(d: Driver) -> None:
    mode = "auto"
    d.turn(fail("pytest -q", _pytest(mode)))
    for n in range(4):  # a fifth flip would repeat an edit a third time: denied
        new = ("strict", "auto")[n % 2]
        d.turn(edit("/p/pyproject.toml", f'mode = "{mode}"', f'mode = "{new}"'))
        mode = new
        d.turn(fail(("pytest -x -q", "python -m pytest -q")[n % 2], _pytest(mode)))
    stuck: Any = d.main["stuck"]
    assert stuck["fails"] == 5


def test_a_failure_an_edit_fixed_does_not_come_back_into_later_work():
    # The last edit fixed it: the run passes, and new work that breaks the test again is new.
    d = Driver()
    _toggle_until_checked_in(d)  # its last run in auto mode
    d.turn(edit("/p/pyproject.toml", 'mode = "auto"', 'mode = "strict"  # loop scope set'))
    d.turn(bash("pytest -q", response="asyncio: mode=Mode.STRICT\n6 passed in 0.40s"))
    d.turn(edit("/p/src/events.py", "def consume(self):", "def consume(self, batch):"))
    d.turn(fail("pytest -q", _pytest("strict")))
    assert d.main["stuck"]["fails"] == 1 and d.paused is None


def test_a_failure_set_aside_long_ago_is_not_taken_up_again_by_its_run():
    d = Driver()
    _toggle_until_checked_in(d)
    d.turn(edit("/p/pyproject.toml", 'mode = "auto"', 'mode = "strict"  # loop scope set'))
    for n in range(5):  # new findings, one after another, within a few turns
        d.turn(Call("Read", {"file_path": f"/p/src/m{tag(n)}.py"}, response={"c": tag(n)}))
    d.turn(fail("pytest -q", _pytest("strict")))
    assert d.main["stuck"]["fails"] == 1
    # What outlives the tries counts it all the same: the setting tried left it as it was.
    assert d.paused is not None and "whatever ran in between" in d.paused["reason"]


def _shown(path: str, original: str, old: str, new: str) -> Call:
    """An edit whose response shows the file's content, so going back to it is a revisit."""
    return edit(path, old, new, original=original)


def _flip(old: str, new: str) -> Call:
    before, after = f'mode = "{old}"', f'mode = "{new}"'
    return _shown("/p/pyproject.toml", f"[tool.pytest]\n{before}\n", before, after)


def test_the_check_in_is_asked_once_when_an_edit_shares_its_turn():
    d = Driver()
    runs = ("pytest -q", "python -m pytest -q", "pytest -x -q", "pytest tests -q", "uv run pytest")
    outs = [d.turn(fail(runs[0], _pytest("auto")))]
    outs.append(d.turn(_flip("auto", "strict")))
    outs.append(d.turn(fail(runs[1], _pytest("strict"))))
    outs.append(d.turn(_flip("strict", "auto")))  # back: a revisit
    outs.append(d.turn(fail(runs[2], _pytest("auto"))))
    outs.append(d.turn(fail(runs[3], _pytest("auto")), _flip("auto", "strict")))  # 4th, then edit
    outs.append(d.turn(fail(runs[4], _pytest("strict"))))
    assert _check_ins(d, outs) == [6]


APP = "/p/app/main.py"
SUSPECTS = ("CORSMiddleware", "GZipMiddleware", "SessionMiddleware", "AuthMiddleware")
API_FAILS = (
    "E   assert 500 == 201\nFAILED tests/test_api.py::test_create_order - assert 500 == 201\n"
    "1 failed, 41 passed in 2.1s"
)


def _toggle_line(content: str, old: str, new: str) -> tuple[Call, str]:
    return _shown(APP, content, old, new), content.replace(old, new, 1)


def test_suspects_ruled_out_one_at_a_time_and_put_back_are_no_loop():
    # Each suspect disabled leaves the failure as it was, so it is cleared and put back: every
    # try answers another question, though the failure is the same by construction.
    d = Driver()
    runs = ("pytest tests/test_api.py -q", "pytest -q -k create_order", "python -m pytest -q")
    content = "".join(f"app.add_middleware({m})\n" for m in SUSPECTS)
    outs = [d.turn(fail(runs[0], API_FAILS))]
    for n, suspect in enumerate(SUSPECTS):
        line = f"app.add_middleware({suspect})"
        for old, new in ((line, f"# {line}"), (f"# {line}", line)):
            call, content = _toggle_line(content, old, new)
            outs.append(d.turn(call))
            outs.append(d.turn(fail(runs[n % 3], API_FAILS)))
    assert _check_ins(d, outs) == [] and d.paused is None


CONFIG = "/p/configs/lora.yaml"
OOM = (
    'Traceback (most recent call last):\n  File "/p/summarizer/modeling.py", line 58, in load\n'
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {n}.00 MiB. GPU 0 has "
    "{free}.69 MiB free. Process 48211 has 21.87 GiB memory in use."
)
LADDER = (
    ("batch_size: 8", "batch_size: 4"),
    ("gradient_checkpointing: false", "gradient_checkpointing: true"),
    ("batch_size: 4", "batch_size: 1"),
    ("max_seq_len: 2048", "max_seq_len: 1024"),
    ("eval_batch_size: 8", "eval_batch_size: 1"),
    ("lora_rank: 32", "lora_rank: 16"),
)


def _oom(n: int) -> Call:
    # Each run asks for another size: sizes are set aside, as the clock is.
    return fail(
        "python train.py --config configs/lora.yaml", OOM.format(n=172 - 9 * n, free=118 - n)
    )


@pytest.mark.parametrize(("path", "asked"), [(CONFIG, [4]), ("/p/summarizer/options.py", [])])
def test_knobs_turned_in_a_settings_file_under_a_failure_left_as_it_was_are_one_loop(path, asked):
    # A setting takes effect whole: a failure printed word for word after it was not moved.
    # After an edit to code the same failure may be work not showing yet: left alone.
    d = Driver()
    outs = [d.turn(_oom(0))]
    for n, (old, new) in enumerate(LADDER):
        d.turn(edit(path, old, new))
        outs.append(d.turn(_oom(n + 1)))
    assert _check_ins(d, outs) == asked
    assert (d.paused is not None) == bool(asked)


def test_knobs_of_another_file_after_progress_are_a_run_of_their_own():
    d = Driver()
    d.turn(_oom(0))
    for n, (old, new) in enumerate(LADDER[:2]):
        d.turn(edit(CONFIG, old, new))
        d.turn(_oom(n + 1))
    d.turn(bash("git switch fix/oom", "Switched to branch 'fix/oom'"))  # other code: progress
    outs = [d.turn(_oom(3))]
    for n, (old, new) in enumerate(LADDER[2:5]):
        d.turn(edit("/p/configs/eval.yaml", old, new))
        outs.append(d.turn(_oom(n + 4)))
    assert _check_ins(d, outs) == [4]


def _ladder(d: Driver, path: str, knobs: tuple[tuple[str, str], ...], start: int) -> list[int]:
    """A failing run after each knob turned in `path`: the check-ins, counted from 1."""
    outs = []
    for n, (old, new) in enumerate(knobs):
        d.turn(edit(path, old, new))
        outs.append(d.turn(_oom(start + n)))
    return _check_ins(d, outs)


def test_knobs_after_a_code_edit_go_on_from_the_failure_counted_after_it():
    d = Driver()
    d.turn(_oom(0))
    d.turn(edit("/p/summarizer/modeling.py", "device_map=None", 'device_map="auto"'))
    d.turn(_oom(1))  # after code: the run counts afresh, from 1
    assert _ladder(d, CONFIG, LADDER[:4], 2) == [3]  # its 4th attempt


def test_knobs_after_an_answer_ended_the_set_aside_go_on_from_the_next_failure():
    d = Driver()
    d.turn(_oom(0))
    d.turn(edit("/p/summarizer/modeling.py", "device_map=None", 'device_map="auto"'))
    d.turn(bash("nvidia-smi --query-gpu=memory.used", "memory.used\n21870 MiB"))
    d.turn(_oom(1))
    assert _ladder(d, CONFIG, LADDER[:4], 2) == [3]


def test_knobs_in_another_file_after_a_run_counted_afresh_go_on_in_that_file():
    d = Driver()
    d.turn(_oom(0))
    assert _ladder(d, CONFIG, LADDER[:2], 1) == []
    d.turn(edit("/p/summarizer/modeling.py", "device_map=None", 'device_map="auto"'))
    d.turn(_oom(3))  # counted afresh: the knobs may now be in another file
    assert _ladder(d, "/p/configs/eval.yaml", LADDER[2:6], 4) == [3]


def test_a_block_of_settings_rewritten_each_time_is_left_alone():
    d = Driver()
    outs = [d.turn(_oom(0))]
    block = "train:\n  batch_size: {b}\n  max_seq_len: {s}\n  warmup: {w}\n"
    for n in range(6):
        old = block.format(b=8 - n, s=2048 - n, w=n)
        new = block.format(b=7 - n, s=2047 - n, w=n + 1)
        d.turn(edit(CONFIG, old, new))
        outs.append(d.turn(_oom(n + 1)))
    assert _check_ins(d, outs) == [] and d.paused is None


def test_chores_in_settings_files_beside_an_old_failure_are_left_alone():
    # A test that already failed, unrelated to the work: the chores change values in several
    # files and add lines; each run prints the old failure word for word.
    d = Driver()
    chores = [
        edit("/p/pyproject.toml", 'target-version = "py39"', 'target-version = "py311"'),
        edit("/p/setup.cfg", "max-line-length = 88", "max-line-length = 100"),
        edit("/p/.pre-commit-config.yaml", "rev: v0.4.0", "rev: v0.6.9"),
        edit("/p/tox.ini", "envlist = py39", "envlist = py311\nisolated_build = true"),
        edit("/p/pyproject.toml", 'python = "^3.9"', 'python = "^3.11"'),
        edit("/p/.github/dependabot.yml", "interval: weekly", "interval: monthly"),
        edit("/p/setup.cfg", "[flake8]", "[flake8]\nextend-ignore = E203"),
    ]
    outs = [d.turn(fail("pytest -q", API_FAILS))]
    for chore in chores:
        d.turn(chore)
        outs.append(d.turn(fail("pytest -q", API_FAILS)))
    assert _check_ins(d, outs) == [] and d.paused is None


def test_a_settings_file_written_whole_again_and_again_is_left_alone():
    # A Write shows only the whole new file: what it changed is not known to be a value.
    d = Driver()
    outs = [d.turn(_oom(0))]
    content = "batch_size: 8\n"
    for n in range(6):
        was, content = content, f"batch_size: {7 - n}\n"
        shown = {"type": "update", "filePath": CONFIG, "content": content, "originalFile": was}
        d.turn(Call("Write", {"file_path": CONFIG, "content": content}, response=shown))
        outs.append(d.turn(_oom(n + 1)))
    assert _check_ins(d, outs) == [] and d.paused is None


def test_a_workflow_built_up_step_by_step_is_left_alone():
    # Each edit adds what the job needs; the run fails the same way until the last piece.
    d = Driver()
    path = "/p/.github/workflows/test.yml"
    outs = [d.turn(fail("act -j test", API_FAILS))]
    for step in ("services: [postgres]", "ports: ['5432:5432']", "env: {DB: pg}", "health: pg"):
        d.turn(edit(path, "steps:", f"{step}\nsteps:"))
        outs.append(d.turn(fail("act -j test", API_FAILS)))
    outs.append(d.turn(fail("act -j test", API_FAILS)))
    assert _check_ins(d, outs) == [] and d.paused is None


def _groovy(line: int, message: str) -> str:
    return (
        "org.codehaus.groovy.control.MultipleCompilationErrorsException: startup failed:\n"
        f"WorkflowScript: {line}: {message} @ line {line}, column 9.\n\n1 error\n\n"
        "\tat org.codehaus.groovy.control.ErrorCollector.failIfErrors(ErrorCollector.java:309)\n"
        "Finished: FAILURE"
    )


def test_a_pipeline_converted_error_by_error_under_two_filters_is_left_alone():
    # Groovy names each compile error on a line that says nothing failed; the lines that do
    # are the same every run. Read through `| tail -40`, which cuts nothing, or not at all,
    # each run is the conversion's test, as a check run word for word is.
    d = Driver()
    errors = [
        "Tool type nodejs has no install of Node 20 configured",
        "Environment variable values must be quoted or function calls",
        "Not a valid stage section definition",
        "Method calls on objects not allowed outside script blocks",
        "Unknown stage section step",
        "Expected to find someKey someValue",
    ]
    runner = "jenkinsfile-runner -f Jenkinsfile"
    outs = [d.turn(fail(runner, _groovy(8, errors[0])))]
    for n, error in enumerate(errors[1:], 1):
        d.turn(edit("/p/Jenkinsfile", f"step {n}", f"steps {{ step {n} }}"))
        spelt = runner + (" 2>&1 | tail -40" if n % 2 else "")
        outs.append(d.turn(fail(spelt, _groovy(8 + 7 * n, error))))
    assert _check_ins(d, outs) == [] and d.paused is None


def test_a_count_kept_before_checks_were_recorded_goes_on_by_its_spellings():
    # A state written by the release before: settings tried, three spellings, no checks.
    kept = Persist(again=5, edits=3, ways=["a1", "b2", "c3"], nudged=True)
    assert persisting.attempts(Stuck(persist=kept)) == 6


def test_settings_ruled_out_one_at_a_time_and_put_back_are_no_loop():
    d = Driver()
    content = "".join(f"  - {m}\n" for m in SUSPECTS)
    outs = [d.turn(fail("pytest -q", API_FAILS))]
    for suspect in SUSPECTS:
        line = f"  - {suspect}"
        for old, new in ((line, f"#{line}"), (f"#{line}", line)):
            outs.append(d.turn(_shown("/p/config/middleware.yaml", content, old, new)))
            content = content.replace(old, new, 1)
            outs.append(d.turn(fail("pytest -q", API_FAILS)))
    assert _check_ins(d, outs) == [] and d.paused is None


@pytest.mark.parametrize(
    ("path", "settings"),
    [
        ("/p/configs/lora.yaml", True),
        ("/p/gradle.properties", True),
        ("/p/service/build.gradle.kts", True),
        ("/p/.eslintrc.cjs", True),
        ("/p/vite.config.ts", True),
        ("/p/Dockerfile.dev", True),
        ("/p/requirements-dev.txt", True),
        ("/p/infra/main.tf", True),
        ("/p/go.mod", True),
        ("/home/dev/.ssh/config", True),
        ("/etc/nginx/sites-available/orders", True),
        ("/p/notes.txt", False),
        ("/p/requirements_check.py", False),
        ("/p/app/main.py", False),
        ("/p/src/config.ts", False),
        ("", False),
    ],
)
def test_files_of_settings_are_known_by_format_or_name(path, settings):
    assert edited.settings_file(path) is settings


def test_a_size_or_a_duration_apart_from_its_unit_is_set_aside():
    assert edited.seen("Tried to allocate 172.00 MiB. 23.64 GiB total, 3 files, 2.1 s") == (
        "tried to allocate <t> mib. <t> gib total, 3 files, <t> s"
    )


def test_a_knob_of_a_file_named_by_a_windows_path_is_a_knob():
    assert edited.knob(ToolCall("Edit", {**_knob_input, "file_path": "C:\\p\\Dockerfile"}))
    assert not edited.knob(ToolCall("Edit", {**_knob_input, "file_path": "C:\\p\\app.py"}))


_knob_input = {"old_string": "FROM node:20", "new_string": "FROM node:22"}
