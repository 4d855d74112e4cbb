"""A shell command as the shell reads it: its simple commands and their words, quotes
removed, and its text with what quotes hold set aside.

A separator or a redirect inside quotes is an argument (`grep -E 'a|b'`, `awk '$3 > 5'`,
`jq '.jobs[] | .name'`), not the shell's: reading them as the shell's would take a search for a
pipeline into an unknown program, or a filter for a write.
"""

from __future__ import annotations


OPERATORS = frozenset("|&;()\n")
SPACE = frozenset(" \t\r")
ESCAPED_IN_DOUBLE_QUOTES = frozenset('"\\$`')


def commands(command: str) -> list[list[str]] | None:
    """The simple commands of `command`, each a list of words as a POSIX shell reads them
    (quotes removed, `\\` outside quotes escaping the next character); None when a quote is
    left open. Operators (`|`, `&&`, `;`, parentheses, a new line) end a command."""
    commands: list[list[str]] = [[]]
    word: list[str] = []
    started = False  # a word is open, even if it is empty (`""`)
    quote = ""
    i, end = 0, len(command)
    while i < end:
        char = command[i]
        i += 1
        if quote == "'":
            if char == "'":
                quote = ""
            else:
                word.append(char)
        elif quote == '"':
            if char == '"':
                quote = ""
            elif char == "\\" and i < end and command[i] in ESCAPED_IN_DOUBLE_QUOTES:
                word.append(command[i])
                i += 1
            else:
                word.append(char)
        elif char in "'\"":
            quote, started = char, True
        elif char == "\\" and i < end:
            word.append(command[i])
            started = True
            i += 1
        elif char in SPACE or char in OPERATORS:
            if started:
                commands[-1].append("".join(word))
                word, started = [], False
            if char in OPERATORS and commands[-1]:
                commands.append([])
        else:
            word.append(char)
            started = True
    if quote:
        return None
    if started:
        commands[-1].append("".join(word))
    return [c for c in commands if c]


def outside_quotes(command: str, *, double: bool = True) -> str:
    """`command` with what its single quotes hold, and its double quotes' too when `double`,
    blanked (each character a space), the quotes kept: a `$(` in double quotes still runs.
    A quote left open holds the rest."""
    out: list[str] = []
    quote = ""
    i, end = 0, len(command)
    while i < end:
        char = command[i]
        i += 1
        if quote:
            if char == quote:
                quote = ""
                out.append(char)
            elif quote == '"' and not double:
                out.append(char)
            else:
                if quote == '"' and char == "\\" and i < end:
                    out.append(" ")
                    i += 1
                out.append(" ")
        elif char in "'\"":
            quote = char
            out.append(char)
        elif char == "\\" and i < end:
            out.append(char + command[i])
            i += 1
        else:
            out.append(char)
    return "".join(out)
