"""Masking obvious secrets in text taken from tool inputs, before it is stored or logged.

A call's label (`Bash: curl -H "Authorization: Bearer ..." ...`) is kept in the state, shown by
`status` and written into decision reasons; a model's command or narration may carry a
credential. What is recognised, each value replaced by `***`:
- an `Authorization:` header's value (after its scheme: `Bearer`, `Basic`, `Token`, ...), the
  word after `Bearer` anywhere, and a `Cookie:` header's value (to its closing quote);
- the value of an option or an assignment whose name says it is secret, bare or quoted (to
  the closing quote, across spaces): `--password=X`, `--password 'X Y'`, `token=X`,
  `GITHUB_TOKEN="X"`, `?access_token=X&`, `"secret": "X"`, `"pass": "X"`, `auth_token: X`,
  `--passphrase X`, `--cookie X`;
- the password of a few programs' own options: `curl -u user:X` (and `--user`, `-U`),
  `mysql -pX`, `docker login -p X` (any `login`), `redis-cli -a X`;
- a URL's password (`https://user:X@host`, an `@` inside the password included) and the
  secret path of a Slack or Discord webhook URL;
- keys by their well-known prefixes (`sk-`, `sk-ant-`, `sk_live_`, `ghp_`, `github_pat_`,
  `xoxb-`, `xapp-`, `glpat-`, `AKIA...`, `AIza...`, `hf_`, `npm_`, `pypi-`): the prefix is
  kept, the rest masked.
This is a net for the obvious cases, not a guarantee: a secret with no such mark passes.

Linear in the text: one pass over its words, each word looked at in one left-to-right sweep
(no walking back, no rebuilding a word per match), so an adversarial word costs what any other
word of its length does. Pure, and without `re` (the hook path does not import it: it costs
more than the hook itself).
"""

from __future__ import annotations

from arcguard.values import value


MASK = "***"
# How much of a text is masked before it is clipped to what is kept: far wider than anything
# kept, so a clip never cuts a secret short enough to pass unmasked.
WINDOW = 4096
# Words that make an option's or assignment's value a secret (matched inside the name, case
# and `-`/`_` ignored: `--api-key`, `GITHUB_TOKEN`, `client_secret`, `db_password`).
SECRET_NAMES = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "api_key",
    "accesskey",
    "access_key",
    "privatekey",
    "private_key",
    "authorization",
    "credential",
    "cookie",
)
# Short words that are a secret's name only as a whole part of it (`DB_PASS`, `"pass"`,
# `MYSQL_PWD`), never inside another word (`bypass`, `compass`).
SECRET_PARTS = frozenset({"pass", "pwd"})
SCHEMES = frozenset({"bearer", "basic", "token", "digest", "negotiate", "apikey"})
# (prefix, fewest characters after it that make it a key). Case matters.
PREFIXES = (
    ("sk-ant-", 8),
    ("sk-", 16),
    ("sk_live_", 8),
    ("sk_test_", 8),
    ("rk_live_", 8),
    ("rk_test_", 8),
    ("github_pat_", 16),
    ("ghp_", 16),
    ("gho_", 16),
    ("ghu_", 16),
    ("ghs_", 16),
    ("ghr_", 16),
    ("glpat-", 16),
    ("xoxb-", 8),
    ("xoxp-", 8),
    ("xoxa-", 8),
    ("xoxs-", 8),
    ("xoxr-", 8),
    ("xoxe-", 8),
    ("xapp-", 8),
    ("AKIA", 16),
    ("ASIA", 16),
    ("AIza", 30),
    ("hf_", 30),
    ("npm_", 30),
    ("pypi-", 16),
)
# URL parts after which the rest of the URL is the secret.
WEBHOOKS = (
    "hooks.slack.com/services/",
    "hooks.slack.com/workflows/",
    "hooks.slack.com/triggers/",
    "discord.com/api/webhooks/",
    "discordapp.com/api/webhooks/",
)
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_QUOTES = "\"'`"
# Words with none of these need no look inside: no secret's name, header, URL or `Bearer`.
_NAME_MARKS = (
    "pass",
    "pwd",
    "secret",
    "token",
    "api",
    "access",
    "private",
    "auth",
    "credential",
    "cookie",
)
_WORD_MARKS = (*_NAME_MARKS, "bearer", "://", "hooks")
# Text with none of these (ASCII case ignored) holds nothing the rules below would mask: most
# labels are such text, and are returned at once.
_MARKS = (
    *_NAME_MARKS,
    "bearer",
    "hooks",
    "@",
    *sorted({prefix.lower()[:4] for prefix, _ in PREFIXES}),
    "mysql",
    "mariadb",
    "login",
    "redis-cli",
    "curl",
)
# ASCII-only lowering: unlike `str.lower`, it never changes a text's length, so a position
# found in the lowered text is the same position in the original.
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
# Where a name begins (the character before it), where a bare value ends and where a URL's
# host ends, inside one word: in a copy of the word translated by one of these tables each
# such character is a NUL, so one `find` reaches the next of them.
_NAME_STARTS = "?&;,{[(\"'` "
_VALUE_ENDS = "&;,\"'`)}]"
_URL_ENDS = "/?#"
_NAMES = str.maketrans(dict.fromkeys(_NAME_STARTS, "\0"))
_ENDS = str.maketrans(dict.fromkeys(_VALUE_ENDS, "\0"))
_URLS = str.maketrans(dict.fromkeys(_URL_ENDS, "\0"))
_CLOSERS = _QUOTES + ")}],;"
# Programs whose short options carry a password (see `_Scan._program_option`).
MYSQL = frozenset(
    {"mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck", "mariadb"}
)
CURL_USER = frozenset({"-u", "--user", "-U", "--proxy-user"})
# Options whose next word is a secret, by program: `curl -u user:X`, `curl -b 'sid=X'`,
# `docker login -p X` (any `... login`), `redis-cli -a X`.
VALUE_OPTIONS = {
    "curl": CURL_USER | {"-b", "--cookie"},
    "login": frozenset({"-p"}),
    "redis-cli": frozenset({"-a"}),
}
SEPARATORS = frozenset({"&&", "||", "|", ";", "&"})
# How the words that name those programs end (a path may come before them).
PROGRAMS = (*MYSQL, "curl", "redis-cli", "login")

# What the next word is, after a word that announces a secret.
VALUE = "value"  # a secret value
HEADER = "header"  # an Authorization header's value: a scheme may come first
COOKIE = "cookie"  # a Cookie header's value: `a=1; b=2` goes on while a word ends with `;`
USER_PASS = "user:pass"  # `user:password`: what follows the first colon


def mask(text: str) -> str:
    """`text` with the obvious secrets in it replaced by `***` (see the module's docstring)."""
    lowered = text.lower()  # only looked into: a length it changes does not matter
    if not any(map(lowered.__contains__, _MARKS)):
        return text
    scan = _Scan()
    out: list[str] = []
    at = 0
    for word in text.split():
        # The word is the next run of non-space characters: found where the spaces end.
        start = text.find(word, at)
        out.append(text[at:start])
        out.append(scan.word(word))
        at = start + len(word)
    out.append(text[at:])
    # A key never spans a space, and a mask holds no key character: keys are looked for once,
    # in the whole text.
    return _prefixed_keys("".join(out))


@value
class _Scan:
    """What the words read so far say about the next one."""

    pending: str = ""  # the next word is a secret of this kind (VALUE, HEADER, ...)
    quote: str = ""  # inside a quoted secret: words are masked up to this quote
    program: str = ""  # the program of the simple command being read, when it matters

    def word(self, word: str) -> str:
        if self.quote:
            return self._inside_quote(word)
        if self.pending:
            kind, self.pending = self.pending, ""
            return self._value_word(word, kind)
        lowered = _lower(word)
        if self.program or lowered.endswith(PROGRAMS):
            option = self._program_option(word, lowered)
            if option is not None:
                return option
        if not any(map(lowered.__contains__, _WORD_MARKS)):
            return word  # most words: no name, header, URL or Bearer in them
        bare = lowered.lstrip(_QUOTES + "-({[")
        if bare == "bearer":
            self.pending = VALUE
            return word
        if word.startswith("-") and "=" not in word and _is_secret_name(bare):
            self.pending = VALUE  # `--password X`
            return word
        masked, self.quote, self.pending = _assignments(word, lowered)
        if self.pending == COOKIE and word[0] in _QUOTES and word.count(word[0]) == 1:
            # `-H "Cookie: a=1; b=2"`: the header's value runs to the quote it opened in.
            self.pending, self.quote = "", word[0]
        if "://" in masked or "hooks" in lowered:
            masked = _urls(masked)
        return masked

    def _inside_quote(self, word: str) -> str:
        closing = word.find(self.quote)
        if closing < 0:
            return MASK
        rest = word[closing + 1 :]
        self.quote = ""
        return MASK + word[closing] + (self.word(rest) if rest else "")

    def _value_word(self, word: str, kind: str) -> str:
        lowered = _lower(word)
        if kind == HEADER and lowered.strip(_QUOTES) in SCHEMES:
            self.pending = VALUE  # `Authorization: Bearer X`: the scheme stays
            return word
        if kind == USER_PASS:
            colon = word.find(":")
            if colon < 0:
                return word
            if word[0] in _QUOTES and word.count(word[0]) == 1:
                self.quote = word[0]  # `'user:two words'`: masked to the closing quote
            return word[: colon + 1] + _masked_value(word[colon + 1 :])[0]
        if kind == COOKIE and word.endswith(";"):
            self.pending = COOKIE
        masked, self.quote = _masked_value(word)
        return masked

    def _program_option(self, word: str, lowered: str) -> str | None:
        """A word read by the rules of the program it belongs to; None when none applies."""
        if lowered in SEPARATORS or lowered.endswith(";"):
            self.program = ""  # the next simple command
            return None
        name = lowered.rsplit("/", 1)[-1].lstrip(_QUOTES + "$({[")
        if name in MYSQL or name == "curl" or name == "redis-cli" or name == "login":
            self.program = "mysql" if name in MYSQL else name
            return word
        program = self.program
        if word in VALUE_OPTIONS.get(program, ()):
            self.pending = USER_PASS if program == "curl" and word in CURL_USER else VALUE
        elif program == "curl" and word.startswith("-u") and ":" in word:
            return word[:2] + self._value_word(word[2:], USER_PASS)
        elif program in ("mysql", "login") and word.startswith("-p") and len(word) > 2:
            return "-p" + self._value_word(word[2:], VALUE)
        else:
            return None
        return word


def masked_start(text: str, chars: int) -> str:
    """The first `chars` characters of `text`, masked (a `WINDOW` of it masked first)."""
    return mask(text[:WINDOW])[:chars]


def _lower(text: str) -> str:
    """`text` in lower case, each character in its place (see `_LOWER`)."""
    return text.lower() if text.isascii() else text.translate(_LOWER)


def _masked_value(word: str) -> tuple[str, str]:
    """A word that is a secret value: masked, keeping its quotes and what closes around it.
    Returns (the word, the quote still open when the value goes on past this word, else "")."""
    if not word:
        return word, ""
    opening = word[0] if word[0] in _QUOTES else ""
    if opening:
        closing = word.find(opening, 1)
        if closing < 0:
            return opening + MASK, opening
        return opening + MASK + word[closing:], ""
    return MASK + word[len(word.rstrip(_CLOSERS)) :], ""


def _is_secret_name(name: str) -> bool:
    name = name.translate(_LOWER).replace("-", "_").replace(".", "_").strip(_QUOTES + "_$@")
    if not name:
        return False
    return any(word in name for word in SECRET_NAMES) or not SECRET_PARTS.isdisjoint(
        name.split("_")
    )


def _assignments(word: str, lowered: str) -> tuple[str, str, str]:
    """`name=value`, `name:value`, `"name":"value"` inside a word, with a secret name: value
    masked. One sweep: each name is looked for only back to where the previous one ended.
    Returns (the word masked, a quote a masked value left open, what the next word is
    when this one ends by naming a secret)."""
    names, ends = word.translate(_NAMES), word.translate(_ENDS)
    out: list[str] = []
    done = 0  # word[:done] is in `out`
    floor = 0  # no name reaches back before this
    equals, colon = word.find("="), word.find(":")
    while equals >= 0 or colon >= 0:
        sign = equals if colon < 0 or 0 <= equals < colon else colon
        name_end = sign - 1 if sign > floor and word[sign - 1] in _QUOTES else sign
        begin = max(floor, names.rfind("\0", floor, name_end) + 1)
        kind = _kind(lowered[begin:name_end]) if name_end > begin else ""
        floor = sign + 1
        if kind and floor == len(word):
            # `password:` or `Authorization:`: the value is the next word.
            return "".join(out) + word[done:], "", kind if word[sign] == ":" else ""
        if kind:
            value = _glued_value(word, ends, floor, kind)
            out.append(word[done:floor] + value.text)
            done = floor = value.end
            if value.quote or value.pending:
                return "".join(out) + word[done:], value.quote, value.pending
        if 0 <= equals < floor:
            equals = word.find("=", floor)
        if 0 <= colon < floor:
            colon = word.find(":", floor)
    return "".join(out) + word[done:], "", ""


def _kind(name: str) -> str:
    """What a value named `name` is: "" when the name is not a secret's."""
    if not any(map(name.__contains__, _NAME_MARKS)):
        return ""
    bare = name.lstrip("-").strip(_QUOTES).replace("-", "_")
    if bare in ("authorization", "proxy_authorization"):
        return HEADER
    if bare in ("cookie", "set_cookie"):
        return COOKIE
    return VALUE if _is_secret_name(bare) else ""


@value
class _Value:
    """A secret value glued to its name: its masked text, where it ends in the word, the
    quote it leaves open, and what the next word is (a header's value after its scheme)."""

    text: str
    end: int
    quote: str = ""
    pending: str = ""


def _glued_value(word: str, ends: str, start: int, kind: str) -> _Value:
    """The value that starts at `start` in `word` (`ends`: the word translated by `_ENDS`).
    A header's scheme (`Authorization:Bearer X`) is kept, and the value is the next word."""
    opening = word[start] if word[start] in _QUOTES else ""
    if opening:
        closing = word.find(opening, start + 1)
        inner = word[start + 1 : closing if closing >= 0 else len(word)]
        if kind == HEADER and _lower(inner) in SCHEMES and closing < 0:
            return _Value(word[start:], len(word), pending=VALUE)  # `Authorization:'Token X'`
        if closing < 0:
            return _Value(opening + MASK, len(word), quote=opening)
        return _Value(opening + MASK + opening, closing + 1)
    end = ends.find("\0", start)
    end = len(word) if end < 0 else end
    value = word[start:end]
    if kind == HEADER and _lower(value) in SCHEMES:
        return _Value(value, end, pending=VALUE if end == len(word) else "")
    return _Value(MASK if value else value, end)


def _urls(word: str) -> str:
    """`scheme://user:password@host`: the password masked (the last `@` before the path ends
    it, so a password may hold an `@`); a webhook URL's secret path masked."""
    paths = word.translate(_URLS)
    out: list[str] = []
    done = 0
    scheme = word.find("://")
    while scheme >= 0:
        host = scheme + 3
        path = paths.find("\0", host)
        path = len(word) if path < 0 else path
        at = word.rfind("@", host, path)
        colon = word.find(":", host, at) if at > 0 else -1
        if colon >= 0:
            out.append(word[done : colon + 1] + MASK)
            done = at
        # `path` may be the `/` of the next URL's `://`: look again from its colon.
        scheme = word.find("://", max(path - 1, host))
    word = "".join(out) + word[done:]
    lowered = _lower(word)
    for hook in WEBHOOKS:
        found = lowered.find(hook)
        if found >= 0:
            start = found + len(hook)
            end = len(word.rstrip(_CLOSERS))
            if end > start:
                return word[:start] + MASK + word[end:]
    return word


def _prefixed_keys(text: str) -> str:
    """Keys by their prefix: each prefix found in one sweep, the text built once."""
    spans: list[tuple[int, int, int]] = []
    for prefix, least in PREFIXES:
        at = text.find(prefix)
        while at >= 0:
            end = at + len(prefix)
            while end < len(text) and text[end] in _KEY_CHARS:
                end += 1
            boundary = at == 0 or not text[at - 1].isalnum()
            if boundary and end - at - len(prefix) >= least:
                spans.append((at, at + len(prefix), end))
            at = text.find(prefix, max(end, at + 1))
    if not spans:
        return text
    out: list[str] = []
    done = 0
    # Keys that overlap (`sk-ant-` and `sk-` at one place) run to the same end, as a key runs
    # to the first character no key holds: the longest prefix at a place is the one kept.
    for at, start, end in sorted(spans, key=lambda span: (span[0], -span[1])):
        if at >= done:
            out.append(text[done:start] + MASK)
            done = end
    return "".join(out) + text[done:]
