"""Fixes that go round: each rewrite moves the failure, but only to one the check printed a
few attempts before (`persisting._back_to`).

A header made a client component fails because it reads cookies; made a server component
again, it fails because it holds state; each rewrite is a content the file never had, so no
run of one failure sees it, and no line is put back word for word. But every failure after
the first few is one the build already printed: the attempts since the print it comes back to
went round, and once two failures came back so, they count as failing the same way (a request
at the 4th; a pause at the 6th, unless the fixes were spread over more than two files), however
many comebacks link the round. A failure that prints
anything new, that prints only what the last one printed, less than the same command printed
before, or that comes back from further than a few prints is not a round.
"""

from __future__ import annotations

from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import edit
from testing.guard_driver import fail

from arcguard.core.loop_guard import persisting


BANNER = "> shop@0.4.0 build\n> next build\n\n   Creating an optimized production build ...\n"
CLOSING = "\n> Build failed because of webpack errors\n ELIFECYCLE  Command failed."
STATE = (
    "Failed to compile.\n\n./components/Header.tsx\nError:\n"
    "  x You're importing a component that needs useState. It only works in a Client "
    "Component.\n"
)
HEADERS = (
    "Failed to compile.\n\n./components/Header.tsx\nError:\n"
    "  x You're importing a component that needs next/headers. That only works in a Server "
    "Component.\n"
)
SERVER_ONLY = (
    "Failed to compile.\n\n./lib/session.ts\nError:\n"
    "  x You're importing a component that needs server-only. That only works in a Server "
    "Component.\n"
)
COMMAND = "pnpm build"


def _print(failure: str, quoted: str = 'import { useState } from "react";') -> str:
    """The build's print: the failure, then the source it quotes by line number."""
    return f"{BANNER}{failure}   ,-[Header.tsx:1:1]\n 2 | {quoted}\n   `----\n{CLOSING}"


HEADER = "/w/components/Header.tsx"


def _rewrite(n: int, path: str = HEADER) -> Call:
    """A rewrite of the header (or another component) to a content it never had."""
    old = f"export default function Header{n}() {{"
    return edit(path, old, f"'use client';\nconst take = {n};\n{old}")


def _words(
    failures: list[str], quoted: list[str] | None = None, files: tuple[str, ...] = (HEADER,)
) -> list[str]:
    """Builds failing with `failures` in turn, a rewrite before each but the first (of `files`
    in turn): the first turn of the request ('ask') and of the pause ('pause'), as
    `attempt:word`."""
    d, found = Driver(), []
    for n, failure in enumerate(failures):
        if n:
            d.turn(_rewrite(n, files[n % len(files)]))
        text = _print(failure, quoted[n]) if quoted else _print(failure)
        if d.turn(fail(COMMAND, text))["context"]:
            found.append(f"{n + 1}:ask")
        if d.paused is not None:
            return [*found, f"{n + 1}:pause"]
    return found


def test_two_failures_taking_turns_through_rewrites_are_asked_about_at_the_4th_then_paused():
    # Rewrites of one file that only move the build between two failures went at them.
    assert _words([STATE, HEADERS] * 5) == ["4:ask", "6:pause"]


def test_rewrites_spread_over_three_files_are_asked_about_never_paused():
    # Work over more files may be a feature built up beside the failures: the request only.
    files = (HEADER, "/w/components/Nav.tsx", "/w/lib/session.ts")
    assert _words([STATE, HEADERS] * 5, files=files) == ["4:ask"]


def test_a_round_through_a_setting_put_back_is_asked_about_at_the_4th_then_paused():
    d, found = Driver(), []
    modes = ("bundler", "node16")
    for n in range(10):
        if n:
            old, new = modes[(n + 1) % 2], modes[n % 2]
            config = "/w/tsconfig.json"
            d.turn(edit(config, f'"moduleResolution": "{old}"', f'"moduleResolution": "{new}"'))
        if d.turn(fail(COMMAND, _print((STATE, HEADERS)[n % 2])))["context"]:
            found.append(f"{n + 1}:ask")
        if d.paused is not None:
            found.append(f"{n + 1}:pause")
            break
    assert found == ["4:ask", "6:pause"]


def test_a_third_failure_in_the_round_does_not_start_it_again_once_another_comes_back():
    round_ = [STATE, HEADERS, STATE, SERVER_ONLY, HEADERS, STATE, HEADERS, STATE]
    assert _words(round_) == ["5:ask", "6:pause"]


def test_the_source_a_failure_quotes_is_not_what_failed():
    quoted = [f"import {{ useState }} from 'react'; // take {n}" for n in range(4)]
    assert _words([STATE, HEADERS] * 2, quoted=quoted) == ["4:ask"]


def test_failures_printing_lines_never_printed_are_news():
    news = [f"{STATE}  | see issue {n}: {word}\n" for n, word in enumerate("abcde")]
    assert _words([STATE, HEADERS, STATE, *news]) == []


def test_fewer_failures_after_each_fix_are_the_fixes_work():
    burn_down = [STATE + HEADERS + SERVER_ONLY, STATE + HEADERS, STATE, STATE + HEADERS, STATE]
    assert _words(burn_down) == []


def test_a_failure_back_from_further_than_a_round_is_a_regression():
    others = [SERVER_ONLY.replace("server-only", name) for name in ("fs", "net", "tls", "dns")]
    assert _words([STATE, *others, STATE, others[0]]) == []


def test_another_check_failing_between_is_not_a_stop_on_the_round():
    d = Driver()
    for n in range(8):
        if n:
            d.turn(_rewrite(n))
        d.turn(fail("pnpm lint" if n % 2 else COMMAND, _print(HEADERS if n % 2 else STATE)))
    assert d.paused is None
    assert d.main["stuck"]["persist"]["again"] < persisting.MAX_FAILURES


def test_a_failure_back_once_after_another_was_fixed_is_one_beside_the_work():
    # An old failure, a new one the work caused and then fixed, the old one again: no round.
    assert _words([STATE, HEADERS, STATE, STATE]) == []


def test_one_failure_back_while_the_other_moves_is_no_round():
    moved = [HEADERS.replace("next/headers", name) for name in ("cookies", "draftMode", "after")]
    assert _words([STATE, moved[0], STATE, moved[1], STATE, moved[2], STATE]) == []


def test_the_same_command_printing_less_of_a_failure_shows_part_of_it_fixed():
    both = STATE + SERVER_ONLY
    # The first print is no stop on the round: it had more, so the round starts after it.
    assert _words([both, HEADERS, STATE, HEADERS, STATE, HEADERS]) == ["5:ask"]


def test_prints_kept_in_a_hand_edited_state_are_read_as_far_as_they_go():
    d = Driver()
    d.turn(fail(COMMAND, _print(STATE)))
    d.main["stuck"]["persist"]["shown"] = ["", "o", "@ x"]
    asked = []
    for n, failure in enumerate([HEADERS, STATE, HEADERS, STATE, HEADERS]):
        d.turn(_rewrite(n + 1))
        asked += [n] if d.turn(fail(COMMAND, _print(failure)))["context"] else []
    assert asked == [3]  # the 4th attempt since the first print kept whole


def test_a_list_burnt_down_through_a_window_is_no_round():
    errors = [f"src/a{n}.ts(1,1): error TS2322: Type {n} is not assignable.\n" for n in range(9)]
    d, asked = Driver(), []
    d.turn(fail("npx tsc --noEmit", "".join(errors)))
    for n in range(1, 7):
        d.turn(_rewrite(n))
        window = "".join(errors[n : n + 3])
        out = d.turn(fail("npx tsc --noEmit 2>&1 | tail -3", window))
        asked += [n] if out["context"] else []
    assert asked == []


def test_two_test_folders_failing_in_turn_are_two_checks():
    d = Driver()
    for n in range(8):
        if n:
            d.turn(_rewrite(n))
        folder, failure = ("unit", STATE) if n % 2 == 0 else ("integration", HEADERS)
        assert not d.turn(fail(f"pytest tests/{folder} -q", _print(failure)))["context"], n


def test_a_change_answered_between_ends_the_round_before_it():
    d = Driver()
    for n, failure in enumerate([STATE, HEADERS, STATE, HEADERS]):
        d.turn(_rewrite(n))
        d.turn(fail(COMMAND, _print(failure)))
    d.turn(bash("pnpm install", "Packages: +1\nDone in 2.1s"))
    asked = []
    for n, failure in enumerate([SERVER_ONLY, HEADERS, SERVER_ONLY]):
        d.turn(_rewrite(n + 10))
        asked += [n] if d.turn(fail(COMMAND, _print(failure)))["context"] else []
    assert asked == []
    assert d.main["stuck"]["persist"]["again"] < 3


def test_another_checks_attempts_inside_a_round_are_not_counted_in_it():
    d, found = Driver(), []
    builds = [(COMMAND, f) for f in [HEADERS, STATE, HEADERS]]
    for n, (command, failure) in enumerate([(COMMAND, STATE), ("pnpm lint", SERVER_ONLY), *builds]):
        d.turn(_rewrite(n))
        out = d.turn(fail(command, _print(failure)))
        found += [str(out["context"])] if out["context"] else []
    assert len(found) == 1 and "4 attempts" in found[0]  # the build's four, not the lint's
