"""The closing classifier on final messages as models write them, table-driven.

Each table holds at least 60 messages. Near misses are the expensive side: a message that
hands nothing back (a summary, an explanation, a rhetorical or quoted question) must never
count as a question or an announced step, since continuing it fights the user.
"""

from __future__ import annotations

import pytest

from arcguard.core.arc_keeper import handback


SUMMARY = (
    "Refactored the session loader: state files are now read once per hook, the lock"
    " is taken only around the write, and the three call sites share one helper.\n\n"
    "- `store.py`: new `read_session`\n- `runner.py`: uses it\n- tests: 4 new cases\n\n"
)

QUESTIONS = [
    "Want me to continue?",
    "Shall I proceed with the migration?",
    "Would you like me to fix these?",
    "Which approach do you prefer?",
    "Ready to proceed?",
    "Let me know if you want the docs updated too.",
    SUMMARY + "Want me to run the tests next?",
    SUMMARY + "Should I commit this?",
    SUMMARY + "Would you like me to open a PR?",
    "The parser now handles quoted fields.\n\nShall I move on to the writer?",
    "Found the cause: the cache key ignores the locale.\n\nWant me to fix it?",
    "Both options work. Which would you like: the adapter or the rewrite?",
    "Option A is faster, option B is simpler.\n\nWhich do you want?",
    "I can take either route:\n\n1. Patch the old client\n2. Port to the new SDK\n\nWhich one?",
    "Which of these should I tackle first?\n\n- flaky test\n- slow build\n- lint errors",
    "Do you want the cleanup included? It's 3 extra lines.",
    "**Want me to move both to `paths`?** It would be a cleaner organization.",
    "Which approach do you prefer? I'd recommend option 2.",
    "Would you like me to run it now, or would you prefer to tweak anything first?",
    "Want to tackle these in this PR or split them out?",
    "Should I add these tests now before continuing with the PR?",
    "Anything else on this branch, or shall we look at the reset bug?",
    "What's your preference?",
    "Okay to proceed with the schema change?",
    "Is it OK if I delete the generated fixtures and rebuild them?",
    "Is that okay with you?",
    "Does that sound good?",
    "Sounds good?",
    "Does this plan work for you?",
    "Can I go ahead and push?",
    "May I run the full integration suite? It takes about 20 minutes.",
    "Could I bump the minimum Python version to 3.11?",
    "Proceed?",
    "Continue with the next milestone?",
    "Go ahead with the rename?",
    "Any preference on the naming?",
    "Any objection to dropping the Python 3.9 shim?",
    "I'd go with `SessionFileExtension()` — thoughts?",
    "Option 1 seems cleanest. What do you think?",
    "So, shall I wire it into the CLI now?",
    "Also, should I update the changelog?",
    "Next, should I port the remaining handlers?",
    "Before I proceed with the deploy, is staging fine to use?",
    "Do you also want me to regenerate the lockfile?",
    "How would you like me to handle the legacy rows?",
    "How do you want the errors reported?",
    "What would you like me to do about the flaky test?",
    "Would it help if I wrote a migration guide?",
    "Mind if I reformat the whole module while I'm in there?",
    "Let me know which option you'd like.",
    "Let me know whether to keep the old endpoint.",
    "Please confirm the table name before I write the migration.",
    "Tell me which branch to rebase onto.",
    "Say the word and I'll push it.",
    "Happy to split this into two PRs if you prefer.",
    "I can also add a benchmark if you'd like.",
    "If you want, I can add retries to the client as well.",
    "Waiting for your go-ahead on the schema change.",
    "Ready for the low severity items when you want to continue.",
    "I'll hold off on the deploy until you confirm.",
    "The fix is in place and tests pass. Want me to also set `gc.auto 0` on your repo now?",
    "Shall we move on to phase 3?",
    "Should we keep the v1 route for a release?",
    "Ready for me to start on the frontend?",
    "Would you rather I keep the old flag as an alias?",
    "Want me to pick one and start implementation?",
    "Quick question: should I use UTC everywhere?",
    "Want me to fix `omp.lua`'s reader the same way (bulk read + split on NUL)?",
    "Do you want me to squash the commits?",
    "Want me to run the tests next? That would take a minute.",
    "Everything’s in place. Shall I proceed?",
]

ANNOUNCED = [
    "Next, I'll run the test suite.",
    "Two of the five commands are converted. I'll do the other three in a follow-up.",
    "Let me now update the README.",
    "Now I will wire the new flag into the CLI.",
    "Now I'll fix the failing import.",
    "I'll now regenerate the fixtures.",
    "Let me run the tests.",
    "Let me check the logs:",
    "Let me look at the failing test.",
    "Let's run the migration.",
    "Now let's add the index.",
    "Now let me verify the build.",
    "Next, let me update the changelog.",
    "Next, let's tackle the flaky test.",
    "I'll start with the parser.",
    "I will start by reproducing the bug.",
    "I'll begin with the schema.",
    "I'll continue with milestone 3.",
    "I'll proceed with the rename.",
    "I'll go ahead and commit.",
    "I'll move on to the exporter.",
    "I'm going to rewrite the loop.",
    "I am going to add a regression test.",
    "Moving on to the API layer.",
    "Next step: wire the cache.",
    "Next up: the CSV writer.",
    "Next: update the docs.",
    "Proceeding to the deploy script.",
    "Proceeding with the cleanup.",
    "Starting on the frontend now.",
    "On to the next milestone.",
    "Then I'll update the snapshot tests.",
    "After that, I'll bump the version.",
    SUMMARY + "Next, I'll run the full suite.",
    SUMMARY + "Now let me commit this.",
    "The parser is done.\n\nNow I'll move to the writer.",
    "Found it: the path was relative.\n\nLet me fix that.",
    "Tests are green for the importer. Next, I'll do the exporter.",
    "I'll fix the lint errors.",
    "I'll update the types.",
    "I will implement the retry logic.",
    "I'll add the missing test.",
    "I'll write the migration.",
    "Let me inspect the generated SQL.",
    "Let me search for other callers.",
    "Let me find where the flag is read.",
    "Let me try a smaller batch size.",
    "Let me debug the timeout.",
    "Let me also check the Windows path handling.",
    "Let me quickly verify the fix.",
    "Let me first reproduce the failure.",
    "I'll now create the PR.",
    "Now, I'll refactor the handler.",
    "Now I'm going to profile the slow path.",
    "I'll re-run the benchmark.",
    "I'll clean up the temp files.",
    "I'll deploy to staging.",
    "Let me review the diff once more.",
    "Let me make the change in `config.py`.",
    "Let's commit and push.",
    "I'll install the missing dependency.",
    "Next, I'll port the remaining handlers:\n\n```\nsrc/handlers/*.py\n```",
    "Let me read `setup.cfg` next.",
    "I'll go ahead and migrate the tests.",
    "Now let's double-check the edge cases.",
]

OTHER = [
    "",
    "Here is the full analysis with a recommendation.",
    SUMMARY + "All tests pass.",
    SUMMARY + "The tests pass and the branch is pushed.",
    "Why did it fail? The cache key ignored the locale. That is fixed now, with a test.",
    "Should we cache this? No: the data changes on every call, so caching would serve stale"
    " rows. I left it uncached and documented why.",
    "Is the lock needed? Yes, two hooks can write at once. It stays.",
    "Want me to continue? was the question the old prompt asked; the new prompt drops it.",
    "The prompt under test is:\n\n```\nShall I proceed with the migration?\n```\n\nIt now"
    " passes the classifier tests.",
    'The button label reads "Would you like me to fix these?" and is now translated.',
    "> Should I proceed?\n\nThat quote is from the old issue; it no longer applies.",
    "Added the `ask_user()` helper; its docstring example is `Ready to proceed?`.",
    "```python\nif input('Continue?') == 'y':\n    run()\n```",
    "I'll leave the legacy path as it is: nothing calls it.",
    "I'll note that the cache is per-process.",
    "Next time, I'll run the linter before pushing.",
    "Now that the parser is done, every milestone has tests.",
    "Let me be clear: the old flag still works.",
    "Let me explain why the test was flaky: the clock was not frozen.",
    "I'll be brief: all green.",
    "I will keep the old alias for one release.",
    "Done. Renamed `cpID` to `checkpointID` in both places.",
    "Committed as `6984823`. Working tree is clean.",
    "Pushed. All checks pass — fmt, lint, and the full test suite.",
    "Fixed. Removed the duplicate comment line.",
    "The truncation is working now. The long prompt is cut off with an ellipsis.",
    "The PR is open and the bot found nothing to flag.",
    "Just one caller: `handleSessionEnd()` at line 43.",
    "The PR is ready for re-review.",
    "Summary of changes:\n\n- parser: quoted fields\n- writer: streaming\n- tests: 12 new",
    "What's next? The exporter, which I have already started in `export.py`.",
    "How does it work? Each hook reads the tail, then decides.",
    "Which file holds the config? `src/config.py`, and it is now validated on load.",
    "Do you see the pattern? Every failure is on the first request after a restart, which"
    " the new warm-up fixes.",
    "Can it be simpler? Probably, but this version is correct and tested.",
    "The tool asks 'Shall I overwrite?' when the file exists; I pass --force in CI.",
    "Users reported the model stopping with “Want me to continue?” mid-task; the new rule"
    " covers it.",
    "Would you like to know more? The design notes are in `docs/design.md`.",
    "I asked myself whether to split the module; I did, into `read.py` and `write.py`.",
    "Should I have used a lock here? In hindsight yes, and now there is one.",
    "The migration ran on staging without errors: 1,204 rows moved.",
    "Benchmarks: 41 ms median before, 23 ms after.",
    "No regressions in the full suite (812 passed).",
    "This removes the last use of the deprecated API.",
    "The CLI now prints a hint when the config file is missing.",
    "I ran the linter and fixed the two warnings it reported.",
    "Coverage is at 94% for the new module.",
    "The endpoint now returns 404 for unknown ids instead of 500.",
    "I removed the 'let me know' footer from the bot's replies.",
    "The old bot ended every reply with 'Shall I continue?', which is now gone.",
    "The `confirm` flag is now required for destructive commands.",
    "Running `make check` locally gives the same result as CI.",
    "Next to the parser sits the new tokenizer module.",
    "Now is a good point to note that the schema is versioned.",
    "I'm going to be honest: the old code was correct, the test was wrong; I fixed the test.",
    "The next step in the pipeline, `render`, was already correct.",
    "Moving the cache to Redis was not needed after all: the in-process one is enough.",
    "I considered asking whether to keep the flag, but the spec is clear, so it is gone.",
    "Let's not forget the README mentions the old flag; that is updated too.",
    "Everything compiles, tests pass, and the docs build.",
    "The import cycle is gone: `session` no longer imports `strategy`.",
    "Updated the snapshot; the only change is the new column.",
    "Reverted the experiment; main is back to the last green commit.",
    "The retry now backs off exponentially, capped at 30 s.",
    "I verified the fix on both Linux and macOS runners.",
    "That's it: `git log` uses the pager by default and shows the full commit format.",
]

DECISIONS = [
    "DECISION NEEDED: dropping `users_old` destroys 3 years of data. Keep a backup first?",
    "decision needed: the fix changes a public API (`parse()` returns a list).",
    "**DECISION NEEDED:** the change touches the infra repo as well.",
    "  \n\nDecision Needed: force-pushing main would rewrite shared history.",
    "## DECISION NEEDED: breaking change to the REST API",
    "DECISION NEEDED:the migration deletes orphaned rows; proceed?",
    "_DECISION NEEDED:_ removing the v1 endpoint breaks two known clients.",
    "DECISION  NEEDED: which repository owns the shared schema?",
    "⚠️ DECISION NEEDED: the cleanup drops the `audit_2019` table.",
    "🛑 **Decision needed:** the new flag renames a public CLI option.",
]


# Handing the turn back without a question mark, and naming the step to come as next.
HANDED_BACK = [
    "Do you want me to proceed",
    "Shall I run the migration",
    "Paused. Say 'go' to continue.",
    "Paused. Say ‘go’ to continue.",
    "I can pick up the loader next if that works for you.",
    "Want me to push it? Over to you.",
    "Over to you for a look before I start on the writer.",
    "The parser is merged; I can start on the loader whenever you are.",
]
NAMED_NEXT = [
    "The parser is in. The loader is next.",
    "Up next: the loader.",
    "The loader and the report are next.",
    "Tests for the 429 path come after this, then the README.",
    "The parser is in; the loader comes after this.",
    "Let me continue.",
    # A step named in its -ing form, or as work the model still needs to do, and not taken.
    "Implementing the loader now.",
    "Now running the full test suite.",
    "Writing the migration next.",
    "Now I need to wire the flag into the CLI.",
    "I still need to update the docs.",
    "Now to wire the parser into the CLI.",
    "Going to rewrite the retry loop next.",
    "Let me take a look at the flaky test.",
    "Onto the exporter.",
    "The next step is to port the handlers.",
    "The CSV writer is up next.",
    "Schema validation is the next step.",
    "The exporter comes after this, followed by its docs.",
]
# Completion reports that use the same words: nothing handed back, nothing announced.
STILL_NOTHING_HANDED_BACK = [
    "Step 3 of 3 done; nothing is next.",
    "All milestones are done; there is nothing left to do next.",
    "All 52 tests pass, and the wizard no longer skips step 3 when you click Next.",
    "Shipped: the iterator now returns None instead of raising when there is no next.",
    "All five steps are done, and the release notes list what could come next.",
    "Migrated the frontend from Create React App to Next.",
    "Your callback handler now retries on 503.",
    "Your call sites are all migrated to the new API.",
    "Ping metrics are now exported to Prometheus.",
    "Back to your original question: the leak was in the cache, and it is fixed.",
    "Standing by the earlier decision, I kept the v1 API and documented why.",
    "Your turn-based game now saves state.",
    "The delete dialog now stays open until you confirm.",
    "The bot keeps replying until you say stop.",
    "Say 'deploy' in Slack and the bot ships it.",
    "All three tasks are done and committed. I'll pick this up again if the nightly run fails.",
    "The next step would be up to the team.",
    "Next time, run it with --fast.",
    "Done. Nothing comes after this.",
    "The release notes come after this section.",
    "I wrote down what comes next.",
    "Looking good now.",
    "Now linting passes on every file.",
    "Testing is done now.",
    "Everything is working now.",
    "I need to say the fix only covers Linux: Windows paths never reach this code.",
    "To fix the import cycle, I moved the helpers into `util.py`.",
    "Time to first byte dropped from 900 ms to 120 ms.",
    "Going to production needs no extra step: the image is the same.",
    "Will the cache survive a restart? Yes: it is on disk now.",
]

QUESTIONS += HANDED_BACK
ANNOUNCED += NAMED_NEXT
OTHER += STILL_NOTHING_HANDED_BACK


@pytest.mark.parametrize("text", QUESTIONS)
def test_permission_and_choice_questions(text):
    assert handback.classify(text) == handback.QUESTION


@pytest.mark.parametrize("text", ANNOUNCED)
def test_announced_steps_not_taken(text):
    assert handback.classify(text) == handback.ANNOUNCED


@pytest.mark.parametrize("text", OTHER)
def test_near_misses_hand_nothing_back(text):
    assert handback.classify(text) == handback.OTHER


@pytest.mark.parametrize("text", DECISIONS)
def test_decision_needed_starts_the_message(text):
    assert handback.classify(text) == handback.DECISION


@pytest.mark.parametrize(
    "text",
    [
        "Before deciding: DECISION NEEDED: nothing.",
        "The protocol says to start with DECISION NEEDED: when stuck.",
        "DECISION: keep it.",
        "Decision needed - which one?",
    ],
)
def test_decision_needed_anywhere_but_the_start_is_not_the_protocol(text):
    assert handback.classify(text) != handback.DECISION


CONTINUING = [
    "Parser trimmed and tested. Continuing…",
    "Tests pass for the trimming step. Proceeding.",
    "Moving on.",
    "OK, continuing.",
    "Continuing with the writer.",
    "Proceeding to the next milestone now.",
    "Carrying on with the exporter.",
    "Resuming from the failed step.",
    "The build is still running, so I am waiting for it before moving on.",
    "I will wait for CI and then continue.",
    "Waiting on the deploy to finish, then proceeding.",
    "The loader is in. Let me continue.",
    "Let's keep going with the exporter.",
    "I'll keep going.",
    "Let me proceed to the report.",
]
NOT_CONTINUING = [
    "Waiting for CI to complete.",
    "Continuing work is tracked in #12.",
    "Not continuing until you confirm.",
    "Continuing is not possible without the API key.",
    "Continuing the old loop was the bug; it now stops at the limit.",
    "Moving one file was enough.",
]


@pytest.mark.parametrize("text", CONTINUING)
def test_a_closing_that_only_says_it_goes_on_is_an_announced_step(text):
    assert handback.classify(text) == handback.ANNOUNCED


@pytest.mark.parametrize("text", NOT_CONTINUING)
def test_the_same_words_doing_other_work_are_not_an_announcement(text):
    assert handback.classify(text) != handback.ANNOUNCED


# Asking the operator to approve what was shown, or two questions in a row (shapes seen in real
# final messages).
APPROVAL = [
    "Here is the design.\n\nDoes this look right? Anything you'd add or cut?",
    "Does this revised lifecycle look right?",
    "Same pattern for the other two. Looks good?",
    "No automated tests: the output is not deterministic. Good?",
    "OK so far?",
    "OK on structure and deps?",
    "Are (a), (b), (c) all correct? Flag anything to tweak.",
    "Ack to commit?",
    "Which structure do you prefer? Or a different split?",
    "Sound right? If yes I'll implement it.",
    "Is this what you had in mind?",
    "Make sense?",
    "Does that match what you were picturing, or were you thinking of a banner?",
    "If both yes, I'll proceed.",
    "If you'd rather pin 0.54.0, just say so and I'll amend the PR.",
    "Give it a playtest; if the send-off lands, I'll commit both.",
]
NOT_APPROVAL = [
    "Is this a bug in Go? No: the spec allows it.",
    "Does it matter? Only on Windows, which we do not ship.",
    "Why did it fail? The fixture was stale.",
    "The handler now checks whether the token looks right before use.",
    "Is it fast? Yes: 3 ms per call.",
    "Looks good: all 40 tests pass.",
    "Does the cache work? It does: the second run took 2 ms.",
    "If yes is passed, the flag is set.",
    "Give it a name and the CLI picks it up.",
]


@pytest.mark.parametrize("text", APPROVAL)
def test_asking_for_approval_is_a_question(text):
    assert handback.classify(text) == handback.QUESTION


@pytest.mark.parametrize("text", NOT_APPROVAL)
def test_a_question_the_message_answers_itself_is_not_one(text):
    assert handback.classify(text) != handback.QUESTION


PAUSED = [
    "I'll stop here for now. The remaining milestones are loading and the report.",
    "The first twelve modules are converted. `grep -rl TestCase tests/` lists what's left.",
    "Stopping here. The parser works; loading into the database is still to do.",
    "This is a good stopping point.",
    "Trimming is done and tested. This is a good place to pause.",
    "I've finished the parser.\n\nRemaining work:\n- load into the database\n- write the report",
    "I've finished the parser.\n\nRemaining:\n\n- load into the database\n- write the report",
    "Let me pause here so you can review the changes so far.",
    "I'll leave the remaining two files for the next session.",
    "Parser done. Still to do: the loader and the report.",
    "To be continued.",
    "The parser is done. I'll pick this up tomorrow with the loader.",
    "Good progress today; the rest can be done in a follow-up session.",
    "That's enough for one pass, so I'll call it a day.",
    "This is a good place to pause. Let me know if you need anything else.",
    "What's left: the exporter and its docs.",
    "The limiter is wired in. That leaves its own tests and the README, both quick follow-ups.",
    "The parser is in. That leaves the docs to write.",
    # A wait on work no person does: nothing running will wake the session when it ends.
    "All feedback is addressed and pushed. Waiting for CI to complete.",
    "I'll wait for the build to finish.",
    "Now waiting on the deploy pipeline.",
    "Let me wait for the migration job.",
    "Waiting for CI before merging.",
    "Waiting on the user-service build.",
    # Work said to be left at the end, in a heading, a count or a closing phrase.
    "Both fixes have unit tests. Task 4 (the reset cleanup) remains pending.",
    "The remaining work is to write the loader and the report.",
    "I've implemented the parser. Next steps:\n\n1. Add the loader\n2. Write the report",
    "The loader and the report are still to do.",
    "The parser is trimmed and tested. The loader remains to be done.",
    "Not done yet: the loader.",
    "Milestone 1 of 3 done.",
    "Progress: 2/5 tasks complete.",
    "The parser is in. I'll pick up the loader in my next turn.",
    "The routes compile. The handlers still need to be updated.",
    "The `export` command is still unimplemented.",
    "I wrote the migration but haven't run it yet.",
    "Phase 2 of 4 complete: the loader works.",
    "The only thing left is the changelog entry.",
    "All that remains is to bump the version.",
    "Waiting for the test suite to finish.",
    "Once the CI run passes, I'll merge and start on the docs.",
    "I've fixed the first failing test. There are still 3 more failing in `test_export.py`.",
    "The parser builds. The exporter is still broken.",
]
NOT_PAUSED = [
    "All milestones are done. Nothing left to do.",
    "Remaining: nothing.",
    "Remaining work: none.",
    "The reviewers are running; pausing here until they report back.",
    "I'll pause here once the benchmark finishes and then compare.",
    "No response requested. Stopping here and awaiting input.",
    "All three tasks are done and committed. I'll pick this up again if the nightly run fails.",
    "Saved to memory so it does not get re-pitched next session.",
    "For now, smaller batch limits are the safe path.",
    "The watcher will pick it up on the next save.",
    "Done. The hook takes effect in a new session.",
    "The loop used to stop here; it now runs to the end.",
    "The CLI no longer stops at this point.",
    "Pressing Ctrl-C does not stop here any more.",
    "Done. That leaves the codebase in a clean state.",
    "All green. That leaves nothing to do.",
    "That leaves the follow-up PR to you.",
    "Fixed. That leaves the next release free of the bug.",
    "Waiting on the reviewers.",
    "Waiting for the three agents to report.",
    "Waiting for the PR to be merged.",
    "Just waiting on Copilot review and then merge.",
    "Waiting for you to choose.",
    # A wait that names no work, or only someone's, and a wait that is over.
    "I'll wait here.",
    "Still waiting.",
    "Waiting for Alice to test it.",
    "Waiting for CI: green. All milestones done.",
    # A state, a finished count or an empty list, in the same words.
    "The old aliases remain.",
    "The remaining tasks are done.",
    "Next steps: none.",
    "No failures remain open.",
    "All 3 of 3 milestones done.",
    "Fixed 2 of 3 warnings; the third is a false positive.",
    "I haven't seen a single failure yet in 200 runs.",
    "The docs still need to be reviewed by you before the release.",
    "Once the reviewers approve, I'll merge.",
    "Once the build is green the release job publishes the wheel.",
    # Review findings: how things go, work left to someone, other parts, a token's turn.
    "Testing against Postgres 16 passes now.",
    "Building with -O2 works now.",
    "Fixing the import order was all it needed, and everything is green now.",
    "The only thing left is for you to review the PR.",
    "Next steps: merge the PR once you are happy with it.",
    "The only thing left unchanged is the public API.",
    "Time to build dropped from 4m to 40s.",
    "Will run nightly via the new cron entry.",
    "Fixed 2 of 3 flaky tests; the third fails on main too and is tracked in #412.",
    "The server sends the new token in the next response.",
    "Task 4 still needs to be scheduled by the team.",
    "Milestone ² of 3 done.",
    # Still failing, but not the work's own, or asked about.
    "Two tests are still failing, unrelated to this change (they fail on main too).",
    "The flaky upload test is still failing on CI now and then.",
    "Is the staging build still broken?",
]


@pytest.mark.parametrize("text", PAUSED)
def test_a_closing_that_stops_partway_is_a_pause(text):
    assert handback.classify(text) == handback.PAUSED


@pytest.mark.parametrize("text", NOT_PAUSED)
def test_pausing_words_about_a_wait_a_condition_or_nothing_left_are_no_pause(text):
    assert handback.classify(text) != handback.PAUSED


def test_every_table_is_large_enough():
    assert min(len(QUESTIONS), len(ANNOUNCED), len(OTHER)) >= 60


def test_only_the_closing_of_a_long_message_is_read():
    report = "Checked one more module and it was fine.\n\n" * 400
    assert len(report) > handback.CLOSING_CHARS
    assert handback.classify(report + "Want me to run the tests next?") == handback.QUESTION
    assert handback.classify(report + "All tests pass.") == handback.OTHER


def test_a_long_code_block_at_the_end_stays_code():
    block = "```\n" + "print('line')\n" * 600 + "ask('Shall I proceed?')\n```\n"
    assert handback.classify("Here is the script:\n\n" + block) == handback.OTHER


# A question followed by one sentence that only says how the model would go about it: the
# question is still what the operator must answer (shapes seen in real final messages).
QUESTION_THEN_PLAN = [
    "Want me to fix this? The approach would be: restore the skip set for main and keep the"
    " first-parent walk.",
    "Want me to fix these issues? The main changes would be:\n\n1. drop the cache\n2. add a lock",
    "Do you want me to proceed with phase 4 to fix these issues? The main fix would be:",
    "Want me to go ahead and refactor it? The plan would be: parse stdin once, pass the"
    " context down, drop the fallback.",
    "Want me to fix it in this PR, or file an issue? The fix needs to either expose a method"
    " or move the dispatch into a helper.",
    "Want me to set that? You'd just run `git gc` manually when you feel like it.",
    "Want me to push it? (I kept a backup branch pointing at the old tip either way.)",
    "Which approach do you prefer? Given the number of missing blobs, I'd recommend the full"
    " index rebuild.",
    "Should I add a retry? The change would be three lines in the client.",
]

# An answer to a question the model asked itself stays an explanation, whatever follows.
ANSWERED_QUESTIONS = [
    "Should we worry about races here? No, the lock would serialise the writers.",
    "Should I have used a queue? Not here: the batch would never exceed ten items.",
    "Do you want the details? They are in the report, which would be the place to start.",
]


# A choice offered, then only a word on why it matters: the question is still the closing,
# within a paragraph or across a command shown after it.
QUESTION_THEN_CONTEXT = [
    "Do you want the limit counted per user or per token? The two differ once a user holds"
    " several tokens.",
    "Would you prefer seconds or milliseconds for the timeout? The old client read it as seconds,"
    " and the docs never say.",
    "Do you want the cache in Redis or in each worker?\n\n```sh\nredis-cli ping\n```\n\nRedis"
    " is already running here, so either works.",
    "Both designs work; it's your call which one to keep.",
]
# The same closings where what follows answers the question or says what the model does, and
# questions that ask no choice.
QUESTION_THEN_NOT_CONTEXT = [
    "Do you want the limit counted per user or per token? Neither alone: both are kept.",
    "Do you want the limit counted per user or per token? I went with per user, since tokens"
    " rotate.",
    "Do you want it per user or per token? Probably per user: the fixture rotates tokens.",
    "Do you want it per user or per token? It does not matter here: there is one token each.",
    # A request to act, or a question of the model's own, is read as before: left alone.
    "Could you run `./deploy.sh --prod` from your machine? The credentials are in your keychain.",
    "Can you believe the root cause was a trailing space in the env var?",
    "Do you want the limit counted per user or per token? The two differ once a user holds"
    " several tokens. I kept per user, since tokens rotate.",
]


@pytest.mark.parametrize("text", QUESTION_THEN_PLAN + QUESTION_THEN_CONTEXT)
def test_a_question_followed_by_how_it_would_be_done_is_still_a_question(text):
    assert handback.classify(text) == handback.QUESTION


@pytest.mark.parametrize("text", ANSWERED_QUESTIONS + QUESTION_THEN_NOT_CONTEXT)
def test_a_question_the_next_sentence_answers_is_not_handed_back(text):
    assert handback.classify(text) == handback.OTHER


@pytest.mark.parametrize(
    "text",
    [
        "Let me know if you want that type renamed to something else instead (e.g. `LangType`),"
        " otherwise I'll leave it.",
        "Let me know if you'd like other shells covered too [e.g. fish], or I'll stop here.",
    ],
)
def test_an_abbreviation_inside_brackets_does_not_end_the_sentence(text):
    assert handback.classify(text) == handback.QUESTION


@pytest.mark.parametrize(
    "text",
    [
        "Should these be filtered out in the loader, or should the loader skip sessions with an"
        " empty phase?",
        "Should the cache be per user, or should it stay global?",
    ],
)
def test_a_choice_between_alternatives_is_a_question(text):
    assert handback.classify(text) == handback.QUESTION


# An offer of further help after finished work names no step: the model thinks it is done.
COURTESY = [
    "Let me know if you need anything else.",
    SUMMARY + "Let me know if you need anything else!",
    "The export is in and tested. Let me know if you have any questions.",
    "All four handlers are migrated. Let me know if anything else comes up.",
    "Done. Feel free to ask if something is unclear.",
    "Fixed and pushed. Happy to help with anything else.",
    "Tests pass on all three platforms. Hope this helps!",
    "The branch is merged. Anything else?",
    "Let me know if you'd like any other changes.",
    "Let me know if there's anything else I can help with.",
]


# The same offers after the kinds of work reports models write, so the class has as many
# real-looking cases as the others.
_REPORTS = (
    "The migration ran on staging and the row counts match.\n\n",
    "Fixed the flaky test: it depended on dict order. The suite passes 20 runs in a row.\n\n",
    "- `loader.py`: reads state once\n- `cli.py`: new `--dry-run` flag\n\n",
    "The README now documents the new config keys, with an example for each.\n\n",
    "Pushed to `feature/export`; CI is green.\n\n",
)
_OFFERS = (
    "Let me know if you need anything else.",
    "Let me know if you have any questions.",
    "Let me know if anything else comes up!",
    "Feel free to ask if anything is unclear.",
    "Happy to help with anything else.",
    "Hope this helps!",
    "Anything else?",
    "Let me know if you'd like any other changes.",
    "Let me know if there's anything else I can help with.",
    "If you have any questions, let me know.",
    "Let me know if you have any further questions.",
    "So, anything else?",
)
COURTESY += [report + offer for report in _REPORTS for offer in _OFFERS]

# A whole sentence that hands back and names no step: a courtesy (a stall only with work left).
HANDED_BACK_ALONE = [
    "The parser is in. Over to you.",
    "Back to you.",
    "Your turn.",
    "Tests pass. Ready when you are.",
    "Standing by.",
    "Awaiting instructions.",
    "Release 2.0 is tagged and the changelog is updated. Over to you.",
    "The parser is in. Ready for the next step.",
]
COURTESY += HANDED_BACK_ALONE


def test_the_courtesy_table_is_large_enough():
    assert len(COURTESY) >= 60


@pytest.mark.parametrize("text", COURTESY)
def test_an_offer_of_further_help_after_finished_work_is_a_courtesy_closing(text):
    assert handback.classify(text) == handback.COURTESY


@pytest.mark.parametrize(
    "text",
    [
        "Want me to push it? Let me know if you need anything else.",
        "Let me know if you want me to push it.",
        "Let me know if anything else should go into this PR, or shall I open it now?",
    ],
)
def test_a_courtesy_line_next_to_a_concrete_offer_is_still_a_question(text):
    assert handback.classify(text) == handback.QUESTION
