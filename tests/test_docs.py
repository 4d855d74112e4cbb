"""The documentation covers every setting, its environment override, every command and every
option, and the CLI reference is the one the code prints."""

from __future__ import annotations

import re
import tempfile

import click
import pytest
from scripts import generate
from testing.builders import REPO
from testing.docs import doc_pages
from testing.docs import user_docs

from arcguard.core.config import DEFAULTS


DOCS = user_docs()
WRITTEN = user_docs(generated=False)
REFERENCE = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
COMMANDS = dict(generate.commands())
OPTIONS = sorted(
    {
        (path, opt)
        for path, ctx in COMMANDS.items()
        for param in ctx.command.params
        if isinstance(param, click.Option)
        for opt in param.opts
        if opt.startswith("--")
    }
)


@pytest.mark.parametrize("key", sorted(DEFAULTS))
def test_every_setting_and_its_override_is_documented(key):
    assert f"`{key}`" in DOCS
    assert f"`ARCGUARD_{key.upper()}`" in DOCS


def test_the_cli_reference_is_current():
    assert generate.cli_reference() == REFERENCE, "run: python scripts/generate.py"


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_every_command_has_a_section_in_the_cli_reference(path):
    assert f"\n## {path}\n" in REFERENCE
    assert f"Usage: {path} " in REFERENCE


@pytest.mark.parametrize("path", sorted(set(COMMANDS) - {"arcguard"}))
def test_every_command_is_described_beyond_its_help(path):
    # A subcommand may be described in its group's table by its own name (`set SID ...`).
    parent, name = path.rsplit(" ", 1)
    in_table = (
        parent != "arcguard"
        and parent in WRITTEN
        and (f"`{name} " in WRITTEN or f"`{name}`" in WRITTEN)
    )
    assert path in WRITTEN or in_table


@pytest.mark.parametrize(("path", "option"), OPTIONS, ids=lambda v: str(v))
def test_every_option_is_in_the_cli_reference_and_described(path, option):
    section = REFERENCE.split(f"\n## {path}\n", 1)[1].split("\n## ", 1)[0]
    assert option in section
    assert option in WRITTEN


def test_the_hook_names_are_in_the_cli_reference():
    from arcguard.hooks import HOOKS

    section = REFERENCE.split("\n## arcguard hook\n", 1)[1]
    assert all(f"  {name}  " in section for name in HOOKS)


def test_the_bounds_the_docs_promise_are_the_ones_in_the_code():
    from arcguard.claude_settings.settings_files import MAX_SETTINGS_BYTES
    from arcguard.commands.settings_edit import WRITE_ATTEMPTS
    from arcguard.core.render import MAX_TEXT
    from arcguard.forensics.lines import MAX_DEPTH
    from arcguard.forensics.lines import MAX_LINE_BYTES
    from arcguard.hooks.runner import MAX_PAYLOAD
    from arcguard.storage.error_log import MAX_LOG_BYTES

    mib = 1024 * 1024
    assert f"Payloads over {MAX_PAYLOAD // mib} MiB are not parsed" in WRITTEN
    assert f"at most {MAX_PAYLOAD // mib} MiB is parsed" in WRITTEN
    assert f"a line over {MAX_LINE_BYTES // mib} MiB" in WRITTEN
    assert f"nested more than {MAX_DEPTH} levels deep" in WRITTEN
    assert f"at most {MAX_SETTINGS_BYTES // mib} MiB" in WRITTEN
    assert f"(up to {WRITE_ATTEMPTS} tries)" in WRITTEN
    assert f"at most {MAX_TEXT:,} characters" in WRITTEN
    assert f"past {MAX_LOG_BYTES // 1024} KB" in WRITTEN


def _behaviour_map() -> list[str]:
    text = (REPO / "docs" / "development.md").read_text(encoding="utf-8")
    section = text.split("## Where each behaviour lives", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and "`" in line]


def test_the_behaviour_map_has_a_row_for_each_rule_and_verb():
    assert len(_behaviour_map()) >= 12


def _mapped_paths() -> list[tuple[str, str]]:
    paths = []
    for row in _behaviour_map():
        modules, tests = row.split("|")[2:4]
        for cell, root in ((modules, "src/arcguard"), (tests, "tests")):
            paths += [(root, name) for name in cell.split("`")[1::2]]
    return paths


@pytest.mark.parametrize(("root", "name"), _mapped_paths())
def test_every_path_in_the_behaviour_map_exists(root, name):
    assert (REPO / root / name).exists()


def _fenced_blocks(page: str) -> list[tuple[str, str]]:
    """(the line before the block, the block's body) of every fenced block of `page`."""
    found = re.finditer(r"([^\n]*)\n```[a-z]*\n(.*?)```", page, flags=re.DOTALL)
    return [(m[1], m[2]) for m in found]


@pytest.mark.parametrize("page", doc_pages(generated=False), ids=lambda p: p.name)
def test_every_arcguard_output_a_page_shows_is_generated(page):
    # A block that shows an arcguard command's output is written by scripts/examples.py, so
    # test_snippet.py's check that the generated files are current covers it.
    for before, body in _fenced_blocks(page.read_text(encoding="utf-8")):
        if re.search(r"^\$ (?:cd \S+ && )?arcguard ", body, flags=re.MULTILINE):
            assert before.startswith("<!-- example: "), body.split("\n", 1)[0]


@pytest.mark.parametrize("page", doc_pages(), ids=lambda p: p.name)
def test_no_page_names_this_machine_s_folders(page):
    text = page.read_text(encoding="utf-8")
    assert str(REPO) not in text
    # A temporary folder of a run (the prose may say `/tmp/...`).
    assert not re.search(re.escape(tempfile.gettempdir()) + r"/\w", text)


def test_an_example_output_the_code_no_longer_prints_is_rewritten():
    from scripts import examples

    page = (REPO / "docs" / "installing.md").read_text(encoding="utf-8")
    edited = page.replace("ok    lock: ", "ok    lock check: ", 1)
    assert edited != page
    assert examples.render(edited) == page


def _anchors(page: str) -> set[str]:
    """The anchors GitHub gives the page's headings: lower case, punctuation dropped, spaces as
    hyphens, a repeated one numbered."""
    seen: dict[str, int] = {}
    anchors = set()
    body = re.sub(r"```.*?```", "", page, flags=re.DOTALL)
    for heading in re.findall(r"^#{1,6} (.+)$", body, flags=re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _links(page):
    body = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    return [
        target
        for target in re.findall(r"\]\(([^)\s]+)\)", body)
        if not target.startswith(("http://", "https://", "mailto:"))
    ]


@pytest.mark.parametrize("page", doc_pages(), ids=lambda p: p.name)
def test_every_link_of_a_page_leads_somewhere(page):
    for target in _links(page):
        path, _, anchor = target.partition("#")
        goal = (page.parent / path).resolve() if path else page
        assert goal.exists(), f"{page.name}: {target}"
        if anchor and goal.suffix == ".md":
            assert anchor in _anchors(goal.read_text(encoding="utf-8")), f"{page.name}: {target}"


def test_the_status_lines_the_screens_page_names_are_in_its_captures():
    # The captures are checked against the real CLI (tests/e2e/test_screen_lines.py); the
    # rows the text quotes must be rows of those captures.
    page = (REPO / "docs" / "what-you-will-see.md").read_text(encoding="utf-8")
    captured = "\n".join(re.findall(r"```text\n(.*?)```", page, flags=re.DOTALL))
    named = re.findall(r"^- `(arcguard [^`]+)`", page.split("## The status line", 1)[1], re.M)
    assert named
    assert all(f"  {row}\n" in captured for row in named), named


def test_the_line_a_plugin_without_arcguard_shows_is_the_one_it_prints():
    assert f"  ⎿  UserPromptSubmit says: {generate.MISSING}\n" in WRITTEN


# What the documentation may grow to before someone reads it again for what a user needs.
# The README is meant to be read in about two minutes. The whole set (the generated CLI
# reference included: users read it too) was cut to each fact said once, at about 30,000
# words; this keeps it from growing back unnoticed. Raise a bound on purpose, not to pass
# (31,000 became 31,250 for the stop rule on the checks a task names, and a fifth blind fold;
# 31,400 for a look asked of one target after another, its field in the state, and the
# legitimate work some rule still interrupts; 31,500 for the stop naming only some of the
# items its task lists; 31,800 for the rule on one answer asked many ways, its record in the
# state, the folds' loops given a word in time, and a sixth blind fold; 31,900 for the values a
# short print answers with, and a seventh blind fold; 31,980 for how a command ended, a status it
# printed or a timeout, and a poll's count draining; 32,040 for which releases lend a status
# tool for background work, and a report opening with a call only the user may make; 32,070
# for a server's error answer read as a failure, a hang whose task later completes, and an
# eighth blind fold; 32,320 for fixes to code that leave a failure as printed, their fields in
# the state, looks run inside a container, a benchmark's runs as samples, and a ninth, tenth
# and eleventh blind fold; 32,700 for a failure an output filter hid, a check run many times
# over read as a measurement, failing lines compared across filters, and a twelfth blind fold;
# 32,800 for looks over ssh, as another user and through a database client, a sweep of
# changes by their numbers, and a thirteenth blind fold; 32,900 for a wait's polls that show
# only old lines, and substitutions read for what they run; 33,070 for fixes that go round, and
# their field in the state; 33,130 for a platform's refusal as a cause outside the code whatever
# numbers a call names, a version a registry holds, and a program asked for its help read as a
# look; 33,250 for one cause printed other ways through fixes to code, and its fields in the
# state; 33,270 for error codes and compilers' errors read behind a filter, and a cache cleared
# read as no change; 33,540 for one failure read many ways: its rule and what is news to it, its
# record in the state and its limit; 33,750 for a wait on a failure: its bounds, what is no news
# to it and what does not end it, its two fields in the state, and the two settings it shortens;
# 33,880 for fixes to code kept to one or two files and shown aimed at the failure, paused
# for, what shows them aimed, what names a failing command, and their two fields in the state;
# 34,220 for the turns watched after a request: what counts, what ends the watch, what is a
# wait, its six fields in the state, the folds it was tuned on and what it leaves to a wait;
# 34,250 for a repository's rules as a refusal, read through a filter that hid the act's
# status, and a pull that answers it is up to date as no write; 34,270 for the statements
# and code a failure quotes, which are no cause; 34,280 for how many lines of an attempt said
# what went wrong, kept in the state; 34,300 for a filter on a check's print, which runs the
# same test, kept in the state; 34,320 for the pause two attempts after a request and the folds
# that moved it there; 34,350 for what the watch after a request adds to it, and a statement
# echoed by any database layer).
README_WORDS = 500
ALL_WORDS = 34_350


def test_the_documentation_stays_short_enough_to_finish():
    words = {page.name: len(page.read_text(encoding="utf-8").split()) for page in doc_pages()}
    assert words["README.md"] <= README_WORDS
    assert sum(words.values()) <= ALL_WORDS, sorted(words.items(), key=lambda kv: -kv[1])
