"""Searches that find nothing, and searches spelt so that they cannot match.

An empty search is usually an answer (the name is unused, the file is gone), so finding
nothing is never counted as a repeat. What goes wrong in real sessions is narrower: a search
re-spelt again and again, always empty, because of a slip in how it is written (ripgrep reading
grep's `\\|` as a literal pipe, quote characters inside a `Grep` glob, which no file name has).
The model blames the word and tries another; the slip stays. So:

- a run of searches that find nothing is a run of results that bring nothing new, and is staged
  as those are (`shape_checkin_repeats`, then `shape_pause_repeats`), except that two are
  enough for the request when one of them carries a slip; the request asks the model to check
  the search itself, naming the slip when there is one;
- after that request, a search that still carries a slip is denied before it runs, its reason
  saying which slip: it cannot find anything, and it tells the model what to fix.

A search that finds something, a confirmed edit, the user's words or a call that may have
changed the world ends the run; so do more than `GAP` other calls since the last empty search.
Pure functions of the call and its result; the counters live in the track's `Stuck` record.
"""

from __future__ import annotations

from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import shell_words
from arcguard.core.loop_guard import tool_effects
from arcguard.core.tool_call import ToolResult


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.loop_records import Stuck
    from arcguard.core.tool_call import ToolCall

GREP, GLOB = "Grep", "Glob"
SEARCH_PROGRAMS = frozenset({"rg", "grep", "egrep", "fgrep", "ag", "ack", "find", "fd", "fdfind"})
# How the tools word an empty answer when the result comes as the text the model saw.
NOTHING_FOUND = frozenset({"No matches found", "No files found", "Found 0 files"})
NO_MATCH_EXIT = "Exit code 1"  # the whole error of a search that found nothing, on old releases
# The searches whose exit status 1 says nothing matched (`find` and `fd` exit 0 then).
NO_MATCH_PROGRAMS = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack"})
GAP = 5  # other calls that may come between two of them while they still count as a run
MAX_COMMAND_CHARS = 4096  # a search is one line or a few; a longer command is something else

# Slips: spellings that cannot match, each with what to tell the model.
ALTERNATION = "alternation"  # `\|` read as a literal pipe: ripgrep, the Grep tool, ag, ack, grep -P
BRE_PIPE = "bre-pipe"  # grep without -E reads `|` as a literal pipe
QUOTED_GLOB = "quoted-glob"  # the Grep and Glob tools take quotes in a glob literally
STRAY_QUOTE = "stray-quote"  # a lone `"` closing a Grep pattern, as if for a shell

PERL_STYLE = frozenset({"rg", "ag", "ack"})  # their regexes read `\|` as a literal pipe


def found(call: ToolCall, result: ToolResult) -> bool | None:
    """Whether a search found something; None for any other call, or a search that failed."""
    if result.failed or not result.responded:
        return None
    response = result.response
    if call.name in (GREP, GLOB):
        if isinstance(response, str):
            return response.strip() not in NOTHING_FOUND
        if isinstance(response, dict):
            content = response.get("content")
            return bool(response.get("filenames")) or bool(
                isinstance(content, str) and content.strip()
            )
        return None
    if _programs(call) is None:
        return None
    return not opkey.is_empty_result(result)


def as_answered(call: ToolCall, result: ToolResult) -> ToolResult:
    """`result`, but a search that found nothing as the newer releases report it. Claude Code
    reads exit status 1 of a grep-like search as "no matches": a call that printed nothing.
    Older releases did not for `git grep`, which then failed with "Exit code 1" and nothing
    else; so every search that found nothing reads the same on every release."""
    error = result.error
    if not result.failed or not isinstance(error, str) or error.strip() != NO_MATCH_EXIT:
        return result
    if result.interrupted or not _lone_grep(call):
        return result
    return ToolResult(response={"stdout": "", "stderr": ""}, duration_ms=result.duration_ms)


def _lone_grep(call: ToolCall) -> bool:
    """The command is one grep-like search (`NO_MATCH_PROGRAMS`), after a `cd` or not, and not
    negated (`! grep -q`): its exit status 1 can only say that nothing matched."""
    command = tool_effects.command_of(call)
    commands = _commands(call)
    if command is None or command.lstrip().startswith("!") or not commands:
        return False
    *before, last = commands
    grep = tool_effects.program_name(last[0]) in NO_MATCH_PROGRAMS or last[:2] == ["git", "grep"]
    return grep and all(words[:1] == ["cd"] for words in before)


def _programs(call: ToolCall) -> list[list[str]] | None:
    """A Bash search's simple commands that run a search program, as the shell splits their
    words (quotes removed, a `|` inside quotes kept); None when the call is not a read-only
    command running one."""
    found = [c for c in _commands(call) or () if c and _is_search(c)]
    return found or None


def _commands(call: ToolCall) -> list[list[str]] | None:
    """The simple commands of a read-only Bash command that may run a search program; None
    for any other call."""
    command = tool_effects.command_of(call)
    if (
        command is None
        or len(command) > MAX_COMMAND_CHARS
        or not any(program in command for program in SEARCH_PROGRAMS)
    ):
        return None  # read char by char below: only what can be a search is
    text = tool_effects.harmless(command)
    if text is None:
        return None  # it writes, or runs what we cannot see
    split = shell_words.commands(text)
    if split is None:
        return None
    commands = [tool_effects.unwrap(c) for c in split]
    if not commands or not all(tool_effects.reads(c) for c in commands):
        return None
    return commands


def filters(call: ToolCall) -> bool:
    """The call's search programs only filter what a look before them printed
    (`rabbitmqctl list_queues | grep invoices`): what it found is that look's answer."""
    head, pipe, _ = (tool_effects.command_of(call) or "").partition("|")
    return bool(pipe) and not SEARCH_PROGRAMS.intersection(
        map(tool_effects.program_name, head.split())
    )


def _is_search(words: list[str]) -> bool:
    program = tool_effects.program_name(words[0])
    return program in SEARCH_PROGRAMS or (program == "git" and words[1:2] == ["grep"])


def slip(call: ToolCall) -> str | None:
    """The slip that keeps this search from matching anything, if it has one."""
    fields = call.input if isinstance(call.input, dict) else {}
    if call.name == GREP:
        pattern, glob = fields.get("pattern"), fields.get("glob")
        if isinstance(glob, str) and _quoted(glob):
            return QUOTED_GLOB
        if isinstance(pattern, str):
            if _joins(pattern, "\\|"):
                return ALTERNATION
            if pattern.count('"') % 2 and pattern.endswith('"') and _word_char(pattern[-2:-1]):
                return STRAY_QUOTE
        return None
    if call.name == GLOB:
        pattern = fields.get("pattern")
        return QUOTED_GLOB if isinstance(pattern, str) and _quoted(pattern) else None
    for words in _programs(call) or ():
        found_slip = _command_slip(words)
        if found_slip:
            return found_slip
    return None


def _quoted(glob: str) -> bool:
    return '"' in glob or "'" in glob


def _command_slip(words: list[str]) -> str | None:
    program = tool_effects.program_name(words[0])
    options = [w for w in words[1:] if w.startswith("-")]
    values = [w for w in words[1:] if not w.startswith("-")]
    grep = program == "grep" or (program == "git" and words[1:2] == ["grep"])
    if any(_flag(o, "v", "--invert-match") or _flag(o, "F", "--fixed-strings") for o in options):
        return None  # a filter, which a slip leaves loose, not empty; or no regex at all
    if program in PERL_STYLE or (grep and any(_flag(o, "P", "--perl-regexp") for o in options)):
        return ALTERNATION if any(_joins(v, "\\|") for v in values) else None
    if grep and not any(_flag(o, "E", "--extended-regexp") for o in options):
        bare = any(_joins(v, "|") and "\\|" not in v for v in values)
        return BRE_PIPE if bare else None
    return None


def _flag(option: str, short: str, long: str) -> bool:
    """`option` is `long`, or a bundle of short flags holding `short` (`-rnE`)."""
    if option.startswith("--"):
        return option == long
    return short in option[1:]


def _joins(text: str, bar: str) -> bool:
    """`bar` stands between two words (`a\\|b`, `(x)|(y)`), as alternation does; a table's
    `\\| a \\|` or a lone `|` does not."""
    at = text.find(bar)
    while at != -1:
        before, after = text[at - 1 : at], text[at + len(bar) : at + len(bar) + 1]
        if (_word_char(before) or before == ")") and (_word_char(after) or after == "("):
            return True
        at = text.find(bar, at + 1)
    return False


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def observe(st: Stuck, seq: int, call: ToolCall, found_any: bool) -> None:
    """Count one finished search (mutates `st`); `seq` is the track's call count."""
    if found_any:
        end(st)
        return
    if st.searches and seq - st.search_seq > GAP + 1:
        end(st)
    st.searches += 1
    st.search_seq = seq
    kind = slip(call)
    if kind:
        st.slips += 1
        st.slip = kind


def end(st: Stuck) -> None:
    if st.searches or st.search_nudged:  # a state that never ran one keeps none of its fields
        st.searches, st.slips, st.slip = 0, 0, ""
        st.search_nudged = False


def word_due(st: Stuck, checkin: int) -> bool:
    """The run of empty searches has earned its one request: at `checkin` of them, as a
    result seen again does, or at two when one of them cannot match."""
    if st.search_nudged:
        return False
    return st.searches >= checkin or (st.searches >= 2 and st.slips > 0)


def pause_due(st: Stuck, pause: int) -> bool:
    """Still finding nothing `pause` searches on, after the request."""
    return st.search_nudged and st.searches >= pause


def denies(st: Stuck, seq: int, call: ToolCall) -> str | None:
    """The slip to deny this search for: the run was already asked about, and it carries one."""
    if not st.search_nudged or st.searches < 2 or seq - st.search_seq > GAP + 1:
        return None
    return slip(call)
