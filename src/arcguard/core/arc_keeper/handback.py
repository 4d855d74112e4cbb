"""How a final message hands the turn back: a decision request, a question, an announced step.

Deterministic word tests, no model call and no `re` (the Stop hook runs on every turn's end).
Only the message's closing counts: what the model says last is what the operator must answer.
Code blocks, inline code, quoted strings and block quotes are set aside first, because a
question shown there (a prompt under test, a log line) is not the model asking anything.
"""

from __future__ import annotations

import itertools

from arcguard.core.arc_keeper import handback_words as vocab
from arcguard.core.words import vocabulary
from arcguard.core.words.final_words import is_completion
from arcguard.core.words.final_words import is_compound_completion
from arcguard.core.words.sentences import has_words
from arcguard.core.words.sentences import is_list
from arcguard.core.words.sentences import normal
from arcguard.core.words.sentences import paragraphs
from arcguard.core.words.sentences import prose
from arcguard.core.words.sentences import split


# The closings it tells apart, under the stop classes' names.
DECISION = vocabulary.DECISION_NEEDED  # the protocol's legitimate pause
QUESTION = vocabulary.QUESTION
ANNOUNCED = vocabulary.ANNOUNCED_STEP
COURTESY = vocabulary.COURTESY  # the model thinks it is done
PAUSED = vocabulary.PAUSED  # the model stops partway and says so
OTHER = vocabulary.UNEXPLAINED

# Only the end of a long message is read: the closing is all that counts, and a final message
# can be a long report that a hook should not walk character by character.
CLOSING_CHARS = 4000
# A stop partway is said at the end ("All three parsers pass. I'll stop here for now."): only the
# last few sentences are read for it, so a paragraph of hundreds costs no more than a short one.
PAUSING_SENTENCES = 3
# After a question, so many sentences of context at most still leave it the closing.
CONTEXT_SENTENCES = 2
# A statement with one of these words says what the model did or does: not context for a
# question before it.
FIRST_PERSON = frozenset(
    {"i", "i'll", "i've", "i'm", "i'd", "me", "my", "we", "we'll", "we've", "we're", "let's"}
)
# A question that offers the operator a choice is not one a model answers itself: the
# statements after it say why it matters ("Do you want X or Y? A budget takes only one of the
# two."). Unless one answers it ("No, the lock serialises the writers.").
CHOICE = " or "
ANSWER_WORDS = frozenset(
    {"yes", "no", "not", "nope", "probably", "maybe", "perhaps", "neither", "none"}
)
ANSWER_PAIRS = frozenset({"in hindsight", "it does", "it did", "it doesn't", "it didn't"})

# A message opening like this says the work is done before saying what was done ("Done: the
# prop is renamed everywhere ..."); "done with the parser" says only a part is.
DONE_OPENINGS = ("done.", "done:", "done!", "all done.", "all done:", "all done!")
CONTRAST = frozenset({"but", "except", "however", "though", "although", "unless"})

DECISION_MARK = "decision needed:"
# Markdown a model may wrap the marker in ("**DECISION NEEDED:**", "## Decision needed:").
_MARKUP = "*_#>`~ \t\r\n"


def classify(text: str) -> str:
    """DECISION, QUESTION, ANNOUNCED, PAUSED, COURTESY or OTHER for a final message's text."""
    if starts_with_decision(text):
        return DECISION
    found = _closing(closing_sentences(text))
    if found == OTHER:
        # A question, then a word on why it matters ("Do you want X or Y? A budget takes only
        # one of the two."): the closing is still the question.
        asked = _closing(_before_context(text))
        if asked in (QUESTION, COURTESY):
            return asked
    return found


def claims_done(text: str) -> bool:
    """The final message says the work is done: a claim alone (`is_completion`), or a longer
    message that opens with "Done", or whose last sentence claims the work landed and its
    checks pass (`is_compound_completion`), when its closing neither asks, announces, pauses
    nor offers anything (`classify`: OTHER) and none of its last prose asks or says work is
    left."""
    if is_completion(text):
        return True
    if classify(text) != OTHER or _leaves_something(text):
        return False
    sentences = closing_sentences(text)
    if sentences and is_compound_completion(sentences[-1]):
        return True
    opening = [p for p in paragraphs(prose(text[:CLOSING_CHARS])) if has_words(p)][:1]
    if not opening or not normal(opening[0]).startswith(DONE_OPENINGS):
        return False
    if normal(text).rstrip(".!: ") in ("done", "all done"):
        return False  # a bare "Done." may answer one request mid-arc; "All done!" is read alone
    # "Done. But 3 tests still fail.", "Done: 14 of the 20 handlers.": the opening takes the
    # claim back.
    return not any(map(_takes_back, split(normal(opening[0]))))


def says_done(text: str) -> bool:
    """The message says the work is done and owns up to no failure: a claim `claims_done` reads,
    or a closing sentence ending on it ("Migration's done.", "All complete."), when the closing
    neither hands the turn back nor pauses (`classify`: OTHER) and no word of the message says
    something failed (`shows_failure`: "the shared lint failure is not ours" explains it)."""
    sentences = closing_sentences(text)
    words = _words(sentences[-1], keep="'") if sentences else []
    ended = bool(words) and words[-1] in vocab.DONE and not set(words[-3:-1]) & vocab.NOT_SO
    if not (ended or claims_done(text)) or classify(text) != OTHER:
        return False
    return not shows_failure(_tail(text))


def shows_failure(text: str) -> bool:
    """A word of `text` says something failed (`vocab.FAILURE_WORDS`), not denied by one of the
    two before it ("no errors", "0 failures"). Claude Code's "Exit code 1" says none: a probe
    that answered no by its exit status alone (`test -f`, `grep -q`) shows no failure."""
    words = _words(text.lower(), keep="'")
    return any(
        word in vocab.FAILURE_WORDS and not set(words[max(0, at - 2) : at]) & vocab.NO_FAILURE
        for at, word in enumerate(words)
    )


def _leaves_something(text: str) -> bool:
    """A sentence of the message's last prose says work is left ("Still to do: the importer.")
    or asks something ("Could you run the deploy from your machine?")."""
    sentences = [s for p in _prose_paragraphs(text) for s in split(normal(p)) if has_words(s)]
    return any(s.endswith("?") or is_pausing(s) for s in sentences)


def _prose_paragraphs(text: str) -> list[str]:
    """The paragraphs of the message's last `CLOSING_CHARS` that are prose, lists aside."""
    return [p for p in paragraphs(prose(_tail(text))) if has_words(p) and not is_list(p)]


def _takes_back(sentence: str) -> bool:
    """A contrast ("but", "except") or a count of parts short of the whole ("14 of the 20")."""
    words = _words(sentence, keep="'")
    counts = [_count(a) for a, b in itertools.pairwise(words) if b == "of"]
    wholes = [n for n in map(_count, words) if n != float("inf")]
    return bool(set(words) & CONTRAST) or any(c < max(wholes) for c in counts if c in wholes)


def _before_context(text: str) -> list[str]:
    """The closing sentences up to a question offering the operator a choice, when all that
    follows it is context: statements that neither answer it nor claim or do
    anything (no first person, no step, no work left), at most `CONTEXT_SENTENCES` of them,
    across the last two paragraphs of prose (a command shown between them is set aside).
    Empty otherwise."""
    sentences = [s for p in _prose_paragraphs(text)[-2:] for s in split(normal(p)) if has_words(s)]
    for n in range(1, CONTEXT_SENTENCES + 1):
        if n >= len(sentences) or not _is_context(sentences[-n]):
            return []
        asked = sentences[-n - 1]
        if asked.endswith("?"):
            offered = CHOICE in asked
            first = _words(sentences[-n], keep="'")[:2] or [""]
            answered = first[0] in ANSWER_WORDS or " ".join(first) in ANSWER_PAIRS
            return sentences[:-n] if offered and not answered else []
    return []


def _is_context(sentence: str) -> bool:
    words = set(_words(sentence, keep="'"))
    return not (
        sentence.endswith("?")
        or words & FIRST_PERSON
        or is_announcing(sentence)
        or is_pausing(sentence)
    )


def _closing(sentences: list[str]) -> str:
    """What the closing `sentences` (lower case, as `closing_sentences` gives) hand back."""
    if not sentences:
        return OTHER
    if is_courtesy(sentences[-1]) or is_handed_back_alone(sentences[-1]):
        # "Want me to push it? Let me know if you need anything else." still asks.
        asked = len(sentences) > 1 and is_asking(sentences[-2]) and not is_courtesy(sentences[-2])
        if asked:
            return QUESTION
        return PAUSED if _pauses(sentences) else COURTESY
    if is_asking(sentences[-1]) or (
        # "Which do you prefer? Or a third way?": a second question or an addendum still asks.
        len(sentences) > 1
        and is_asking(sentences[-2])
        and (_is_addendum(sentences[-1]) or sentences[-1].endswith("?"))
    ):
        return QUESTION
    if is_announcing(sentences[-1]):
        return ANNOUNCED
    if _pauses(sentences):
        return PAUSED
    return OTHER


def _pauses(sentences: list[str]) -> bool:
    return any(map(is_pausing, sentences[-PAUSING_SENTENCES:])) or is_waiting(sentences[-1])


def waits(text: str) -> bool:
    """The final message's closing says the model waits on work no person does."""
    sentences = closing_sentences(text)
    return bool(sentences) and is_waiting(sentences[-1])


def is_waiting(sentence: str) -> bool:
    """The sentence says the model waits on work no person does (`vocab.MACHINE_WORK`)."""
    body = _without_openers(sentence)
    after = body.startswith(vocab.AFTER_STARTS)
    if not (after or body.startswith(vocab.WAITING_STARTS)):
        return False
    words = set(_words(body, keep="'-"))  # "user-service" names a service, not a user
    if after and not ("i'll" in words and words & vocab.FINISHES):
        return False
    return bool(words & vocab.MACHINE_WORK) and not words & vocab.BY_SOMEONE


def _words(text: str, *, keep: str) -> list[str]:
    """The runs of letters, digits and `keep` characters in `text`."""
    return "".join(c if c.isalnum() or c in keep else " " for c in text).split()


def starts_with_decision(text: str) -> bool:
    """The first non-blank text is `DECISION NEEDED:` (any case, markdown emphasis allowed)."""
    # Markup or an emoji before it ("⚠️ DECISION NEEDED:") does not hide the marker.
    head = text.lstrip(_MARKUP)[:64].lower()
    head = head[next((i for i, c in enumerate(head) if c.isalnum()), len(head)) :]
    head = "".join(c for c in head if c not in "*_`")
    return " ".join(head.split()).startswith(DECISION_MARK)


def closing_sentences(text: str) -> list[str]:
    """The sentences of the message's last paragraph of prose, lower case, quotes removed.

    A trailing list (the options a question offers) belongs to the paragraph before it.
    """
    kept = [p for p in paragraphs(prose(_tail(text))) if has_words(p)]
    while len(kept) > 1 and is_list(kept[-1]):
        kept.pop()
    if not kept:
        return []
    last = kept[-1]
    if is_list(last):
        last = last.splitlines()[-1]
    return [s for s in split(normal(last)) if has_words(s)]


def _is_addendum(sentence: str) -> bool:
    if sentence.endswith("?"):
        return False
    # A sentence that ends in a colon introduces the list of what would be done.
    return (
        sentence.endswith(":")
        or _without_openers(sentence).startswith(vocab.ADDENDA)
        or sentence.startswith(vocab.ADDENDA)
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
    offered = body.startswith(vocab.COURTESY_STARTS) or is_asking(sentence)
    return (
        offered
        and any(p in body for p in vocab.COURTESY_PARTS)
        and not any(c in body for c in vocab.CONCRETE)
    )


def is_handed_back_alone(sentence: str) -> bool:
    """The whole sentence hands the turn back and names no step ("Over to you.")."""
    return _without_openers(sentence).rstrip(".! ") in vocab.HANDED_BACK_ALONE


def is_asking(sentence: str) -> bool:
    body = _without_openers(sentence)
    starts = (sentence, body)
    if sentence.endswith("?") and (
        any(s.startswith(vocab.ASKING_STARTS) for s in starts)
        or any(p in body for p in vocab.ASKING_PARTS)
        or any(_asks_approval(s) for s in starts)
    ):
        return True
    if any(s.startswith(vocab.ASKING_UNMARKED) for s in starts):
        return True
    return any(s.startswith(vocab.HANDBACK_STARTS) for s in starts) or any(
        p in body for p in vocab.HANDBACK_PARTS
    )


def _asks_approval(body: str) -> bool:
    """A short question asking the operator to approve what was shown ("Looks good?")."""
    return (
        len(body.split()) <= vocab.APPROVAL_MAX_WORDS
        and body.startswith(vocab.APPROVAL_STARTS)
        and any(w in body for w in vocab.APPROVAL_WORDS)
    )


def announces_continuing(sentence: str) -> bool:
    """The sentence says the model carries on, or waits and then carries on."""
    words = _words(sentence, keep="'")
    body = " ".join(words)
    for start in vocab.CONTINUING:
        if body == start or body.startswith(start + " "):
            rest = body[len(start) :].split()
            return (rest[0] if rest else "") in vocab.CONTINUING_NEXT
    return any(w.startswith("wait") for w in words) and body.endswith(vocab.AFTER_WAITING)


def is_pausing(sentence: str) -> bool:
    """The sentence says the model stops partway, or lists the work still to do."""
    body = _without_openers(sentence)
    if any(p in body for p in vocab.PAUSING_NOUNS) or any(
        _model_does(body, verb) for verb in vocab.PAUSING_VERBS
    ):
        return not any(w in body for w in vocab.NOT_PAUSING)
    if body.startswith(vocab.NO_WORK_LEFT) or any(w in body for w in vocab.NOTHING_LEFT):
        return False
    if body.startswith(vocab.LEAVES_STARTS):
        # Left to the operator ("That leaves the follow-up to you.") is a hand-back instead.
        return any(w in body for w in vocab.WORK_TO_COME) and " you" not in body
    if _counts_parts_left(body) or _says_not_done(body):
        return True
    lists_work = any(
        b.removeprefix("the ").startswith(vocab.WORK_LEFT_STARTS) for b in (sentence, body)
    ) or body.rstrip(".!").endswith(vocab.WORK_LEFT_ENDS)
    # Work said to be finished, or left to the operator, is no stop partway.
    return lists_work and not any(d in body for d in vocab.SAID_DONE) and " you" not in body


def _says_not_done(body: str) -> bool:
    """ "The handlers still need to be updated.", "I haven't run them yet.", "There are still 3
    more failing.": work not done."""
    if " you" in body or " by " in body:  # left to the operator or to someone else
        return False
    if any(p in body for p in vocab.STILL_MISSING):
        return True
    if "yet" not in body and "still" not in body:
        return False
    words = set(_words(body, keep="'"))
    if "still" in words and words & vocab.STILL_BAD:
        # "3 tests are still failing." unless asked, or said not to be the work's ("...,
        # unrelated").
        return not body.endswith("?") and not any(w in body for w in vocab.NOT_OURS)
    return "yet" in words and bool(words & vocab.NEGATIONS and words & vocab.NOT_YET_DONE)


def _counts_parts_left(body: str) -> bool:
    """ "Milestone 1 of 3 done.", "2/5 tasks complete.": fewer parts done than there are."""
    if not (" of " in body or "/" in body) or not any(d in body for d in vocab.DONE):
        return False
    words = _words(body, keep="/")
    if not (vocab.PARTS & set(words) and vocab.DONE & set(words)):
        return False
    pairs = [w.split("/") for w in words if w.count("/") == 1]
    pairs += [[a, c] for a, b, c in zip(words, words[1:], words[2:], strict=False) if b == "of"]
    return any(_count(a) < _count(b) for a, b in pairs)


def _count(word: str) -> float:
    """A count in ASCII digits, else infinity: "²" is a digit to `isdigit`, not a count."""
    return int(word) if word.isascii() and word.isdecimal() and len(word) < 10 else float("inf")


def _model_does(body: str, verb: str) -> bool:
    """`verb` is in the sentence with the model as its subject, or opening a clause."""
    at = body.find(verb)
    if at < 0:
        return False
    before = body[:at].rstrip()
    return not before or before[-1] in ",;:.—–-" or before.endswith(vocab.PAUSING_SUBJECTS)


def is_announcing(sentence: str) -> bool:
    if sentence.endswith("?"):
        return False
    if sentence.startswith(("next time", "now that", "next to", "next week", "now is")):
        return False
    if sentence.startswith(vocab.ANNOUNCING_STARTS):
        return True
    ends = (sentence.rstrip(".!"), *(sentence.partition(then)[0] for then in vocab.THENS))
    if any(e.endswith(vocab.ANNOUNCING_ENDS) for e in ends) and not any(
        word in sentence for word in vocab.NOTHING_NEXT
    ):
        return True
    body = _without_openers(sentence)
    if announces_continuing(body) or _names_doing_now(sentence, body):
        return True
    # "Now to fix ..." is read whole: "to fix" alone may open a sentence about a fix made.
    return any(_subject_does(text) for text in (body, sentence))


def _subject_does(body: str) -> bool:
    """The sentence opens with an announcing subject and a verb of doing ("Let me run ...")."""
    for subject in vocab.ANNOUNCING_SUBJECTS:
        if body.startswith(subject):
            rest = body[len(subject) :].split()
            verb = rest[0].strip(",:;.") if rest else ""
            if verb in ("also", "now", "then", "quickly", "first", "next", "go", "just"):
                verb = rest[1].strip(",:;.") if len(rest) > 1 else ""
            return verb in vocab.ACTION_VERBS
    return False


def _names_doing_now(sentence: str, body: str) -> bool:
    """ "Implementing the loader now.", "Now running the tests.": a step named, not taken."""
    if not (sentence.startswith("now ") or sentence.rstrip(".!").endswith(vocab.NOW_ENDS)):
        return False
    words = _words(body, keep="'-")
    # "Building with -O2 works now." says how things go, not what comes.
    if len(words) < 2 or set(words[1:]) & vocab.HOW_IT_GOES or not words[0].endswith("ing"):
        return False
    stem = words[0][:-3]
    doubled = stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else stem
    return bool({stem, stem + "e", doubled} & vocab.ACTION_VERBS)


def _without_openers(sentence: str) -> str:
    body = sentence
    changed = True
    while changed:
        changed = False
        for opener in vocab.OPENERS:
            if body.startswith(opener) and body[len(opener) :][:1] in (",", " ", ":", "-"):
                body = body[len(opener) :].lstrip(" ,:-—")
                changed = True
    return body
