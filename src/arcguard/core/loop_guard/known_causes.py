"""Causes of failure that lie outside the code, which every tool words its own way.

A full disk fails a compiler, a linker, `sort`, `git worktree add` and Python's `tempfile`, each
in its own words; a server out of reach fails `kubectl` (`i/o timeout`), `helm` (`cluster
unreachable ... i/o timeout`), `curl` (`Connection timed out`) and `nc` (`timed out: Operation now
in progress`). No phrase is shared by all of them, but each names a cause no change to the code
under work moves: the disk, the network, a certificate, a read-only mount. Two calls failing on
the same one of these, with no file written between, met one cause, whichever tools they ran.

A platform's refusal of what the account may do (`REFUSALS`: AWS's `AccessDenied`, Kubernetes'
`is forbidden: User "x" cannot`, Google Cloud's `PERMISSION_DENIED`, a protected branch or a
repository's rules, a version the registry already holds) is such a cause too, where a
platform's client acted (`kubectl patch`, `aws s3 cp`, `git push`, `npm publish`): no flag,
tool or retry moves it, and a filter after the act (`| tail -3`) hides its status, not the
refusal it printed. A look refused is a finding, and a test prints the code under work's own
refusals. Left out are causes the code under work produces as often as the machine does, and
that tests assert on: a refused connection (a dev server not started), a bare 401 or 403, a
file's permission denied, an exhausted memory, an address in use, a rate limit or a spent
quota, and any trouble reaching this machine itself (`127.0.0.1`, `localhost`). Only the last
lines of a failure are read, where a program says why it stopped (a stack trace's frames aside:
the cause is named above them; further up, a test's own expectations quote such phrases), and a
phrase counts only as whole words: `EMFILE` is not in `Gemfile`.
"""

from __future__ import annotations

from arcguard.core.loop_guard import tool_effects


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.tool_call import ToolCall


MARK = "~"  # before a cause's name among a failure's cause pieces (those are hex digests)
LAST_LINES = 6  # the lines at a failure's end that may name its cause
TAIL_CHARS = 4096  # where those lines are looked for: a hook reads no more of a long output
# Phrases as the tools print them, lower case, by the cause they name.
PHRASES = {
    "disk full": ("no space left on device", "enospc", "disk quota exceeded"),
    "timed out connecting": (
        "i/o timeout",
        "connection timed out",
        "connect timed out",
        "(tcp) timed out",
        "etimedout",
        "client.timeout exceeded",
    ),
    "host unreachable": (
        "no route to host",
        "network is unreachable",
        "host is unreachable",
        "ehostunreach",
        "enetunreach",
        "cluster unreachable",
    ),
    "name not resolved": (
        "could not resolve host",
        "no such host",
        "name or service not known",
        "temporary failure in name resolution",
        "nodename nor servname provided",
        "getaddrinfo enotfound",
    ),
    "certificate": (
        "certificate verify failed",
        "self-signed certificate",
        "self signed certificate",
        "unable to get local issuer certificate",
        "certificate has expired",
        "certificate signed by unknown authority",
    ),
    "read-only file system": ("read-only file system", "erofs"),
}
# A platform's refusal of what an account may do, named only where a platform's client acted
# (`acts_on_platform`): a test of the code under work prints its own `AccessDenied`.
REFUSALS = {
    "access refused": (
        "accessdenied",
        "is not authorized to perform",
        "unauthorizedoperation",
        "permission_denied: permission",
        "the caller does not have permission",
        "authorizationfailed",
        "does not have authorization to perform",
        "is forbidden: user",
        "requested access to the resource is denied",
        "you do not have permission to publish",
        "remote: permission to",
        "protected branch update failed",
        "push declined due to repository rule violations",
        "repository rule violations found",
        "you are not allowed to push code to protected branches",
    ),
    "version taken": (
        "cannot publish over the previously published",
        "epublishconflict",
        "#file-name-reuse",
        "is already uploaded",
        "already exists on crates.io index",
    ),
}
# Clients through which any act reaches a platform, and the subcommands through which a
# package manager or git reaches its registry or remote.
PLATFORM_CLIENTS = frozenset(
    "aws gcloud gsutil az kubectl helm oc terraform tofu pulumi gh".split()  # noqa: SIM905
)
REGISTRY_SUBCOMMANDS = {
    "npm": frozenset({"publish", "unpublish", "dist-tag", "access", "deprecate", "owner"}),
    "pnpm": frozenset({"publish"}),
    "yarn": frozenset({"publish", "npm"}),
    "twine": frozenset({"upload"}),
    "cargo": frozenset({"publish", "yank", "owner"}),
    "gem": frozenset({"push", "yank"}),
    "docker": frozenset({"push"}),
    "podman": frozenset({"push"}),
    "git": frozenset({"push"}),
}
REGISTRY_WORDS = 3  # the words after the program among which its subcommand is looked for
# Causes that are the machine's or the account's whatever a call aims at: one failure however
# the calls' numbers differ (a date in a path, a key's account). A host out of reach, or its
# certificate, is one host's: another may answer.
ANYWHERE = frozenset({"disk full", "read-only file system", *REFUSALS})
# A server on this machine is the code under work (a test's own server not started), not the
# network.
NETWORK = frozenset(("timed out connecting", "host unreachable", "name not resolved"))
LOOPBACK = ("127.0.0.1", "localhost", "::1", "0.0.0.0")


def named(text: str, *, refused: bool = False) -> list[str]:
    """The causes the last `LAST_LINES` lines of `text` name, each as `MARK` and its name, the
    `REFUSALS` among them when `refused` (`acts_on_platform`); the frames of a stack trace (`at
    Foo.run(Foo.java:12)`) are no lines of it: the cause is named above them."""
    lines = [line for line in text[-TAIL_CHARS:].lower().splitlines() if _says(line)]
    end = "\n".join(lines[-LAST_LINES:])
    local = any(_has(end, host) for host in LOOPBACK)
    causes = {**PHRASES, **REFUSALS} if refused else PHRASES
    return [
        MARK + cause
        for cause, found in causes.items()
        if not (local and cause in NETWORK) and any(_has(end, p) for p in found)
    ]


def acts_on_platform(call: ToolCall) -> bool:
    """The command may change the world, and one of its simple commands is a platform's client
    (`PLATFORM_CLIENTS`) or a package manager or git reaching its registry or remote: a refusal
    there is the platform's. A look refused is a finding (a sweep of namespaces), not this."""
    if not tool_effects.may_change_world(call):
        return False
    for words in tool_effects.segments(tool_effects.command_of(call) or "") or []:
        words = tool_effects.unwrap(words)
        program = tool_effects.program_name(words[0]) if words else ""
        subcommands = REGISTRY_SUBCOMMANDS.get(program, frozenset())
        if program in PLATFORM_CLIENTS or subcommands.intersection(words[1 : 1 + REGISTRY_WORDS]):
            return True
    return False


def _says(line: str) -> bool:
    """A line that may say why a program stopped: not empty, nor a Java or JavaScript stack
    frame."""
    first, _, rest = line.strip().partition(" ")
    if first == "at":
        return "(" not in rest and ":" not in rest  # `at Foo.run(Foo.java:12)`, `at /x.js:3:9`
    return bool(first)


def is_known(piece: str) -> bool:
    """The piece is a cause outside the code (`named`), not a digest of a line's piece."""
    return piece.startswith(MARK)


def refused(piece: str) -> bool:
    """The piece is a platform's refusal (`REFUSALS`)."""
    return is_known(piece) and piece[len(MARK) :] in REFUSALS


def any_target(piece: str) -> bool:
    """The piece is a cause outside the code met whatever a call aims at (`ANYWHERE`)."""
    return is_known(piece) and piece[len(MARK) :] in ANYWHERE


def _has(text: str, phrase: str) -> bool:
    """`phrase` is in `text` as whole words: no letter, digit or `_` on either side."""
    at = text.find(phrase)
    while at >= 0:
        end = at + len(phrase)
        before = text[at - 1] if at else " "
        after = text[end] if end < len(text) else " "
        if not _word_char(before) and not _word_char(after):
            return True
        at = text.find(phrase, at + 1)
    return False


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"
