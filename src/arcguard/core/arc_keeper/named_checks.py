"""The checks an arc's task names, and whether each has passed since the code last changed.

A task that says how its work is proven ("until `pytest api` passes", "run `terraform plan` at
the end", "run mypy") sets a condition the model can meet on its own: a stop before that check
has passed on the code as it now is leaves the proof undone, whatever the message says. Checks
are told apart by what they prove, not by how they are spelt (`pnpm test checkout`, `npx vitest`
and `go test ./...` all run tests), so a narrower or differently spelt run counts; a passing test
run also proves that the code builds.

The task's checks are read once, from the prompt that starts the arc, unless the prompt says not
to run them ("no need to run `terraform plan`"), and bind until the operator types another
prompt (which may change the work). An edit to code undoes every pass; one to documentation
(`*.md`, `*.rst`, `*.txt`) or outside the session's folder proves nothing either way. Pure
functions; the arc keeps what they need (`Arc.checks`, `checks_passed`, `checks_asked`).
"""

from __future__ import annotations

import itertools

from arcguard.core.loop_guard import background
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import shell_words
from arcguard.core.loop_guard import shell_writes
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
        (TEST, "pytest tox nox jest vitest mocha rspec phpunit ctest behave playwright unittest"),
        ("typecheck", "tsc mypy pyright"),
        ("lint", "eslint ruff flake8 pylint golangci-lint shellcheck rubocop stylelint biome"),
    )
    for program in programs.split()
}
# Programs whose subcommand, target or the program they hand on to says what they check
# (`cargo bench`, `make test`, `uv run pytest`, `docker compose exec api pytest`).
RUNNERS = frozenset(
    "npm pnpm yarn bun deno cargo go make just mix rake rails gradle gradlew mvn mvnw dotnet "  # noqa: SIM905
    "swift terraform tofu helm bazel nx turbo composer php docker podman kubectl npx pnpx bunx "
    "uv uvx poetry pipenv pdm hatch rye bundle".split()
)
SUBCOMMANDS = {
    "test": TEST,
    "tests": TEST,
    "spec": TEST,
    "e2e": TEST,
    "verify": TEST,
    "nextest": TEST,
    "typecheck": "typecheck",
    "type-check": "typecheck",
    "types": "typecheck",
    "lint": "lint",
    "vet": "lint",
    "clippy": "lint",
    "build": BUILD,
    "compile": BUILD,
    "check": "check",
    "bench": "bench",
    "plan": "plan",
    "validate": "validate",
    "template": "template",
}
HANDING_ON = frozenset({"run", "exec", "--"})  # `npm run lint`, `bundle exec rspec`
# A runner's subcommands after which no word names a check (`npm install vitest`).
NOT_CHECKS = frozenset({"install", "i", "add", "remove", "uninstall", "update", "upgrade", "init"})
# Options that make a check program print something else than a check's result.
NO_RUN = frozenset({"--version", "-V", "--help", "-h", "--collect-only", "--no-run"})
SUBCOMMAND_REACH = 3  # non-option words after a runner where its subcommand or target may be
# Words before a check in the prompt that take it back ("no need to run `terraform plan`").
NEGATIONS = frozenset({"don't", "dont", "not", "never", "no", "skip", "without"})
RUN_WORDS = frozenset({"run", "running", "rerun", "re-run"})
JOINERS = frozenset({"and", "or", "then", "&"})  # between programs listed after "run"
NEGATION_REACH = 4
DOC_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".adoc")
SUMMARY_LINES = 5  # the end of a check's output that holds its summary (jest's is 4 lines up)
MAX_CHECKS = 8


def named(prompt: str) -> list[str]:
    """What the checks `prompt` names prove (`["test", "plan"]`): the commands of its backticked
    spans and blocks that run a check, and the check programs listed after "run" in the prose;
    not one the words before it take back, or that the operator will run "myself"."""
    pieces = prompt.split("`")
    found: list[str] = []
    for at, piece in enumerate(pieces):
        if at % 2:
            before = _words(pieces[at - 1])
            after = _words(pieces[at + 1]) if at + 1 < len(pieces) else []
            if not _taken_back(before, after):
                found.extend(kinds(piece))
            continue
        found.extend(_run_in_prose(_words(piece)))
    return list(dict.fromkeys(found))[:MAX_CHECKS]


def _run_in_prose(words: list[str]) -> list[str]:
    """What the check programs listed after "run" prove ("run mypy and ruff")."""
    found: list[str] = []
    for at, word in enumerate(words):
        if word not in RUN_WORDS or _taken_back(words[: at + 1], []):
            continue
        listed = itertools.takewhile(lambda w: w in PROGRAMS or w in JOINERS, words[at + 1 :])
        programs = [w for w in listed if w in PROGRAMS]
        if programs and "myself" not in words[at + 1 + len(programs) :][:4]:
            found.extend(PROGRAMS[w] for w in programs)
    return found


def _words(prose: str) -> list[str]:
    return [w.strip(".,;:!?()\"'").lower() for w in prose.split()]


def _taken_back(before: list[str], after: list[str]) -> bool:
    """A negation just before the check, ending on it or on "run" ("do not run", "skip"), or
    "myself" just after it."""
    near = before[-NEGATION_REACH:]
    negated = bool(near) and bool(set(near) & NEGATIONS) and near[-1] in NEGATIONS | RUN_WORDS
    return negated or "myself" in after[:3]


def kinds(command: str) -> list[str]:
    """What the checks `command` runs prove, in order (none when it runs none)."""
    return [kind for words in _commands(command) if (kind := _kind(words))]


def _commands(command: str) -> list[list[str]]:
    """The simple commands `command` runs, wrappers aside (none when a quote is left open)."""
    split = shell_words.commands(tool_effects.without_safe_redirects(command)) or []
    return [tool_effects.unwrap(words) for words in split]


def _kind(words: list[str]) -> str | None:
    if not words or NO_RUN & set(words):
        return None
    program = tool_effects.program_name(words[0])
    if program in PROGRAMS:
        return PROGRAMS[program]
    if program not in RUNNERS and not program.startswith("python"):
        return None
    plain = [w for w in words[1:] if not w.startswith("-") and w not in HANDING_ON]
    for word in plain[:SUBCOMMAND_REACH]:
        if word in NOT_CHECKS:
            return None
        kind = _word_kind(word)
        if kind:
            return kind
    return None


def _word_kind(word: str) -> str | None:
    """What a runner's word names: a subcommand, a target (`test-unit`, `:app:test`) or a
    program it hands on to (`pytest` in `python -m pytest`)."""
    parts = word.replace(":", "-").split("-")
    for candidate in (word, parts[0], parts[-1]):
        kind = SUBCOMMANDS.get(candidate) or PROGRAMS.get(tool_effects.program_name(candidate))
        if kind:
            return kind
    return None


def observe(state: State, call: ToolCall, result: ToolResult) -> None:
    """A finished call (mutates `state`): an edit to code undoes every pass; a passing run of a
    check the arc's task names counts for the code as it is now."""
    arc = StateFile.view(state).arc
    if arc is None or not arc.active or not arc.checks or not _ran(call, result):
        return
    if _edits_code(call, StateFile.view(state).cwd):
        arc.checks_passed, arc.checks_asked = [], False
    command = tool_effects.command_of(call)
    if command is None or background.launched_by(result.response, call.id, call.name):
        return
    ran = [k for k in kinds(command) if k in arc.checks or (k == TEST and BUILD in arc.checks)]
    if ran and _passed(command, result):
        arc.checks_passed = list(dict.fromkeys([*arc.checks_passed, *ran]))


def observe_batch(
    state: State, calls: Sequence[tuple[ToolCall, ToolResult]], reported: Collection[str]
) -> None:
    """A turn's calls as PostToolBatch gives them (mutates `state`). The batch does not say
    which failed: those are the calls PostToolUseFailure `reported` already (with the edits,
    reported by PostToolUse); the others ran to the end."""
    for call, result in calls:
        if call.id not in reported and not opkey.batch_never_ran(result.response):
            observe(state, call, result)


def _ran(call: ToolCall, result: ToolResult) -> bool:
    return opkey.outcome(call, result).startswith(opkey.COMPLETED)


def _edits_code(call: ToolCall, folder: str) -> bool:
    """The call wrote a file of the project (`folder`, when known) that is not documentation."""
    if call.name not in opkey.EDIT_TOOLS:
        return shell_writes.edits_files(call)
    path = call.input.get("file_path") if isinstance(call.input, dict) else None
    if not isinstance(path, str):
        return True
    outside = (
        bool(folder) and path.startswith("/") and not path.startswith(folder.rstrip("/") + "/")
    )
    return not (outside or path.lower().endswith(DOC_SUFFIXES))


def _passed(command: str, result: ToolResult) -> bool:
    """The run ended well. Its exit status is the check's when the check runs last; after a
    pipe or a list (`pytest | tail -5`, `pytest; echo done`) only its output can tell: the
    summary a runner ends on, its last lines (the log lines before may name failures tested
    for)."""
    if any(_kind(words) for words in _commands(command)[-1:]):
        return True
    # Only this branch reads words: the hooks that record a check's run do not load them.
    from arcguard.core.arc_keeper import handback

    lines = [line for line in shape.result_text(result).splitlines() if line.strip()]
    summary = " ".join(lines[-SUMMARY_LINES:])
    # A tally's zero ("Failed: 0", "Failures: 0, Errors: 0") names no failure.
    words = summary.replace(":", " ").replace(",", " ").split()
    kept = [w for n, w in enumerate(words) if words[n + 1 : n + 2] != ["0"]]
    return not handback.shows_failure(" ".join(kept))


def missing(arc: Arc) -> list[str]:
    """The checks the arc's task names that have not passed since the last edit to code; none
    once the model was sent back for them and has edited no code since (it was told once)."""
    if not arc.checks or arc.checks_asked:
        return []
    passed = set(arc.checks_passed)
    if TEST in passed:
        passed.add(BUILD)
    return [kind for kind in arc.checks if kind not in passed]
