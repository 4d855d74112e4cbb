"""Edits that go back (`loop_guard.reverts`): a line put back in that an earlier edit put in
and a later one took out shows the edits between moved nothing, so the failures after them
count on from before those edits; after a second such step back, no edit to that file clears
anything. Edits to new content, and suspects ruled out one at a time (each line taken out and
put back once), are no step back, however often the failure comes back after them (fixes that
leave it printed as before are `persisting`'s)."""

from __future__ import annotations

import itertools
from typing import Any

from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import fail
from testing.guard_driver import tag


# Options kept in code: the rule here is for any file (one of settings has its own: `edited`).
OPTIONS = "/w/apps/admin/src/options.ts"
NOT_FOUND = "src/pages/Orders.tsx(4,27): error TS2307: Cannot find module '@acme/ui'"
GRADLE, BUILD = "/w/service/build.gradle.kts", "./gradlew :service:build"
RESOLVE = "Could not resolve io.northwind:ledger-client:3.2.0: requires JVM 21"
TARGETS = "Inconsistent JVM-target compatibility: compileJava ({j}) and compileKotlin (21)"


def edit(path: str, old: str, new: str) -> Call:
    """An Edit whose response, as transcripts of big files have it, does not show the file."""
    patch = [{"lines": [f"-{old}", f"+{new}"]}]
    response = {"filePath": path, "oldString": old, "newString": new, "structuredPatch": patch}
    return Call(
        "Edit", {"file_path": path, "old_string": old, "new_string": new}, response=response
    )


def _asked_paused(outs: list[dict[str, Any]], d: Driver) -> tuple[list[int], bool]:
    return [n + 1 for n, out in enumerate(outs) if out["context"]], d.paused is not None


def _typecheck(d: Driver) -> dict[str, Any]:
    return d.turn(fail("pnpm -F admin typecheck", NOT_FOUND))


def _flip(d: Driver, n: int) -> dict[str, Any]:
    """The n-th flip of `moduleResolution` between two values."""
    modes = ('"moduleResolution": "bundler"', '"moduleResolution": "node"')
    return d.turn(edit(OPTIONS, modes[n % 2], modes[(n + 1) % 2]))


def _tried_in_turn(d: Driver, flips: int) -> None:
    """An attempt, then one after each flip (the 3rd and 4th step back: the file goes round)."""
    _typecheck(d)
    for n in range(flips):
        _flip(d, n)
        _typecheck(d)


def test_a_setting_tried_in_turn_is_asked_about_then_paused():
    d = Driver()
    for n in range(6):  # findings first: the runs below are judged by how recent they are
        d.turn(Call("Read", {"file_path": f"/w/src/m{tag(n)}.ts"}, response={"c": tag(n)}))
    outs = [_typecheck(d)]  # before any value was tried: not counted
    for n in range(4):
        outs.append(_flip(d, n))  # the 3rd puts `node` in a second time: a step back
        outs.append(_typecheck(d))  # 4 attempts since `node` was first tried: asked
    asked, paused = _asked_paused(outs, d)
    assert asked == [9] and not paused
    # The file goes round: an option taken out and put back clears nothing.
    d.turn(edit(OPTIONS, '"skipLibCheck": true,\n}', "}"))
    d.turn(fail("pnpm --filter admin typecheck", NOT_FOUND))
    d.turn(edit(OPTIONS, "}", '"skipLibCheck": true,\n}'))
    d.turn(fail("pnpm -F admin run typecheck", NOT_FOUND))
    _flip(d, 4)
    d.turn(fail("pnpm typecheck", NOT_FOUND))
    assert d.paused is not None


def test_a_step_back_right_after_a_value_tried_before_still_counts_the_attempts_before():
    d = Driver()
    for n in range(6):
        d.turn(Call("Read", {"file_path": f"/w/src/m{tag(n)}.ts"}, response={"c": tag(n)}))
    outs = [_typecheck(d)]
    outs.append(_flip(d, 0))
    outs.append(_typecheck(d))  # 1st attempt since `node` was first tried
    outs.append(_flip(d, 1))
    outs.append(_flip(d, 2))  # back, with no attempt between
    for n in range(3, 5):
        outs.append(_typecheck(d))
        outs.append(_flip(d, n))
    outs.append(_typecheck(d))  # the 4th: asked
    asked, _ = _asked_paused(outs, d)
    assert asked == [10]


def test_a_restart_whose_look_answers_the_same_counts_on_across_a_setting_tried_in_turn():
    d = Driver()
    conf = "/etc/nginx/sites-available/orders"
    check = "sudo systemctl reload nginx && curl -s localhost/api/health"
    answer = "502 Bad Gateway from upstream orders-api"
    hosts = [f"proxy_pass http://{host}:3000/;" for host in ("127.0.0.1", "localhost")]
    outs = [d.turn(bash(check, answer))]
    for n in range(4):
        outs.append(d.turn(edit(conf, hosts[n % 2], hosts[(n + 1) % 2])))  # the 3rd goes back
        outs.append(d.turn(bash(check, answer)))
    asked, _ = _asked_paused(outs, d)
    assert asked == [9]


def test_a_failure_printed_otherwise_after_a_step_back_starts_again():
    # The count falls: the settings did move it, so the detour is over.
    d = Driver()
    outs = [d.turn(fail("pnpm -F admin typecheck", f"{NOT_FOUND}\nFound 9 errors"))]
    for n, left in enumerate(("nine", "eight", "seven", "six", "five")):
        outs.append(_flip(d, n))
        outs.append(d.turn(fail("pnpm -F admin typecheck", f"{NOT_FOUND}\nFound {left} errors")))
    assert _asked_paused(outs, d) == ([], False)


def test_a_command_with_a_new_answer_ends_the_detour():
    d = Driver()
    _tried_in_turn(d, 2)
    d.turn(bash("ls -la node_modules/@acme", "ui -> ../../packages/ui"))
    _flip(d, 2)  # would step back: the detour it belonged to is over
    _typecheck(d)
    assert d.main["stuck"]["fails"] == 1


def test_the_users_words_end_the_detour():
    d = Driver()
    _tried_in_turn(d, 2)
    d.turn(Call("AskUserQuestion", {"q": "which?"}, response={"answers": {"which?": "node"}}))
    _flip(d, 2)
    _typecheck(d)
    assert d.main["stuck"]["fails"] == 1


def test_two_failures_taking_turns_as_a_setting_flips_are_asked_about_at_the_4th():
    d = Driver()
    gradle, build, resolve = GRADLE, BUILD, RESOLVE
    targets = TARGETS.format(j=17)
    toolchains = ("jvmToolchain(17)", "jvmToolchain(21)")
    for n in range(6):  # findings first: the runs below are judged by how recent they are
        d.turn(Call("Read", {"file_path": f"/w/src/M{tag(n)}.kt"}, response={"c": tag(n)}))
    outs = [d.turn(fail(build, resolve))]
    for n in range(4):
        outs.append(d.turn(edit(gradle, toolchains[n % 2], toolchains[(n + 1) % 2])))
        outs.append(d.turn(fail(build, (targets, resolve)[n % 2])))
    asked, _ = _asked_paused(outs, d)
    # The 4th attempt of the round: both failures came back, and the first, at 17, began it.
    assert asked == [7]


def test_new_content_after_each_failure_stays_progress():
    # A number tried higher each time: no edit goes back, so none is asked about.
    d = Driver()
    outs = [d.turn(fail("pytest -q tests/test_cache.py", "E   assert cache.get('k') == 'v'"))]
    for n in range(8):
        outs.append(d.turn(edit("/w/cache.py", f"TTL_SECONDS = {n}", f"TTL_SECONDS = {n + 1}")))
        outs.append(
            d.turn(fail("pytest -q tests/test_cache.py", "E   assert cache.get('k') == 'v'"))
        )
    assert _asked_paused(outs, d) == ([], False)


def test_an_experiment_taken_back_then_a_fix_that_works_is_left_alone():
    d = Driver()
    outs = [_typecheck(d)]
    outs.append(
        d.turn(edit(OPTIONS, '"moduleResolution": "bundler"', '"moduleResolution": "node"'))
    )
    outs.append(_typecheck(d))
    outs.append(
        d.turn(edit(OPTIONS, '"moduleResolution": "node"', '"moduleResolution": "bundler"'))
    )
    outs.append(_typecheck(d))
    outs.append(d.turn(edit(OPTIONS, '"paths": {}', '"paths": {"@acme/ui": ["../ui/src"]}')))
    outs.append(d.turn(bash("pnpm -F admin typecheck", "Done in 2.1s")))
    assert _asked_paused(outs, d) == ([], False)


def test_an_edit_to_another_file_after_going_back_is_progress():
    d = Driver()
    _typecheck(d)
    _flip(d, 0)
    _typecheck(d)
    _flip(d, 1)
    _flip(d, 2)  # a step back: the 2 attempts so far count on
    d.turn(edit("/w/packages/ui/package.json", '"types": "./dist/x.d.ts"', '"types": "./d.ts"'))
    out = _typecheck(d)
    assert not out["context"] and d.main["stuck"]["fails"] == 1


def test_a_short_line_put_back_is_no_step_back():
    # `end` comes and goes with any rewrite: each new content is a try of its own, not a step
    # back to an earlier one. (That each try leaves the failure as it was is another rule's:
    # `persisting` asks about such fixes at the 4th attempt.)
    d = Driver()
    outs = [d.turn(fail("bundle exec rspec", "Failure/Error: expect(total).to eq(42)"))]
    closers = ("end", "done")
    for n in range(6):
        old = f"total = sum_{tag(n)}(items)\n{closers[n % 2]}"
        new = f"total = sum_{tag(n + 1)}(items)\n{closers[(n + 1) % 2]}"
        outs.append(d.turn(edit("/w/lib/cart.rb", old, new)))
        outs.append(d.turn(fail("bundle exec rspec", "Failure/Error: expect(total).to eq(42)")))
    assert d.main["stuck"]["fails"] == 1


def test_rewrites_of_a_block_sharing_a_line_are_no_step_back():
    # Each attempt rewrites the function; `return total` comes and goes with the rewrites (the
    # failure they leave as it was is `persisting`'s, as above).
    d = Driver()
    outs = [d.turn(fail("pytest -q tests/test_cart.py", "E   assert 40 == 42"))]
    bodies = [
        f"total = 0\nfor item in items_{tag(n)}:\n    total += item.price\nreturn total"
        if n % 2 == 0
        else f"prices_{tag(n)} = [item.price for item in items]\nreturn sum(prices_{tag(n)})"
        for n in range(7)
    ]
    for old, new in itertools.pairwise(bodies):
        outs.append(d.turn(edit("/w/cart.py", old, new)))
        outs.append(d.turn(fail("pytest -q tests/test_cart.py", "E   assert 40 == 42")))
    assert d.main["stuck"]["fails"] == 1


def test_a_failure_that_moved_ends_the_detour():
    d = Driver()

    def check(errors: int) -> None:
        d.turn(fail("pnpm -F admin typecheck", f"{NOT_FOUND}\nFound {errors} errors"))

    check(3)
    for n in range(3):
        _flip(d, n)  # the 3rd steps back
        check(2 if n == 2 else 3)  # then the same failure, one error fewer: it moved
    _flip(d, 3)  # would step back a second time: the detour is over
    check(2)
    assert d.main["stuck"]["fails"] == 1


def test_a_failure_printed_otherwise_by_another_command_has_not_moved():
    # The same error through two commands, each closing with its own exit code.
    d = Driver()
    checks = [("pnpm -F admin typecheck", 2), ("npx tsc --noEmit -p apps/admin", 1)]

    def check(n: int) -> dict[str, Any]:
        command, code = checks[n % 2]
        return d.turn(fail(command, f"{NOT_FOUND}\nCommand failed with exit code {code}."))

    outs = [check(0)]
    for n in range(4):
        outs.append(_flip(d, n))
        outs.append(check(n + 1))
    asked, _ = _asked_paused(outs, d)
    assert asked == [9]


def test_the_step_back_that_makes_the_4th_attempt_is_asked_about_at_once():
    d = Driver()
    outs = [_typecheck(d)]
    outs.append(_flip(d, 0))
    outs.append(_typecheck(d))  # the 1st attempt since `node` was first tried
    outs.append(_flip(d, 1))
    for option in ('"skipLibCheck": true,', '"incremental": true,'):
        outs.append(_typecheck(d))
        outs.append(d.turn(edit(OPTIONS, f"{option}\n}}", "}")))  # an option taken out
    outs.append(_typecheck(d))  # the 4th, after edits that tried nothing new
    outs.append(_flip(d, 2))  # a step back: the four count together
    asked, _ = _asked_paused(outs, d)
    assert asked == [10]


def test_failures_taking_turns_that_moved_start_again_alone():
    d = Driver()
    gradle, build, resolve, targets = GRADLE, BUILD, RESOLVE, TARGETS
    d.turn(fail(build, resolve))
    d.turn(edit(gradle, "jvmToolchain(17)", "jvmToolchain(21)"))
    d.turn(fail(build, targets.format(j="seventeen")))
    d.turn(edit(gradle, "jvmToolchain(21)", "jvmToolchain(17)"))
    d.turn(fail(build, resolve))
    d.turn(edit(gradle, "jvmToolchain(17)", "jvmToolchain(21)"))  # a step back
    d.turn(fail(build, targets.format(j="eleven")))  # it moved: Java is at 11 now
    d.turn(edit(gradle, "jvmToolchain(21)", "jvmToolchain(17)"))
    out = d.turn(fail(build, resolve))
    assert not out["context"] and d.main["stuck"]["fails"] <= 2


def test_a_new_failure_after_a_step_back_ends_the_detour():
    d = Driver()
    _typecheck(d)
    for n in range(3):
        _flip(d, n)  # the 3rd steps back
        _typecheck(d)
    d.turn(fail("pnpm -F admin lint", "error  Unexpected any  @typescript-eslint/no-explicit-any"))
    _flip(d, 3)  # would step back a second time: the detour is over, so it is progress
    _typecheck(d)
    assert d.main["stuck"]["fails"] == 1


def test_a_value_not_tried_yet_takes_the_file_off_the_round():
    d = Driver()
    _tried_in_turn(d, 4)
    d.turn(edit(OPTIONS, '"moduleResolution": "bundler"', '"moduleResolution": "node16"'))
    _typecheck(d)
    assert d.main["stuck"]["fails"] == 1


def test_a_block_rewritten_is_a_new_try_each_time():
    # Four lines at once, one of them back each other time: a rewrite, whose lines any other
    # rewrite may share.
    d = Driver()

    def block(n: int) -> str:
        module = ("esnext", "commonjs")[n % 2]
        lines = [f'"module": "{module}",'] + [f'"{k}": "{k}-{tag(n)}",' for k in ("a", "b", "c")]
        return "\n".join(lines)

    outs = [_typecheck(d)]
    for n in range(6):
        outs.append(d.turn(edit(OPTIONS, block(n), block(n + 1))))
        outs.append(_typecheck(d))
    assert _asked_paused(outs, d) == ([], False)


def _pytest_fails(test: str, error: str) -> str:
    return f"E   {error}\nFAILED tests/{test}\n1 failed, 12 passed"


def test_a_flag_compared_both_ways_then_fixed_in_the_same_file_is_left_alone():
    d = Driver()
    settings, parser = "/w/settings.py", "/w/parser_v2.py"
    check = "pytest -q tests/test_import.py"
    failure = _pytest_fails("test_import.py::test_quoted_comma", "assert ['Smith', ' J.'] == []")
    flags = ("USE_NEW_PARSER = True", "USE_NEW_PARSER = False")
    outs = [d.turn(fail(check, failure))]
    edits = [
        (settings, flags[0], flags[1]),
        (settings, flags[1], flags[0]),
        (parser, "return line.split(',')", "return next(csv.reader([line]))"),
        (settings, flags[0], flags[1]),  # compared again after the fix
        (settings, flags[1], flags[0]),
        (settings, "CSV_DIALECT = 'excel'", "CSV_DIALECT = 'unix'"),
    ]
    for path, old, new in edits:
        outs.append(d.turn(edit(path, old, new)))
        outs.append(d.turn(fail(check, failure)))
    outs.append(d.turn(edit(settings, "CSV_STRICT_QUOTES = False", "CSV_STRICT_QUOTES = True")))
    outs.append(d.turn(bash(check, "1 passed in 0.2s")))
    assert _asked_paused(outs, d) == ([], False)


def test_a_feature_built_across_files_under_a_test_failing_as_before_is_asked_about():
    # An import put back is no step back. But a test run after each piece, failing word for
    # word each time, reads as fixes that missed it (`persisting`): the 4th run is asked
    # about, and nothing is paused.
    d = Driver()
    routes, views = "/w/api/routes.py", "/w/api/views.py"
    schemas, models = "/w/api/schemas.py", "/w/api/models.py"
    check = "pytest -q tests/api/test_invoices.py"
    failure = _pytest_fails("api/test_invoices.py::test_list_invoices", "assert 404 == 200")
    use = "from .views import list_invoices"
    include = "router.include_router(invoices_router, prefix='/invoices')"
    edits = [
        (routes, "router = APIRouter()", f"{use}\nrouter = APIRouter()"),
        (views, "from .models import Invoice", "def list_invoices(db):\n    return db.all()"),
        (schemas, "from pydantic import BaseModel", "class InvoiceOut(BaseModel):\n    id: int"),
        (routes, f"{use}\nrouter = APIRouter()", "router = APIRouter()"),
        (routes, "router = APIRouter()", f"router = APIRouter()\n{include}"),
        (models, "id = Column(Integer)", "id = Column(Integer)\ntotal = Column(Numeric)"),
        (routes, f"router = APIRouter()\n{include}", "router = APIRouter()"),
        (routes, "router = APIRouter()", f"{use}\nrouter = APIRouter()"),  # the import again
    ]
    outs = [d.turn(fail(check, failure))]
    for path, old, new in edits:
        outs.append(d.turn(edit(path, old, new)))
        outs.append(d.turn(fail(check, failure)))
    assert _asked_paused(outs, d) == ([7], False)


def test_a_debug_print_put_in_again_while_fixing_is_no_step_back():
    # The print shows in the failure while it is in, so taking it out and putting it in again
    # moved what the run prints; the three fixes after it leave that as it was: the 4th run
    # printing the same is asked about (`persisting`).
    d = Driver()
    cart, check = "/w/cart.py", "pytest -q tests/test_cart.py"
    error = "assert Decimal('40') == Decimal('42')"
    captured = "----- Captured stdout call -----\nDEBUG subtotal 40 [Item(price=20)]\n"
    show = '    print("DEBUG subtotal", subtotal, items)'
    edits = [
        ("    return subtotal", f"{show}\n    return subtotal"),
        (f"{show}\n    return subtotal", "    return subtotal + shipping"),
        ("    return subtotal + shipping", f"{show}\n    return subtotal + shipping"),
        ("sum(i.price for i in items)", "sum(i.price * i.qty for i in items)"),
        ("i.price * i.qty", "i.unit_price * i.qty"),
        ("shipping = 0", "shipping = rates.shipping(items)"),
    ]
    outs = [d.turn(fail(check, _pytest_fails("test_cart.py::test_total", error)))]
    for old, new in edits:
        outs.append(d.turn(edit(cart, old, new)))
        shown = captured if "print(" in new or "print(" not in old else ""
        failure = _pytest_fails("test_cart.py::test_total", error)
        outs.append(d.turn(fail(check, shown + failure)))
    assert d.main["stuck"]["fails"] == 1
    assert _asked_paused(outs, d) == ([13], False)


def test_a_rewrite_putting_a_value_tried_before_back_in_is_no_step_back():
    d = Driver()
    outs = [_typecheck(d)]
    for n in range(2):
        outs.append(_flip(d, n))  # `node`, then `bundler` again: both tried
        outs.append(_typecheck(d))
    rewrite = "\n".join(
        ['"moduleResolution": "node"']
        + [f'"{key}": "{key}-{tag(9)}",' for key in ("module", "target", "jsx", "lib")]
    )
    outs.append(d.turn(edit(OPTIONS, '"moduleResolution": "bundler"', rewrite)))
    outs.append(_typecheck(d))
    assert d.main["stuck"]["fails"] == 1


def test_a_failure_that_moved_after_a_step_back_counts_from_one():
    d = Driver()

    def check(errors: int) -> dict[str, Any]:
        return d.turn(fail("pnpm -F admin typecheck", f"{NOT_FOUND}\nFound {errors} errors"))

    outs = [check(3)]
    for n in range(4):
        outs.append(_flip(d, n))  # the 3rd and the 4th step back
        outs.append(check(2 if n == 3 else 3))  # the last one error fewer: it moved
    assert _asked_paused(outs, d) == ([], False) and d.main["stuck"]["fails"] == 1
