"""How a final message hands the turn back: a decision request, a question, an announced step.

Deterministic word tests, no model call and no `re` (the Stop hook runs on every turn's end).
Only the message's closing counts: what the model says last is what the operator must answer.
Code blocks, inline code, quoted strings and block quotes are set aside first, because a
question shown there (a prompt under test, a log line) is not the model asking anything.
"""

from __future__ import annotations


DECISION = "decision"  # starts with DECISION NEEDED: the protocol's legitimate pause
QUESTION = "question"  # asks the operator for permission or a choice
ANNOUNCED = "announced"  # says what it will do next, and stops without doing it
COURTESY = "courtesy"  # offers further help and names no step: the model thinks it is done
OTHER = "other"

# Only the end of a long message is read: the closing is all that counts, and a final message
# can be a long report that a hook should not walk character by character.
CLOSING_CHARS = 4000

DECISION_MARK = "decision needed:"
# Markdown a model may wrap the marker in ("**DECISION NEEDED:**", "## Decision needed:").
_MARKUP = "*_#>`~ \t\r\n"

# Words that open a sentence without changing what it asks ("So, shall I ...?").
_OPENERS = (
    "so",
    "ok",
    "okay",
    "alright",
    "all right",
    "now",
    "also",
    "and",
    "then",
    "or",
    "finally",
    "lastly",
    "next",
    "quick question",
    "one question",
    "question",
)

# A question (ends in "?") that starts like this asks the operator for leave or a choice.
_ASKING_STARTS = (
    "want me to",
    "do you want",
    "would you like",
    "would you prefer",
    "would you rather",
    "do you prefer",
    "shall i",
    "shall we",
    "should i",
    "should we",
    "can i",
    "could i",
    "may i",
    "is it ok",
    "is it okay",
    "is that ok",
    "is that okay",
    "is this ok",
    "is this okay",
    "ok to",
    "okay to",
    "ready to",
    "ready for",
    "good to go",
    "proceed",
    "go ahead",
    "continue",
    "sound good",
    "sounds good",
    "does that work",
    "does this work",
    "does that sound",
    "does this sound",
    "does that look",
    "does this look",
    "any preference",
    "any objection",
    "anything else",
    "which would you",
    "which do you",
    "which one",
    "which option",
    "which approach",
    "which of",
    "what would you",
    "how would you",
    "how do you want",
    "what do you want",
    "do you also want",
    "want to",
    "happy for me to",
    "are you ok",
    "are you okay",
    "are you happy",
    "mind if i",
    "would it help if",
    "what do you think",
    "thoughts",
    "any thoughts",
    "your thoughts",
    "what's your",
    "what is your",
    "agreed",
    "ok?",
    "okay?",
)
# A question that contains one of these is addressed to the operator wherever it appears.
_ASKING_PARTS = (
    "want me to",
    "would you like",
    "do you want",
    "you prefer",
    "you'd prefer",
    "you'd like",
    "you rather",
    "shall i ",
    "should i ",
    "ok with you",
    "okay with you",
    "work for you",
    "fine with you",
    "your preference",
    "your call",
    "let me know",
    "or should i",
    "or would you",
    "before i proceed",
    "before i continue",
    "before i go",
    "before i start",
    "before i move",
    "go ahead and",
    "i proceed",
    "i continue",
    "thoughts?",
    "what do you think",
    "or should ",  # "Should X, or should Y?" offers the operator a choice
)
# A statement that still hands the turn back for an answer ("Let me know if ...").
_HANDBACK_STARTS = (
    "let me know",
    "please let me know",
    "tell me",
    "please tell me",
    "please confirm",
    "confirm ",
    "just say",
    "say the word",
    "give me the go-ahead",
    "let me know whether",
    "happy to",
    "i can also",
    "i'd be happy to",
    "i'm happy to",
    "i would be happy to",
    "waiting for your",
    "awaiting your",
    "i'll wait for your",
    "i will wait for your",
    "i'll wait for you",
    "i'll hold off",
    "i will hold off",
    "holding off",
    "ready for feedback",
    "ready for your",
)
_HANDBACK_PARTS = (
    "if you'd like",
    "if you would like",
    "if you want",
    "if you prefer",
    "if you'd prefer",
    "whenever you're ready",
    "when you're ready",
    "when you want to",
    "once you confirm",
    "once you approve",
    "your go-ahead",
    "your approval",
    "your confirmation",
    "your input",
    "your decision on",
    "let me know",
)

# A final sentence that opens like this announces an action it did not take.
_ANNOUNCING_STARTS = (
    "next, i'll",
    "next i'll",
    "next, i will",
    "next i will",
    "next, let me",
    "next let me",
    "next, let's",
    "next let's",
    "next, i'm going to",
    "next i'm going to",
    "now i'll",
    "now, i'll",
    "now i will",
    "now, i will",
    "now let me",
    "now, let me",
    "now let's",
    "now, let's",
    "now i'm going to",
    "now, i'm going to",
    "i'll now",
    "i will now",
    "let me now",
    "let's now",
    "i'm now going to",
    "i am now going to",
    "then i'll",
    "after that, i'll",
    "after that i'll",
    "moving on to",
    "moving on:",
    "next step:",
    "next up:",
    "next:",
    "now:",
    "proceeding to",
    "proceeding with",
    "starting on",
    "starting with",
    "on to ",
    "i'll proceed",
    "i will proceed",
    "i'll continue",
    "i will continue",
    "i'll move on",
    "i'll go ahead",
    "i will go ahead",
    "i'll start",
    "i will start",
    "i'll begin",
)
# "Let me <verb>" / "I'll <verb>" / "Let's <verb>" with a verb of doing: the commonest
# announcement. Verbs of waiting, leaving or saying are not an action the model skipped.
_ANNOUNCING_SUBJECTS = ("let me ", "let's ", "i'll ", "i will ", "i'm going to ", "i am going to ")
_ACTION_VERBS = frozenset(
    {
        "run",
        "rerun",
        "re-run",
        "check",
        "verify",
        "fix",
        "update",
        "add",
        "implement",
        "write",
        "create",
        "build",
        "test",
        "look",
        "read",
        "open",
        "inspect",
        "examine",
        "investigate",
        "search",
        "find",
        "grep",
        "edit",
        "change",
        "modify",
        "refactor",
        "rename",
        "move",
        "remove",
        "delete",
        "clean",
        "install",
        "commit",
        "push",
        "apply",
        "try",
        "debug",
        "trace",
        "profile",
        "measure",
        "benchmark",
        "deploy",
        "migrate",
        "wire",
        "hook",
        "patch",
        "rewrite",
        "review",
        "compile",
        "lint",
        "format",
        "regenerate",
        "generate",
        "scaffold",
        "set",
        "start",
        "tackle",
        "address",
        "handle",
        "finish",
        "complete",
        "dig",
        "explore",
        "port",
        "split",
        "merge",
        "rebase",
        "bump",
        "pin",
        "draft",
        "document",
        "extract",
        "replace",
        "re-check",
        "recheck",
        "double-check",
        "confirm",
        "validate",
        "reproduce",
        "make",
        "get",
        "pull",
        "fetch",
        "query",
        "compare",
        "switch",
        "configure",
        "enable",
        "disable",
        "restore",
        "revert",
        "narrow",
        "isolate",
        "wrap",
        "kick",
        "launch",
        "spin",
        "re-enable",
        "go",
    }
)


# "Let me know if you need anything else.": an offer that names no step of its own.
_COURTESY_STARTS = ("feel free", "hope this helps", "hope that helps", "happy to help")
_COURTESY_PARTS = (
    "anything else",
    "any questions",
    "any other",
    "anything comes up",
    "further questions",
    "if you need anything",
    "if you have questions",
    "something is unclear",
    "anything is unclear",
    "hope this helps",
    "hope that helps",
)
# Words that make it a concrete offer or a choice after all.
_CONCRETE = ("want me to", "me to ", "shall ", "should ", " or ")


def classify(text: str) -> str:
    """DECISION, QUESTION, ANNOUNCED, COURTESY or OTHER for a final message's text."""
    if starts_with_decision(text):
        return DECISION
    sentences = closing_sentences(text)
    if not sentences:
        return OTHER
    if is_courtesy(sentences[-1]):
        # "Want me to push it? Let me know if you need anything else." still asks.
        asked = len(sentences) > 1 and is_asking(sentences[-2]) and not is_courtesy(sentences[-2])
        return QUESTION if asked else COURTESY
    if is_asking(sentences[-1]) or (
        len(sentences) > 1 and is_asking(sentences[-2]) and _is_addendum(sentences[-1])
    ):
        return QUESTION
    if is_announcing(sentences[-1]):
        return ANNOUNCED
    return OTHER


def starts_with_decision(text: str) -> bool:
    """The first non-blank text is `DECISION NEEDED:` (any case, markdown emphasis allowed)."""
    head = text.lstrip(_MARKUP)[:64].lower()
    head = "".join(c for c in head if c not in "*_`")
    return " ".join(head.split()).startswith(DECISION_MARK)


def closing_sentences(text: str) -> list[str]:
    """The sentences of the message's last paragraph of prose, lower case, quotes removed.

    A trailing list (the options a question offers) belongs to the paragraph before it.
    """
    paragraphs = [p for p in _paragraphs(_prose(_tail(text))) if _words(p)]
    while len(paragraphs) > 1 and _is_list(paragraphs[-1]):
        paragraphs.pop()
    if not paragraphs:
        return []
    last = paragraphs[-1]
    if _is_list(last):
        last = last.splitlines()[-1]
    return [s for s in _sentences(_normal(last)) if _words(s)]


# A last sentence that only qualifies the question before it ("Want me to run it? It takes a
# minute.", "Which do you prefer? I'd go with the first."), rather than answering it.
_ADDENDA = (
    "i can ",
    "i could ",
    "i'd ",
    "i would ",
    "i recommend",
    "my recommendation",
    "my suggestion",
    "recommendation:",
    "or ",
    "either way",
    "it's ",
    "it is ",
    "that's ",
    "that is ",
    "this is ",
    "that would",
    "it would",
    "this would",
    "it'll",
    "that'll",
    "it will",
    "that will",
    "this will",
    "otherwise",
    "alternatively",
    "if not",
    "if so",
    "if yes",
    "happy to",
    "no rush",
    "either is",
    "both are",
    "it takes",
    "that takes",
    "this takes",
    "it only takes",
    "it should take",
    # How the model would go about it if given leave: the plan, not an answer.
    "the approach",
    "the plan",
    "the fix",
    "the main",
    "the change",
    "the steps",
    "the idea",
    "you'd ",
    "you would ",
    "given ",
    "(",
)


def _is_addendum(sentence: str) -> bool:
    if sentence.endswith("?"):
        return False
    # A sentence that ends in a colon introduces the list of what would be done.
    return (
        sentence.endswith(":")
        or _without_openers(sentence).startswith(_ADDENDA)
        or sentence.startswith(_ADDENDA)
    )


def _tail(text: str) -> str:
    """The last `CLOSING_CHARS` of `text` from a line start, still inside a fence if it was."""
    if len(text) <= CLOSING_CHARS:
        return text
    cut = text.find("\n", len(text) - CLOSING_CHARS)
    if cut < 0:
        return text[-CLOSING_CHARS:]
    head, tail = text[:cut], text[cut + 1 :]
    opened = sum(1 for line in head.splitlines() if line.lstrip().startswith(("```", "~~~")))
    return ("```\n" + tail) if opened % 2 else tail


def is_courtesy(sentence: str) -> bool:
    body = _without_openers(sentence)
    offered = body.startswith(_COURTESY_STARTS) or is_asking(sentence)
    return (
        offered
        and any(p in body for p in _COURTESY_PARTS)
        and not any(c in body for c in _CONCRETE)
    )


def is_asking(sentence: str) -> bool:
    body = _without_openers(sentence)
    starts = (sentence, body)
    if sentence.endswith("?") and (
        any(s.startswith(_ASKING_STARTS) for s in starts) or any(p in body for p in _ASKING_PARTS)
    ):
        return True
    return any(s.startswith(_HANDBACK_STARTS) for s in starts) or any(
        p in body for p in _HANDBACK_PARTS
    )


# A closing that only says the model goes on ("Continuing…", "Proceeding.", "Moving on to
# the writer."), without the call that would do it.
_CONTINUING = ("continuing", "proceeding", "moving on", "carrying on", "resuming")
# What may follow those words in such a sentence: its object, or nothing.
_CONTINUING_NEXT = ("", "with", "to", "on", "onto", "now", "from", "there", "then")
# The end of a sentence that says the model waits, then goes on ("..., so I am waiting for it
# before moving on."): nothing waits once the turn ends.
_AFTER_WAITING = (
    "moving on",
    "continuing",
    "proceeding",
    "carrying on",
    "continue",
    "proceed",
    "move on",
    "carry on",
)


def announces_continuing(sentence: str) -> bool:
    """The sentence says the model carries on, or waits and then carries on."""
    words = "".join(c if c.isalnum() or c in "' " else " " for c in sentence).split()
    body = " ".join(words)
    for start in _CONTINUING:
        if body == start or body.startswith(start + " "):
            rest = body[len(start) :].split()
            return (rest[0] if rest else "") in _CONTINUING_NEXT
    return any(w.startswith("wait") for w in words) and body.endswith(_AFTER_WAITING)


def is_announcing(sentence: str) -> bool:
    if sentence.endswith("?"):
        return False
    if sentence.startswith(("next time", "now that", "next to", "next week", "now is")):
        return False
    if sentence.startswith(_ANNOUNCING_STARTS):
        return True
    if announces_continuing(_without_openers(sentence)):
        return True
    body = _without_openers(sentence)
    for subject in _ANNOUNCING_SUBJECTS:
        if body.startswith(subject):
            rest = body[len(subject) :].split()
            verb = rest[0].strip(",:;.") if rest else ""
            if verb in ("also", "now", "then", "quickly", "first", "next", "go", "just"):
                verb = rest[1].strip(",:;.") if len(rest) > 1 else ""
            return verb in _ACTION_VERBS
    return False


def _without_openers(sentence: str) -> str:
    body = sentence
    changed = True
    while changed:
        changed = False
        for opener in _OPENERS:
            if body.startswith(opener) and body[len(opener) :][:1] in (",", " ", ":", "-"):
                body = body[len(opener) :].lstrip(" ,:-—")
                changed = True
    return body


def _prose(text: str) -> str:
    """The text without fenced code, block-quote lines, inline code and quoted strings."""
    kept: list[str] = []
    fenced = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            kept.append("")
        elif fenced or stripped.startswith(">"):
            kept.append("")
        else:
            kept.append(_unquoted(line))
    return "\n".join(kept)


def _unquoted(line: str) -> str:
    """Drop `code`, "quoted" and 'quoted' spans (a quoted question is shown, not asked).

    A single quote opens a span only at the start of a word and closes it only at the end of
    one, so the apostrophe in "don't" or "I'll" is left alone.
    """
    out: list[str] = []
    closer = ""
    for i, c in enumerate(line):
        before = out[-1] if out else " "
        after = line[i + 1] if i + 1 < len(line) else " "
        if closer:
            if c == closer and (c != "'" or not after.isalnum()):
                closer = ""
            continue
        if c in '`"“' or (c == "'" and not before.isalnum() and after.isalnum()):
            closer = "”" if c == "“" else c
            out.append("Q")  # a word in its place, so "`x`'s" keeps its apostrophe
            continue
        out.append(c)
    return "".join(out)


def _paragraphs(text: str) -> list[str]:
    blocks: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip():
            blocks[-1].append(line.strip())
        elif blocks[-1]:
            blocks.append([])
    return ["\n".join(b) for b in blocks if b]


def _is_list(paragraph: str) -> bool:
    lines = paragraph.splitlines()
    return all(_is_item(line) for line in lines)


def _is_item(line: str) -> bool:
    if line[:2] in ("- ", "* ", "+ ", "• "):
        return True
    head = line.split(" ", 1)[0]
    return len(head) >= 2 and head[:-1].isdigit() and head[-1] in ".)"


def _normal(text: str) -> str:
    text = text.replace("’", "'").replace("‘", "'").replace("…", "...")
    text = "".join(c for c in text if c not in "*_#")
    return " ".join(text.lower().split())


def _sentences(text: str) -> list[str]:
    """Split after `.`, `!`, `?` or `:` followed by a space (dots inside words stay)."""
    out: list[str] = []
    start = 0
    for i, c in enumerate(text):
        if c in ".!?" and (i + 1 == len(text) or text[i + 1] == " "):
            if c == "." and _is_abbreviation(text[start : i + 1]):
                continue
            out.append(text[start : i + 1].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def _is_abbreviation(sentence: str) -> bool:
    last = sentence.rsplit(" ", 1)[-1].lstrip("([{")  # "(e.g." is still "e.g."
    return last in ("e.g.", "i.e.", "etc.", "vs.", "approx.", "cf.") or (
        len(last) == 2 and last[0].isdigit()
    )


def _words(text: str) -> bool:
    return any(c.isalnum() for c in text)
