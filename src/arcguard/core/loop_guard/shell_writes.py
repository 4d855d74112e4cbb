"""What a shell command is known to have done to the code, though arcguard cannot see it.

An edit tool's new content is on record; a shell command's never is. Two kinds are still
known to change code:

- one that writes files (`sed -i`, a redirect into a file, `tee`, `patch`, `git apply`, a
  version set in a package's manifest: `npm version patch`): a test may run again once after
  it to check it, as after an edit (`repeat`);
- a git command that puts other code in the working tree (`git checkout main`, a bisect
  step, `git stash`): a failure seen again after it is news, not a retry (`stuck`). Its
  options that leave the tree as it was (`checkout -b`, `reset --soft`, `merge --abort`) do
  not count, nor do those that each answer that nothing moved ("Already up to date."):
  neither wrote anything.

Quoted text is not told apart, so a `>` inside quotes counts as a redirect: the error is
toward letting a check run.
"""

from __future__ import annotations

from arcguard.core.loop_guard import shell_words
from arcguard.core.loop_guard import tool_effects as fx


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.tool_call import ToolCall

# Programs that edit the files they are given with an option (`sed -i`, `perl -pi`), and the
# letters that end a cluster of short options because they take a value (`perl -Ilib`).
IN_PLACE_EDITORS = {"sed": "efl", "perl": "IMmeExl0CdD"}
FILE_WRITERS = frozenset({"tee", "patch"})
# Subcommands that write a package's manifest when given what to set (`npm version patch`,
# `npm pkg set version=2.0.0`, `cargo set-version 0.4.0`); alone they print it.
MANIFEST_WRITERS = {
    "npm": ("version", "pkg set", "pkg delete"),
    "pnpm": ("version",),
    "yarn": ("version",),
    "poetry": ("version",),
    "cargo": ("set-version",),
}
# Arguments that make a writer write nothing (`patch --dry-run`, `tee /dev/stderr`).
WRITES_NOTHING = ("--dry-run", "/dev/")
# `git SUB` that puts other code in the working tree, and the arguments with which it does not.
GIT_TREE_MOVERS = {
    "checkout": ("-b", "-B", "--orphan"),
    "switch": ("-c", "-C", "--create", "--force-create"),
    "restore": ("--staged",),
    "stash": ("list", "show", "create", "store"),
    "bisect": ("log", "visualize", "view", "terms"),
    "pull": (),
    "merge": ("--abort", "--quit"),
    "rebase": ("--abort", "--quit"),
    "cherry-pick": ("--abort", "--quit"),
    "revert": ("--abort", "--quit"),
    "am": ("--abort", "--quit"),
}
# `git SUB` that swaps what the working tree holds, and may swap it back (`flips`).
FLIP_SUBCOMMANDS = frozenset({"checkout", "switch", "stash", "bisect"})
# `git reset` moves the working tree only in these modes.
RESET_MOVES = ("--hard", "--keep", "--merge")
# What git answers when the command moved nothing.
NOTHING_MOVED = (
    "already up to date",
    "already up-to-date",
    "already on ",
    "no local changes",
    "is up to date.",  # `git pull --rebase`: "Current branch main is up to date."
)


def edits_files(call: ToolCall, answer: str | None = None) -> bool:
    """The shell command writes files: through a redirect, in place, or with a writer. Given
    what it printed (`answer`), git commands moving the tree that each say they moved nothing
    wrote nothing."""
    command = fx.command_of(call)
    if command is None:
        return False
    text = fx.without_safe_redirects(command)
    bare = shell_words.outside_quotes(text)
    if bare is None or ">" in bare:
        return True  # a redirect, or a quote left open: unreadable, so taken as a write
    parts = shell_words.commands(text) or []
    still = answer is not None and _said_still(parts, answer)
    return any(_writes(fx.unwrap(words), still=still) for words in parts)


def moves_checkout(call: ToolCall, answer: str) -> bool:
    """A git command put other code in the working tree (`answer`: what it printed)."""
    command = fx.command_of(call)
    parts = fx.segments(command) if command is not None else None
    if not any(_moves(fx.unwrap(words)) for words in parts or []):
        return False
    return not _said_still(parts or [], answer)


def _said_still(parts: list[list[str]], answer: str) -> bool:
    """The answer says nothing moved ("Already up to date.") as many times as the command has
    git commands moving the tree: "Already on 'main'" from a checkout says nothing of the pull
    after it, which may have brought other code."""
    movers = sum(_moves(fx.unwrap(words)) for words in parts)
    if not movers:
        return False  # most commands move nothing: their answer is not read
    lowered = answer.lower()
    return sum(lowered.count(phrase) for phrase in NOTHING_MOVED) >= movers


def flips(call: ToolCall) -> bool:
    """The command is one git command that swaps what the working tree holds, and may swap it
    back (`git checkout main`, `git stash`, `git stash pop`, a bisect step): not a pull, a merge
    or a reset, and not part of a longer command."""
    command = fx.command_of(call)
    parts = fx.segments(command) if command is not None else None
    if not parts or len(parts) != 1:
        return False
    words = fx.unwrap(parts[0])
    sub = fx.git_sub(words[1:]) if _moves(words) else []
    return bool(sub) and sub[0] in FLIP_SUBCOMMANDS


def _writes(words: list[str], *, still: bool = False) -> bool:
    if not words:
        return False
    program, args = fx.program_name(words[0]), words[1:]
    if any(a.startswith(WRITES_NOTHING) for a in args):
        return False
    if program in IN_PLACE_EDITORS:
        return "--in-place" in args or any(_in_place(a, program) for a in args)
    if program == "git":
        sub = fx.git_sub(args)
        return sub[:1] == ["apply"] or (_moves(words) and not still)
    if program in fx.AWK_PROGRAMS:
        return fx.awk_writes(args)
    if program in MANIFEST_WRITERS:
        given = " ".join(args)
        return any(given.startswith(f"{sub} ") for sub in MANIFEST_WRITERS[program])
    return program in FILE_WRITERS and bool(args)


def _in_place(arg: str, program: str) -> bool:
    """`-i` among a cluster of short options, before any letter that takes a value."""
    if not arg.startswith("-") or arg.startswith("--"):
        return False
    for letter in arg[1:]:
        if letter == "i":
            return True
        if letter in IN_PLACE_EDITORS[program]:
            return False
    return False


def _moves(words: list[str]) -> bool:
    if not words or fx.program_name(words[0]) != "git":
        return False
    sub = fx.git_sub(words[1:])
    if not sub:
        return False
    if sub[0] == "reset":
        return any(a in RESET_MOVES for a in sub[1:])
    keeps = GIT_TREE_MOVERS.get(sub[0])
    if keeps is None or any(a in keeps for a in sub[1:]):
        return False
    return not (sub[0] == "bisect" and sub[1:] in ([], ["start"]))
