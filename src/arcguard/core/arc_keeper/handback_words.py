"""The words that tell how a final message hands the turn back (`handback` reads them).

They are matched against a sentence of the message's closing in `sentences.normal` form
(lower case, plain quotes, no markdown): a `*_STARTS` list against its opening, with or
without the `OPENERS` before it, a `*_PARTS` list anywhere in it, and `ACTION_VERBS` against
the word after an announcing subject ("let me", "I'll"). Plain tuples and sets, no `re`: the
Stop hook runs at every turn's end.
"""

from __future__ import annotations

from arcguard.core.words.sentences import QUOTED


# Words that open a sentence without changing what it asks ("So, shall I ...?").
OPENERS = (
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
ASKING_STARTS = tuple(
    (  # noqa: SIM905
        "want me to,do you want,would you like,would you prefer,would you rather,do you prefer,"
        "shall i,shall we,should i,should we,can i,could i,may i,is it ok,is it okay,"
        "is that ok,is that okay,is this ok,is this okay,ok to,okay to,ack to,ready to,"
        "ready for,good to go,proceed,go ahead,continue,sound good,sounds good,does that work,"
        "does this work,does that sound,does this sound,does that look,does this look,"
        "any preference,any objection,anything else,which would you,which do you,which one,"
        "which option,which approach,which of,what would you,how would you,how do you want,"
        "what do you want,do you also want,want to,happy for me to,are you ok,are you okay,"
        "are you happy,mind if i,would it help if,what do you think,thoughts,any thoughts,"
        "your thoughts,what's your,what is your,agreed,ok?,okay?"
    ).split(",")
)
# A short question that opens like this and holds one of `APPROVAL_WORDS` asks the operator
# to approve what was shown ("Does this look right?", "Looks good?", "OK so far?").
APPROVAL_STARTS = tuple(
    (  # noqa: SIM905
        "does this,does that,does it,do these,do those,does the,is this,is that,is it,are ,"
        "look,looks,sound,sounds,seem,seems,make sense,makes sense,good,all good,ok,"
        "okay,correct,right,ack,agree,worth,fine,happy with,anything you'd,anything to,"
        "any changes,any feedback,any concerns,anything missing,did i miss,am i missing"
    ).split(",")
)
APPROVAL_WORDS = tuple(
    (  # noqa: SIM905
        "right,good,ok,okay,fine,correct,sense,sound,look,seem,work,agree,match,what you,"
        "in mind,picturing,expected,worth,add,change,cut,tweak,feedback,concern,miss"
    ).split(",")
)
APPROVAL_MAX_WORDS = 12
# A question that contains one of these is addressed to the operator wherever it appears.
ASKING_PARTS = (
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
    "you had in mind",
    "you were picturing",
    "you were thinking",
    "you expected",
)
# A statement that still hands the turn back for an answer ("Let me know if ...").
HANDBACK_STARTS = (
    *(  # noqa: SIM905
        "let me know,please let me know,tell me,please tell me,please confirm,confirm ,"
        "just say,say the word,give me the go-ahead,let me know whether,happy to,i can also,"
        "i'd be happy to,i'm happy to,i would be happy to,waiting for your,awaiting your,"
        "over to you ,i'll wait for your,i will wait for your,i'll wait for you,"
        "i'll hold off,i will hold off,holding off,ready for feedback,ready for your,"
        "if yes i'll,if yes i will,if both yes,if you agree,give it a try,give it a spin,"
        "give it a go,give it a look,give it a test,give it a playtest,flag anything,"
        "flag any "
    ).split(","),
    "if yes,",
    "if so, i'll",
)
# A whole closing sentence like these hands the turn back without naming a step: after finished
# work it is a courtesy, with milestones left a stall (as "Let me know if you need anything").
HANDED_BACK_ALONE = frozenset(
    {
        "ready when you are",
        "over to you",
        "back to you",
        "your turn",
        "your call",
        "standing by",
        "i'll stand by",
        "i will stand by",
        "awaiting instructions",
        "awaiting further instructions",
        "i'll wait here",
        "i will wait here",
        "ready for the next step",
        "ready to continue",
        "ready to proceed",
    }
)
HANDBACK_PARTS = (
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
    "if that works for you",
    "just say so",
    "if you're ok with",
    "if you are ok with",
    f"say {QUOTED.lower()} to continue",  # "Say 'go' to continue."
    f"say {QUOTED.lower()} to proceed",
    "whenever you are",
    "it's your call",  # "it's your call which way to take this."
    "it is your call",
    "that's your call",
)
# A sentence that opens like this asks the operator even when the question mark is missing.
ASKING_UNMARKED = ("do you want me to", "would you like me to", "want me to", "shall i ")

# A final sentence that opens like this announces an action it did not take.
_SUBJECTS = ("i'll", "i will", "let me", "let's")  # they take a bare verb: "let me resume"
_ANNOUNCERS = (*_SUBJECTS, "i'm going to")
ANNOUNCING_STARTS = (
    *(
        f"{lead}{comma} {who}"
        for lead in ("next", "now")
        for comma in (",", "")
        for who in _ANNOUNCERS
    ),
    *(f"{who} now" for who in _SUBJECTS),
    *(f"{who} {verb}" for who in _SUBJECTS for verb in ("proceed", "continue", "resume")),
    *(f"{who} {verb}" for who in _SUBJECTS for verb in ("keep going", "go ahead", "move on")),
    *(  # noqa: SIM905
        "i'm now going to,i am now going to,then i'll,after that i'll,moving on to,moving on:,"
        "next step:,next up:,next:,now:,up next:,up next is,proceeding to,proceeding with,"
        "starting on,starting with,on to ,onto ,i'll start,i will start,i'll begin,"
        "the next thing to do,next thing to do,the next step is,next step is"
    ).split(","),
    "after that, i'll",
)
# A final sentence (or its part before ", then ...") that ends like this names the step to come
# ("The loader is next.", "Tests come after this, then the README."), unless it says there is
# none ("Nothing is next.").
ANNOUNCING_ENDS = (
    *(" is next", " are next", " come after this", " comes after this", " is up next"),
    *(" are up next", " is the next step", " are the next steps"),
)
THENS = (", then ", ", followed by ")
# "Implementing the loader now.", "Now running the tests.": a step named with its verb's -ing
# form, not taken. Not when the word after it says how things go ("Looking good now.").
NOW_ENDS = (" now", " next")
HOW_IT_GOES = frozenset(
    "good well fine great better ok okay smoothly correctly green clean close closer progress "  # noqa: SIM905
    "there is are was pass passes work works run runs succeeds fails".split()
)
NOTHING_NEXT = ("nothing", "no ")
# "Let me <verb>" / "I'll <verb>" / "Let's <verb>" with a verb of doing: the commonest
# announcement. Verbs of waiting, leaving or saying are not an action the model skipped.
ANNOUNCING_SUBJECTS = (
    *("let me ", "let's ", "i'll ", "i will ", "i'm going to ", "i am going to "),
    *("i need to ", "i still need to ", "we still need to "),
    *("now to ", "going to "),  # "Now to fix the types.", "Going to rewrite the loop next."
)
ACTION_VERBS = frozenset(
    (  # noqa: SIM905 (a hundred verbs read better as one text)
        "run rerun re-run check verify fix update add implement write create build test look "
        "read open inspect examine investigate search find grep edit change modify refactor "
        "rename move remove delete clean install commit push apply try debug trace profile "
        "measure benchmark deploy migrate wire hook patch rewrite review compile lint format "
        "regenerate generate scaffold set start tackle address handle finish complete dig "
        "explore port split merge rebase bump pin draft document extract replace re-check "
        "recheck double-check confirm validate reproduce make get pull fetch query compare "
        "switch configure enable disable restore revert narrow isolate wrap kick launch spin "
        "re-enable go take tidy polish fill organise organize do"
    ).split()
)


# "Let me know if you need anything else.": an offer that names no step of its own.
COURTESY_STARTS = ("feel free", "hope this helps", "hope that helps", "happy to help")
COURTESY_PARTS = (
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
CONCRETE = ("want me to", "me to ", "shall ", "should ", " or ")

# A last sentence that only qualifies the question before it ("Want me to run it? It takes a
# minute.", "Which do you prefer? I'd go with the first."), rather than answering it.
ADDENDA = (
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

# A closing that only says the model goes on ("Continuing…", "Proceeding.", "Moving on to
# the writer."), without the call that would do it.
CONTINUING = ("continuing", "proceeding", "moving on", "carrying on", "resuming")
# What may follow those words in such a sentence: its object, or nothing.
CONTINUING_NEXT = ("", "with", "to", "on", "onto", "now", "from", "there", "then")
# The end of a sentence that says the model waits, then goes on ("..., so I am waiting for it
# before moving on."): nothing waits once the turn ends.
AFTER_WAITING = (
    "moving on",
    "continuing",
    "proceeding",
    "carrying on",
    "continue",
    "proceed",
    "move on",
    "carry on",
)

# A closing that says the model stops partway ("I'll stop here for now.", "Stopping here.",
# "This is a good place to pause.", "The rest can wait for the next session."): mid-arc, only
# a decision stops. The verbs count only with the model as their subject, or opening a clause
# ("The loop used to stop here" is about the code).
PAUSING_VERBS = tuple(
    (  # noqa: SIM905 (phrases read better as one text)
        "stop here,stopping here,pause here,pausing here,stop for now,stopping for now,"
        "pause for now,pausing for now,stop at this point,pause at this point,leave it here,"
        "leave it there,leave the rest,leave the remaining,wrap up here,wrap up for now,"
        "call it a day,pick this up,pick back up,pick up where,continue later,resume later,"
        "finish later,continue tomorrow,resume tomorrow,finish tomorrow"
    ).split(",")
)
PAUSING_SUBJECTS = (
    "i'll",
    "i will",
    "i'm going to",
    "i am going to",
    "i'm",
    "i am",
    "i'd",
    "i should",
    "i can",
    "let me",
    "let's",
    "we'll",
    "we will",
    "we can",
)
PAUSING_NOUNS = (
    *(  # noqa: SIM905
        "stopping point,pausing point,place to stop,place to pause,point to stop,"
        "point to pause,spot to stop,spot to pause,to be continued,in my next turn,"
        "in my next response,in my next message"
    ).split(","),
    *(
        f"{prep} {article}{when} session"
        for prep in ("for", "in", "during")
        for article in ("", "the ", "a ")
        for when in ("next", "later", "future", "follow-up")
    ),
)
# The start of a closing that lists the work still to do ("Remaining: the loader, the
# report.", "Still to do: wire the CLI.").
WORK_LEFT_STARTS = tuple(
    (  # noqa: SIM905
        "remaining:,remaining work,remaining tasks,remaining steps,remaining items,still to do,"
        "left to do,still pending,still open,not done yet,not yet done,what's left,"
        "what remains,todo:,to do:,outstanding:,next steps:,work left:,still needed:,"
        "only thing left is,only thing left:,only thing remaining is,last thing left is,"
        "all that's left is,all that remains is"
    ).split(",")
)
# The end of a closing that says work is still to do ("Task 4 remains pending.", "Parts two and
# three are still to do."). A bare "remain" is not enough: "The old aliases remain." is a state.
WORK_LEFT_ENDS = tuple(
    f" {end}"
    for end in (  # noqa: SIM905
        "remain pending,remains pending,remain open,remains open,remain to be done,"
        "remains to be done,still pending,still outstanding,still to do,still to be done,"
        "yet to be done,not started yet,not yet started,what's left,what is left,what remains"
    ).split(",")
)
# "Milestone 1 of 3 done.", "2/5 tasks complete.": a count of parts done that says some are not.
PARTS = frozenset("milestone milestones step steps task tasks phase phases part parts".split())  # noqa: SIM905
DONE = frozenset("done complete completed finished shipped".split())  # noqa: SIM905
# Work said to be missing still ("The handlers still need to be updated.", "The export command
# is still unimplemented."), and work the model says it has not done ("I haven't run them
# yet.": a negation, "yet" and one of `NOT_YET_DONE`).
STILL_MISSING = (
    *(" still need to be ", " still needs to be ", "still unimplemented", "still missing"),
    *("not yet implemented", "not implemented yet", "not yet wired", "not wired up yet"),
)
NOT_YET_DONE = frozenset(
    "run touched started written implemented tested wired updated added pushed committed "  # noqa: SIM905
    "deployed migrated built".split()
)
NEGATIONS = frozenset(("haven't", "hasn't", "not"))
# Words before a closing "done" that take it back ("Nothing is done.", "Not yet complete."), and
# before a failure word that deny it ("no errors", "0 failures").
NOT_SO = frozenset(("not", "nothing", "never", "yet", "isn't", "aren't", "wasn't", "weren't"))
NO_FAILURE = frozenset(("no", "0", "zero", "without", "none", "never", "not"))
# Words that say something failed, in a message owning up to it or in what a call printed.
FAILURE_WORDS = frozenset(
    "error errors fail fails failed failing failure failures fatal exception traceback panic "  # noqa: SIM905
    "broken denied refused rejected cannot can't couldn't unable timeout".split()
)
# What is "still failing" is work left, unless the closing says it is not the work's own.
STILL_BAD = frozenset(("failing", "broken", "erroring"))
NOT_OURS = ("unrelated", "pre-existing", "preexisting", "flaky", "expected", "already failing")
# "The remaining tasks are done.": work said to be finished, not left.
SAID_DONE = tuple(f"{be} {done}" for be in ("is", "are", "all", "now") for done in DONE)
# "That leaves ..." lists work left only when it says the work is to come ("That leaves the
# tests and the README, both quick follow-ups."), not a state ("That leaves the tree clean.").
LEAVES_STARTS = ("that leaves", "this leaves", "which leaves")
WORK_TO_COME = ("follow-up", "to do", "to write", "to add", "to wire", "for later")
# A final "Waiting for CI to finish.": the Stop hook never sends back a stop while a background
# task runs, so nothing would wake the model when that work ends; mid-arc it is a stop partway.
# Only a wait that names work no person does counts, and not one naming someone (you, an agent).
WAITING_STARTS = tuple(
    (  # noqa: SIM905
        "waiting for,waiting on,awaiting,i'll wait for,i will wait for,let me wait for,"
        "let's wait for,i'm waiting,i am waiting,just waiting,still waiting"
    ).split(",")
)
MACHINE_WORK = frozenset(
    "ci build builds pipeline pipelines deploy deploys deployment deployments "  # noqa: SIM905
    "job jobs checks workflow workflows migration migrations tests rollout run runs suite "
    "docker image container benchmark benchmarks e2e install compile".split()
)
BY_SOMEONE = frozenset(
    "you your review reviews reviewer reviewers approval feedback user operator "  # noqa: SIM905
    "agent agents subagent subagents someone merged".split()
)
# Words that make a pausing sentence about something else: a wait ("pausing here until the
# reviewers report", which Claude Code wakes the model from), a condition ("I'll pick this
# up if the nightly run fails") or a negation ("rather than stop here").
NOT_PAUSING = tuple(
    (  # noqa: SIM905
        "wait,until ,if ,once ,when ,as soon as,don't,won't,not ,never,rather than,"
        "instead of,no need"
    ).split(",")
)
# A list of work left that is empty ("Remaining: nothing.").
NOTHING_LEFT = ("nothing", "none", " no ", "n/a")
# "Once the CI run finishes, I'll merge.": a wait said as what comes after it.
AFTER_STARTS = ("once the ", "when the ", "as soon as the ", "after the ")
FINISHES = frozenset("finishes completes passes lands ends succeeds is are".split())  # noqa: SIM905
# A closing that opens like this says no work is left ("No errors remain.").
NO_WORK_LEFT = ("no ", "zero ")
