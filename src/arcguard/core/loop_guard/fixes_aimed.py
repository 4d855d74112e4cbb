"""Whether fixes to code went at a failure that stood through them, as `persisting` pauses for.

Fixes in one or two files that leave a failure printed as before may have missed it (a
discount sum rewritten in its model, a header flipped between client and server component) or
may be work beside a failure nobody is fixing (a refactor of one module while the whole suite
fails, as it did before, on a test of another). What tells them apart is what the attempts
show: the failure names a file the fixes were made in (`./components/Header.tsx` in the build's
error); the check asks for what fails (`rspec spec/models/invoice_spec.rb:42`, `go test -run
TestDrain`) and the failure names it; or a fix went into the build's own definition (a
`Podfile`, an Xcode project). Names are compared by file name, in lower case, as a print keeps
its lines. Functions of the call, its print and the track's `Persist` record (mutated by `keep` and
`note` alone).
"""

from __future__ import annotations

from arcguard.core.loop_guard import exit_status
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import shell_words
from arcguard.core.loop_guard import tool_effects


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.loop_records import Persist
    from arcguard.core.tool_call import ToolCall

# Fixes to code kept to this many files may have gone at the failure; fixes spread wider
# build something up beside it (`aimed`). A fix made from the shell names no file it is kept
# apart by: it is marked `SHELL`, which is none of them.
AIMED_FILES = 2
SHELL = "*"
NAME_CHARS = 48  # of a file's name, kept
MIN_NAME = 3  # characters of a name, at least, to be looked for in a print
# The files that define a build, and the endings of such files: a fix there is a fix to the
# build that fails.
BUILD_FILES = frozenset(
    {
        "podfile", "gemfile", "makefile", "cmakelists.txt", "dockerfile", "package.json",
        "cargo.toml", "go.mod", "pyproject.toml", "setup.py", "build.gradle", "build.gradle.kts",
        "pom.xml",
    }
)  # fmt: skip
BUILD_ENDINGS = (".pbxproj", ".xcconfig", ".csproj", ".gradle", ".podspec", ".cmake")
# Options that pick the tests a runner runs, by a name or an expression of names (`pytest -k
# "total and not slow"`, `go test -run '^TestDrain$'`, `playwright --grep`, `jest
# --testNamePattern`); not options other programs spell alike (`docker build -t app`).
SELECTORS = frozenset({"-k", "-run", "--grep", "--testnamepattern"})
# The words of a selector's expression that name no test.
OPERATORS = frozenset({"not", "and", "or"})
# What sits around a name in a print or a command: brackets, quotes, separators, an anchor.
AROUND = "()[]{}<>,;'\"`.^$|"


def aimed(persist: Persist) -> bool:
    """The fixes to code since the count started went at the failure and left it as it was:
    made in one or two files, and an attempt showed them aimed (`note`), or a fix went into
    the build's own files. Work spread over more files (a feature built up under its test, one
    error fixed per file, or any made from the shell), or beside a failure the check does not
    ask about (a module refactored while the whole suite fails on another's test), gets the
    request only."""
    kept = persist.fixed_in
    return len(kept) <= AIMED_FILES and SHELL not in kept and (persist.aimed or builds(kept))


def keep(persist: Persist, name: str) -> None:
    """Keep the file a fix to code was made in, as far as `aimed` needs to tell."""
    kept = persist.fixed_in
    if name not in kept and len(kept) <= AIMED_FILES:
        persist.fixed_in = [*kept, name]


def note(persist: Persist | None, call: ToolCall, printed: list[str]) -> None:
    """A failing attempt whose print shows the fixes aimed at its failure (`points_at`). Not
    one cut by a filter (`flake8 app.py | tail -3`): fixes to the lines it does not show (lint
    errors fixed from the top) leave what it shows as it was."""
    if (
        persist is not None
        and not persist.aimed
        and not exit_status.filtered(tool_effects.command_of(call) or "")
        and points_at(call, printed, persist.fixed_in)
    ):
        persist.aimed = True


def file_name(call: ToolCall) -> str:
    """The name of the file an edit was made in, as `Persist.fixed_in` keeps it."""
    return _name_of(opkey.file_path(call).lower())


def builds(names: list[str]) -> bool:
    """One of the files fixed defines the build."""
    return any(name in BUILD_FILES or name.endswith(BUILD_ENDINGS) for name in names)


def points_at(call: ToolCall, printed: list[str], fixed: list[str]) -> bool:
    """The print of a failing attempt names a file fixed since the count started, or a file
    or test the attempt's command asks for."""
    shown = _names(" ".join(printed))
    return any(len(name) >= MIN_NAME and name in shown for name in [*fixed, *_asked(call)])


def _names(text: str) -> set[str]:
    """The words of a print as names: each whole (`app.py:118:1`) and as `_name_of` reads it."""
    found = set()
    for word in text.split():
        found.add(_bare(word)[:NAME_CHARS])
        found.add(_name_of(word))
    return found


def _name_of(word: str) -> str:
    """A word as the name of a file or test, cut to `NAME_CHARS`: without what sits around it,
    the path before the name, and what follows a file's name (`::test_add`, `:42:7`,
    `(12,3)`)."""
    return _bare(word).partition("::")[0].partition(":")[0].partition("(")[0][:NAME_CHARS]


def _bare(word: str) -> str:
    return word.replace("\\", "/").strip(AROUND).rsplit("/", 1)[-1]


def _asked(call: ToolCall) -> set[str]:
    """The files a command names (a word with a dot in its file name, `::` or `:line` aside)
    and the tests it selects (the names in the values of `SELECTORS`), in lower case."""
    asked = set()
    for words in shell_words.commands((tool_effects.command_of(call) or "").lower()) or []:
        for at, word in enumerate(words):
            option, equals, value = word.partition("=")
            if option in SELECTORS:
                given = value if equals else (words[at + 1] if at + 1 < len(words) else "")
                asked.update(_names(given.replace("|", " ")) - OPERATORS)
            elif not word.startswith("-") and "." in (name := _name_of(word)):
                asked.add(name)
    return asked
