"""Which programs, and which of their subcommands, only read.

`tool_effects` reads a command against these lists. A command left out counts as a change,
which is the safe side: the look after a change may run again and is news again. A read is
judged by what it answers, so a status asked again in a tool's other words (`npm view`, `npm
show`, `pnpm info`, `yarn info`) is seen to answer as before; a write taken for a read would
get the look that checks it denied. So only subcommands that do not write are listed, and the
options that make them write are listed too: `kubectl rollout restart` restarts, `helm template
--output-dir` writes files, `journalctl --vacuum-size` deletes, `ss -K` kills sockets. An HTTP
fetch (`curl`, `wget`) reads unless it sends data, picks a method that writes or saves a file
(`fetch_reads`).
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


READ_ONLY_PROGRAMS = _words(
    "cat head tail less more grep egrep fgrep rg ag ls tree wc echo printf pwd which type file "
    "stat du df diff cmp uniq cut tr jq yq nl od xxd hexdump md5sum sha1sum sha256sum shasum "
    "column tac rev seq true false : date env printenv uname whoami id hostname ps realpath "
    "readlink dirname basename test [ cd pushd popd sleep wait watch lsof pgrep uptime free fd "
    "bat exa eza strings sort sed find for done fi journalctl dig nslookup getent ss "
    "netstat nproc lscpu lsblk findmnt apt-cache dpkg-query groups host kdig drill delv whois "
    "pg_isready base64 nvidia-smi set export unset shopt"
)
# Options that make an otherwise read-only program, or reporting subcommand, write.
WRITING_OPTIONS = {
    "sed": ("-i", "--in-place"),
    "sort": ("-o", "--output"),
    "find": ("-delete", "-exec", "-execdir", "-ok", "-fprint", "-fprintf"),
    "journalctl": (
        *("--vacuum", "--rotate", "--flush", "--sync", "--setup-keys", "--relinquish"),
        *("--smart-relinquish", "--update-catalog"),
    ),
    "ss": ("-K", "--kill"),
    "helm": ("--output-dir", "--dependency-update"),
    "kubectl": ("--output-directory",),
    "base64": ("-o", "--output"),
    # Its reports (`--query-gpu=...`, `-q`, `-L`, `topo`, `dmon`) read; these set a card's
    # modes, clocks or limits, reset it, write a log file or manage its partitions.
    "nvidia-smi": (
        *("-r", "--gpu-reset", "-p", "--persistence-mode", "--power-limit", "-e", "--ecc-config"),
        *("-c", "--compute-mode", "--cuda-clocks", "--clear", "-dm", "--driver-model", "-am"),
        *("--accounting-mode", "--auto-boost", "-ac", "--applications-clocks", "-lgc", "-lmc"),
        *("--lock", "-mig", "--multi-instance-gpu", "-gtt", "--gpu-target-temp", "-f"),
        *("--filename", "--reset", "mig", "drain", "vgpu", "conf-compute", "-gom", "--gom"),
        "--force-driver-model",
    ),
    "openssl": ("-out", "-sess_out", "-keylogfile", "-msgfile"),
}
GIT_READ_ONLY = _words(
    "status log diff show blame rev-parse ls-files ls-tree grep describe shortlog cat-file "
    "merge-base rev-list name-rev check-ignore for-each-ref count-objects help version "
    "whatchanged"
)
# `git SUB` read-only only when followed by one of these (or nothing).
GIT_LISTING = {
    "branch": ("", "-a", "-r", "-v", "-vv", "--list", "--show-current", "-l"),
    "remote": ("", "-v", "show", "get-url"),
    "tag": ("", "-l", "--list"),
    "stash": ("list", "show"),
    "bisect": ("log",),
    "worktree": ("list",),
    "config": ("--get", "--list", "-l", "--get-all"),
}
# Toolchains that build, install or deploy, and whose subcommands here only report.
READ_ONLY_SUBCOMMANDS = {
    "go": _words("env version list doc vet"),
    "npm": _words(
        "ls list view show info v outdated why explain search whoami ping prefix root help query"
    ),
    "pnpm": _words("ls list view info show why outdated root licenses"),
    "yarn": _words("info why list outdated licenses"),
    "pip": _words("list show freeze check"),
    "pip3": _words("list show freeze check"),
    "cargo": _words("tree metadata version search locate-project verify-project"),
    "kubectl": _words(
        "get describe logs top version explain cluster-info api-resources api-versions events wait"
    ),
    "helm": _words("status list ls get history show inspect template lint search env version"),
    "docker": _words("ps images logs inspect version info stats top port history search"),
    "docker-compose": _words("ps logs config images ls top version port"),
    "systemctl": _words(
        "status is-active is-enabled is-failed show list-units list-unit-files list-timers cat"
    ),
    "terraform": _words("show output validate version"),
    "brew": _words("list info search outdated deps config doctor"),
    "apt": _words("list show search policy"),
    "composer": _words(
        "show info diagnose outdated validate licenses depends why why-not prohibits search "
        "suggests fund audit check-platform-reqs"
    ),
    "bundle": _words("list show info outdated check platform"),
    "gem": _words("list search info query contents environment which specification"),
    "openssl": _words("x509 s_client verify version crl ciphers asn1parse"),
    "resolvectl": _words("query status statistics"),
    "rabbitmqctl": _words(
        "list_queues list_exchanges list_bindings list_connections list_channels list_consumers "
        "list_users list_vhosts list_policies status cluster_status environment"
    ),
    "rabbitmqadmin": _words("list show"),
    "patronictl": _words("list topology history show-config version"),
    "cmctl": _words("status inspect version"),
    "step": _words("version"),
    "celery": _words("inspect status report"),
}
# `PROGRAM SUB` read-only only when followed by one of these.
LISTING: dict[str, dict[str, tuple[str, ...]]] = {
    "kubectl": {"rollout": ("status", "history"), "auth": ("can-i", "whoami")},
    "npm": {"dist-tag": ("ls",), "config": ("get", "list", "ls")},
    "pnpm": {"config": ("get", "list")},
    "yarn": {"config": ("get", "list")},
    "docker": {
        "image": ("ls", "list", "inspect", "history"),
        "container": ("ls", "list", "inspect", "logs", "top", "port"),
        "network": ("ls", "inspect"),
        "volume": ("ls", "inspect"),
        "context": ("ls", "show", "inspect"),
    },
    "terraform": {"state": ("list", "show")},
    "step": {"certificate": ("inspect", "fingerprint", "verify", "lint")},
}
# Any program asked only for its version or help reports and changes nothing.
ONLY_ASKS = _words("--version -V --help -h version")
# Programs for which a lone `-v` is the version too (elsewhere it is a verbose run:
# `./deploy.sh -v`, `pytest -v`).
VERSION_V = _words(
    "node npm npx yarn pnpm bun deno terraform docker ruby gem bundle make gcc g++ clang "
    "vagrant packer consul nomad vault"
)
GH_READ_ONLY = _words("view list diff checks status watch")


# An HTTP fetch reads unless it sends data, picks a method or writes a file.
CURL_WRITES = frozenset("dXFTOo")
CURL_FLAGS = frozenset("sSfLkvGiIN")  # short options taking no value, as in `-sG`
CURL_LONG_WRITES = ("--data", "--request", "--form", "--upload-file", "--output", "--remote")


def fetch_reads(program: str, args: list[str]) -> bool:
    """`curl URL` and `wget -qO- URL` print what they fetch; sending data or saving a file
    is a change (wget saves unless told to print). Output thrown away or printed (`-o
    /dev/null -w '%{http_code}'`), a method that only asks (`-X GET`) and data sent in the
    address (`-G --data-urlencode query=...`) write nothing."""
    if program == "wget":
        return any(a.endswith("O-") or a in ("--spider", "--output-document=-") for a in args)
    gets = any(
        a == "--get" or (a[:1] == "-" and "G" in a and set(a[1:]) <= CURL_FLAGS) for a in args
    )
    for at, arg in enumerate(args):
        value = args[at + 1] if at + 1 < len(args) else ""
        if arg.startswith("--"):
            option, _, given = arg.partition("=")
            asks = asks_only(option, given or value) or (gets and option.startswith("--data"))
            if arg.startswith(CURL_LONG_WRITES) and not asks:
                return False
        elif arg.startswith("-"):
            letters = CURL_WRITES & set(arg[1:]) - set("d" * gets)
            if letters and (letters != {arg[-1]} or not asks_only(arg[-1], value)):
                return False
    return True


def date_reads(args: list[str]) -> bool:
    """`date` prints the time; `-s` (alone or among other letters: `-us`), `--set` or a bare
    operand of digits (`010100002026`) sets the clock. `-I` takes its value attached."""
    for arg in args:
        short = arg[:1] == "-" and arg[1:2] != "-" and not arg.startswith("-I")
        if arg.startswith("--set") or (short and "s" in arg) or arg.isdigit():
            return False
    return True


# `gh api` sends a GET unless told another method, or fields or a body, which make it a POST.
GH_API_SENDS = ("-f", "-F", "--field", "--raw-field", "--input")
GH_API_METHOD = ("-X", "--method")


def gh_api_reads(args: list[str]) -> bool:
    """`gh api ENDPOINT` (`args`: what follows `api`) asks with a GET: no other method, and no
    fields or body (a GraphQL query too), unless `-X GET` makes the fields its query."""
    method = ""
    for at, arg in enumerate(args):
        option, _, given = arg.partition("=")
        if option in GH_API_METHOD:
            method = (given or (args[at + 1] if at + 1 < len(args) else "")).upper()
        elif arg.startswith("-X") and len(arg) > 2:
            method = arg[2:].upper()
    if method:
        return method == "GET"
    return not any(arg.partition("=")[0] in GH_API_SENDS for arg in args)


def asks_only(option: str, value: str) -> bool:
    """`option` (`o`, `X`, `--output`, `--request`) given `value` writes nothing."""
    if option in ("o", "--output"):
        return value in ("/dev/null", "-")
    return option in ("X", "--request") and value.upper() in ("GET", "HEAD")
