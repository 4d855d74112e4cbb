"""The checks an arc's task names, and whether each has passed since the code last changed.

A task that says how its work is proven ("until `pytest api` passes", "run `terraform plan` at
the end", "run mypy") sets a condition the model can meet on its own: a stop before that check
has passed on the code as it now is leaves the proof undone, whatever the message says. Checks
are told apart by what they prove, not by how they are spelt (`pnpm test checkout`, `npx vitest`
and `go test ./...` all run tests), so a narrower or differently spelt run counts; a passing test
run also proves that the code builds.

The task's checks are read once, from the prompt that starts the arc, and bind until the operator
types another prompt (which may change the work). Passes are counted against the loop guard's
count of edits (`Guard.edit_seq`): an edit after a pass undoes it. Pure functions; the arc keeps
what they need (`Arc.checks`, `checks_passed`, `checks_at`, `checks_asked`).
"""

from __future__ import annotations

import itertools

from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import shell_words
from arcguard.core.loop_guard import tool_effects
from arcguard.core.schema import StateFile


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Sequence

    from arcguard.core.schema import Arc
    from arcguard.core.state import State
    from arcguard.core.tool_call import ToolCall
    from arcguard.core.tool_call import ToolResult

TEST = "test"
BUILD = "build"
# Programs that are a check by themselves, and what they prove.
PROGRAMS = {
    program: kind
    for kind, programs in (
        (TEST, "pytest tox nox jest vitest mocha rspec phpunit ctest behave playwright cypress"),
        ("typecheck", "tsc mypy pyright"),
        ("lint", "eslint ruff flake8 pylint golangci-lint shellcheck rubocop stylelint biome"),
    )
    for program in programs.split()
}
# Programs whose subcommand or target says what they check (`cargo bench`, `make test`).
RUNNERS = frozenset(
    "npm pnpm yarn bun deno cargo go make just mix rake gradle gradlew mvn mvnw dotnet swift "  # noqa: SIM905
    "terraform tofu helm bazel nx turbo composer".split()
)
SUBCOMMANDS = {
    word: kind
    for kind, words in (
        (TEST, "test tests spec e2e unittest verify"),
        ("typecheck", "typecheck type-check types"),
        ("lint", "lint vet clippy"),
        (BUILD, "build compile"),
        *((word, word) for word in ("check", "bench", "plan", "validate", "template")),
    )
    for word in words.split()
}
# Words that only hand the rest of the command on (`npx jest`, `uv run pytest`, `npm run lint`).
PASSING_ON = frozenset("npx pnpx bunx uv poetry pipenv pdm hatch rye bundle run exec".split())  # noqa: SIM905
# Words of a task that ask for the program after them to run ("run pytest when done").
RUN_WORDS = frozenset({"run", "running", "rerun", "re-run"})
SUBCOMMAND_REACH = 3  # non-option words after a runner where its subcommand or target may be
MAX_CHECKS = 8


def named(prompt: str) -> list[str]:
    """What the checks `prompt` names prove (`["test", "plan"]`): the commands of its backticked
    spans and blocks that run a check, and a check program after "run" in the prose."""
    found = [kind for span in prompt.split("`")[1::2] for kind in kinds(span)]
    words = [w.strip(".,;:!?()\"'").lower() for w in prompt.split()]
    found.extend(
        PROGRAMS[b] for a, b in itertools.pairwise(words) if a in RUN_WORDS and b in PROGRAMS
    )
    return list(dict.fromkeys(found))[:MAX_CHECKS]


def kinds(command: str) -> list[str]:
    """What the checks `command` runs prove, in order (none when it runs none)."""
    split = shell_words.commands(tool_effects.without_safe_redirects(command)) or []
    found = []
    for words in split:
        kind = _kind(tool_effects.unwrap(words))
        if kind:
            found.append(kind)
    return found


def _kind(words: list[str]) -> str | None:
    while words and words[0] in PASSING_ON:
        words = words[1:]
    if (
        len(words) > 1
        and tool_effects.program_name(words[0]).startswith("python")
        and words[1] == "-m"
    ):
        words = words[2:]
    if not words:
        return None
    program = tool_effects.program_name(words[0])
    if program in PROGRAMS:
        return PROGRAMS[program]
    if program not in RUNNERS:
        return None
    plain = [w for w in words[1:] if not w.startswith("-") and w not in PASSING_ON]
    for word in plain[:SUBCOMMAND_REACH]:
        kind = SUBCOMMANDS.get(word.replace(":", "-").split("-")[0])
        if kind:
            return kind
    return None


def observe(state: State, call: ToolCall, result: ToolResult) -> None:
    """A finished call (mutates `state`): a passing run of a check the arc's task names counts
    for the code as it is now."""
    arc = StateFile.view(state).arc
    if arc is None or not arc.active or not arc.checks:
        return
    command = tool_effects.command_of(call)
    if command is None or _in_background(call) or not _passed(call, result):
        return
    ran = [k for k in kinds(command) if k in arc.checks or (k == TEST and BUILD in arc.checks)]
    if not ran:
        return
    seq = StateFile.view(state).guard.edit_seq
    passed = arc.checks_passed if arc.checks_at == seq else []
    arc.checks_passed = list(dict.fromkeys([*passed, *ran]))
    arc.checks_at = seq


def observe_batch(
    state: State, calls: Sequence[tuple[ToolCall, ToolResult]], reported: Collection[str]
) -> None:
    """A turn's calls as PostToolBatch gives them (mutates `state`). The batch does not say
    which failed: those are the calls PostToolUseFailure `reported` already; the others, that
    ran, passed."""
    for call, result in calls:
        if call.id not in reported and not opkey.batch_never_ran(result.response):
            observe(state, call, result)


def _in_background(call: ToolCall) -> bool:
    return isinstance(call.input, dict) and call.input.get("run_in_background") is True


def _passed(call: ToolCall, result: ToolResult) -> bool:
    return opkey.outcome(call, result).startswith(opkey.COMPLETED)


def missing(state: State, arc: Arc) -> list[str]:
    """The checks the arc's task names that have not passed since the last edit; none once the
    model was sent back for them and has edited nothing since (it was told once)."""
    seq = StateFile.view(state).guard.edit_seq
    if not arc.checks or arc.checks_asked == seq:
        return []
    passed = set(arc.checks_passed) if arc.checks_at == seq else set()
    if TEST in passed:
        passed.add(BUILD)
    return [kind for kind in arc.checks if kind not in passed]


def asked(state: State, arc: Arc) -> None:
    """The model was sent back for the checks still missing (mutates `arc`)."""
    arc.checks_asked = StateFile.view(state).guard.edit_seq
