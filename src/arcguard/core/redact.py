"""Masking obvious secrets in text taken from tool inputs, before it is stored or logged.

A call's label (`Bash: curl -H "Authorization: Bearer ..." ...`) is kept in the state, shown by
`status` and written into decision reasons; a model's command may carry a credential. What is
recognised, each value replaced by `***`:
- an `Authorization:` header's value (after its scheme: `Bearer`, `Basic`, `Token`, ...), and
  the word after `Bearer` anywhere;
- the value of an option or an assignment whose name says it is secret: `--password=X`,
  `--password X`, `token=X`, `API_KEY=X`, `?access_token=X&`, `"secret": "X"`;
- a URL's password (`https://user:X@host`);
- keys by their well-known prefixes (`sk-`, `sk-ant-`, `ghp_`, `gho_`, `github_pat_`, `xoxb-`,
  `glpat-`, `AKIA...`): the prefix is kept, the rest masked.
This is a net for the obvious cases, not a guarantee: a secret with no such mark passes.

Pure, and without `re` (the hook path does not import it: it costs more than the hook itself).
"""

from __future__ import annotations


MASK = "***"
# Words that make an option's or assignment's value a secret (matched inside the name, case
# and `-`/`_` ignored: `--api-key`, `GITHUB_TOKEN`, `client_secret`, `db_password`).
SECRET_NAMES = (
    "password",
    "passwd",
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
)
SCHEMES = frozenset({"bearer", "basic", "token", "digest", "negotiate", "apikey"})
# (prefix, fewest characters after it that make it a key). Case matters for AWS's.
PREFIXES = (
    ("sk-ant-", 8),
    ("sk-", 16),
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
    ("AKIA", 16),
    ("ASIA", 16),
)
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_QUOTES = "\"'`"
# Text with none of these (case ignored) holds nothing the rules below would mask: most labels
# are such text, and are returned at once.
_MARKS = (
    "pass",
    "secret",
    "token",
    "api",
    "access",
    "private",
    "authorization",
    "credential",
    "bearer",
    "sk-",
    "gh",
    "glpat-",
    "xox",
    "akia",
    "asia",
    "@",
)
# Where an assignment's value ends inside one word.
_VALUE_ENDS = frozenset("&;,\"'`)}]")


def mask(text: str) -> str:
    """`text` with the obvious secrets in it replaced by `***` (see the module's docstring)."""
    lowered = text.lower()
    if not any(mark in lowered for mark in _MARKS):
        return text
    words = _split(text)
    masked_next = False
    quote = ""
    for i, word in enumerate(words):
        if word.isspace():
            continue
        if quote:  # inside a quoted value being masked: up to its closing quote
            words[i] = MASK if not word.endswith(quote) else MASK + quote
            quote = "" if word.endswith(quote) else quote
            continue
        if masked_next:
            masked_next = False
            if word.lower().strip(_QUOTES) in SCHEMES:
                masked_next = True  # `Authorization: Bearer X`: the scheme stays
                continue
            words[i], quote = _masked_value(word)
            continue
        words[i], masked_next = _word(word)
    return "".join(words)


def _split(text: str) -> list[str]:
    """Words and the whitespace between them, in order (joined, they give `text` back)."""
    parts: list[str] = []
    start = 0
    for i in range(1, len(text) + 1):
        if i == len(text) or text[i].isspace() != text[start].isspace():
            parts.append(text[start:i])
            start = i
    return parts


def _masked_value(word: str) -> tuple[str, str]:
    """A word that is a secret value: masked, keeping a leading quote. Returns (the word, the
    quote still open when the value goes on past this word, else "")."""
    opening = word[0] if word[0] in _QUOTES else ""
    if opening and (len(word) == 1 or not word.endswith(opening)):
        return opening + MASK, opening
    # What closes around the value (a quote opened before it, a bracket) stays.
    body = word[len(opening) :]
    closing = body[len(body.rstrip(_QUOTES + ")}],;")) :] if body else ""
    return opening + MASK + closing, ""


def _word(word: str) -> tuple[str, bool]:
    """One word: masked where it holds a secret; True when the next word is a secret value."""
    bare = word.lstrip(_QUOTES + "-({[")
    lowered = _name(bare)
    if lowered == "bearer":
        return word, True
    header = lowered.find("authorization:")
    if header >= 0 and not lowered.endswith(":"):
        # `Authorization:Bearer X` or `Authorization:X`, glued in one word.
        cut = len(word) - len(bare) + header + len("authorization:")
        if lowered[header + len("authorization:") :].strip(_QUOTES) in SCHEMES:
            return word, True
        return word[:cut] + _masked_value(word[cut:])[0], False
    if lowered.endswith(":") and _is_secret_name(lowered[:-1]):
        return word, True  # `Authorization:`, `"password":` then the value
    if word.startswith("-") and "=" not in word and _is_secret_name(lowered):
        return word, True  # `--password X`
    return _prefixed_keys(_url_password(_assignments(word))), False


def _name(text: str) -> str:
    return text.lower().replace("-", "_")


def _is_secret_name(name: str) -> bool:
    name = name.strip(_QUOTES + "_")
    return bool(name) and any(word in name for word in SECRET_NAMES)


def _assignments(word: str) -> str:
    """`name=value` and `"name":"value"` inside a word, with a secret name: value masked."""
    for sign in ("=", '":"', '":'):
        start = 0
        while True:
            at = word.find(sign, start)
            if at <= 0:
                break
            name = _assignment_name(word, at)
            value_start = at + len(sign)
            end = value_start
            while end < len(word) and word[end] not in _VALUE_ENDS:
                end += 1
            if _is_secret_name(_name(name)) and end > value_start:
                word = word[:value_start] + MASK + word[end:]
                end = value_start + len(MASK)
            start = max(end, at + 1)
    return word


def _assignment_name(word: str, at: int) -> str:
    """The name before position `at`: back to the previous separator."""
    begin = at
    while begin > 0 and word[begin - 1] not in "?&;,{\"' (":
        begin -= 1
    return word[begin:at].lstrip("-")


def _url_password(word: str) -> str:
    """`scheme://user:password@host`: the password masked."""
    scheme = word.find("://")
    if scheme < 0:
        return word
    at = word.find("@", scheme + 3)
    colon = word.find(":", scheme + 3)
    if 0 <= colon < at and "/" not in word[scheme + 3 : at]:
        return word[: colon + 1] + MASK + word[at:]
    return word


def _prefixed_keys(word: str) -> str:
    for prefix, least in PREFIXES:
        start = 0
        while True:
            at = word.find(prefix, start)
            if at < 0:
                break
            end = at + len(prefix)
            while end < len(word) and word[end] in _KEY_CHARS:
                end += 1
            boundary = at == 0 or not word[at - 1].isalnum()
            if boundary and end - at - len(prefix) >= least:
                word = word[: at + len(prefix)] + MASK + word[end:]
                end = at + len(prefix) + len(MASK)
            start = end
    return word
