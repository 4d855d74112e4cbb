"""What counts as a run and as a change, progress-aware nudges, operators, and waits.

Each case is built from a shape seen in real Claude Code sessions: parallel calls cancelled
when a sibling failed, a file reset by git between two reads, steady edit/test work left
unattended, a prompt typed while the model worked, a teammate polling a task list.
"""

from __future__ import annotations

from typing import Any

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import tag

from arcguard.core.arc_keeper.posture import decide_posture
from arcguard.core.loop_guard import background
from arcguard.core.loop_guard import finished
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import shell_writes
from arcguard.core.loop_guard import tool_effects
from arcguard.core.loop_guard.repeat import UNKNOWN_FILE
from arcguard.core.state import short_id
from arcguard.core.tool_call import ToolCall
from arcguard.core.tool_call import ToolResult
from arcguard.core.tool_call import read_result
from arcguard.core.words.final_words import queued_prompt


SIBLING = "<tool_use_error>Sibling tool call errored</tool_use_error>"


def read(path: str = "/p/hooks.go", **kw: Any) -> Call:
    return Call("Read", {"file_path": path}, response={"file": {"content": "v1"}}, **kw)


def edit(n: int) -> Call:
    return Call(
        "Edit",
        {"file_path": "/p/a.go", "old_string": f"a{n}", "new_string": f"b{n}"},
        response={
            "filePath": "/p/a.go",
            "originalFile": f"a{n}",
            "structuredPatch": [{"lines": [f"-a{n}", f"+b{n}"]}],
        },
    )


def idle(tag: object) -> Call:
    return bash(f"true # {tag}", response="")


def work(n: int) -> list[Call]:
    """One turn of steady edit/test work: a read, an edit, a test run, in rotation."""
    step = n % 3
    if step == 0:
        return [Call("Read", {"file_path": f"/p/f{n % 7}.go"}, response={"n": tag(n)})]
    if step == 1:
        return [edit(n)]
    return [bash("go test ./...", response=f"ok  pkg  0.{n:03d}s")]


# --- what counts as a run -------------------------------------------------------------------


def test_calls_cancelled_by_a_failing_sibling_are_not_runs_of_the_operation():
    d = Driver()
    for _ in range(2):
        d.turn(
            bash("go vet ./...", error="Exit code 1\nvet: bad"),
            Call("Read", {"file_path": "/p/hooks.go"}, error=SIBLING),
        )
    assert not d.turn(read())["denied"]


def test_calls_refused_before_they_ran_are_not_runs_of_the_operation():
    d = Driver()
    for _ in range(2):
        d.turn(read(ran=False))  # refused by the user or another hook: no result event
    assert not d.turn(read())["denied"]


def test_a_write_refused_until_the_file_is_read_is_not_denied_once_it_is_read():
    # Claude Code refuses a write to a file the session has not read, before any hook runs: the
    # refusals are not runs, so the write after the read goes through.
    d = Driver()
    write = {"file_path": "/p/GEMINI.md", "content": "@./skills/search/SKILL.md\n"}
    unread = "<tool_use_error>File has not been read yet. Read it first before writing to it."
    for _ in range(2):
        d.turn(Call("Write", write, error=f"{unread}</tool_use_error>"))
    d.turn(Call("Bash", {"command": "git checkout main -- GEMINI.md"}, response=""))
    d.turn(read("/p/GEMINI.md"))
    assert not d.turn(Call("Write", write, response={"type": "update"}))["denied"]


@pytest.mark.parametrize(
    "payload",
    [
        {"is_interrupt": True, "error": "Exit code 130"},
        {"error": SIBLING},
        {"error": "The user doesn't want to proceed with this tool use."},
        {"error": "PreToolUse:Read hook error: blocked by policy"},
        {"error": "<tool_use_error>InputValidationError: bad offset</tool_use_error>"},
    ],
)
def test_an_interrupted_cancelled_or_refused_call_did_not_run(payload):
    failure = read_result(payload, event="PostToolUseFailure")
    assert opkey.outcome(ToolCall("Read", {}), failure) == opkey.NOT_RUN


@pytest.mark.parametrize(
    "error",
    [
        "Exit code 1\nSibling tool call errored",
        "<tool_use_error>Error calling tool (Fetch): socket hang up</tool_use_error>",
    ],
)
def test_a_failure_that_merely_prints_the_words_still_ran(error):
    failure = ToolResult(failed=True, error=error)
    assert opkey.outcome(ToolCall("Bash", {}), failure) != opkey.NOT_RUN


# --- what counts as a change ------------------------------------------------------------------


def test_a_file_reset_by_git_may_be_read_again_once():
    d = Driver()
    d.turn(read())
    d.turn(read())
    d.turn(bash("git reset --hard HEAD~1", response="HEAD is now at 1a2b3c fix"))
    assert not d.turn(read())["denied"]
    assert d.turn(read())["denied"]  # nothing changed since that re-read


def test_read_only_commands_between_reads_change_nothing():
    d = Driver()
    d.turn(read())
    d.turn(read())
    d.turn(bash("git status --short", response=" M hooks.go"))
    assert d.turn(read())["denied"]


def test_a_file_whose_size_or_mtime_moved_may_be_read_again():
    d = Driver()
    d.turn(read(file_state="120:1"))
    d.turn(read(file_state="120:1"))
    assert d.turn(read(file_state="120:1"))["denied"]
    assert not d.turn(read(file_state="180:2"))["denied"]
    assert d.turn(read(file_state="180:2"))["denied"]


def test_a_file_the_hook_could_not_look_at_is_assumed_changed():
    d = Driver()
    for _ in range(4):
        assert not d.turn(read(file_state=UNKNOWN_FILE))["denied"]


def test_commands_that_change_the_world_do_not_excuse_each_other():
    d = Driver()
    denied = [
        bool(d.turn(bash(c, response=""))["denied"])
        for c in ["echo A >> runs.txt", "echo B >> runs.txt"] * 3
    ]
    assert denied == [False, False, False, False, True, True]


@pytest.mark.parametrize(
    "command",
    [
        "git reset --hard HEAD~1",
        "git checkout main",
        "git pull --rebase",
        "git stash",
        "git merge feature",
        "git rebase -i HEAD~3",
        "npm install",
        "pip install requests",
        "go build ./...",
        "make",
        "gofmt -w .",
        "npx prettier --write .",
        "rm -rf dist",
        "mv a.go b.go",
        "cp a b",
        "echo x > f.txt",
        "cat a >> b",
        "sed -i s/a/b/ f",
        "./scripts/gen.sh",
        "find . -name '*.tmp' -delete",
        "cd /p && git commit -m x",
        "ls $(mktemp -d)",
        "git branch -D old",
        "FOO=1 go generate ./...",
        "for f in *.go; do gofmt -w $f; done",
        "if true; then rm -f x; fi",
        "docker compose up -d",
        "kubectl -n staging delete pod api-0",
        "aws sqs receive-message --queue-url https://sqs.example/q",
        'echo "$(rm -rf build)"',
        "grep 'x' f > 'out file.txt'",
        "cat 'notes",
        # A quote in a comment, an escaped one, or `$'...'` opens nothing that hides the rest.
        "# Let's clean up\nrm -rf dist\n# Don't forget\nls",
        'echo "\\"\'" `rm -rf build` "\'"',
        "echo $'it\\'s' ; rm -rf x ; echo '\\'",
        "awk '{print > \"out.txt\"}' in.txt",
        "awk '{print | \"sort\"}' in.txt",
        # A resource named like a reading verb is no reading action.
        "az vm deallocate -g web -n show-vm",
        "gcloud compute instances suspend status-page",
        "gcloud compute ssh search-indexer --command 'sudo reboot'",
        "aws s3api get-object --bucket acme --key k out.bin",
        "gcloud container clusters get-credentials prod",
        "aws s3 cp site/index.html s3://acme-docs/",
        "gcloud compute instances delete list-builder",
        "aws --profile ops ecs update-service --service api --force-new-deployment",
        # A group whose reporting subcommands read, and whose others act.
        "kubectl rollout restart deploy/api",
        "kubectl rollout",
        "docker image rm api:old",
        "npm dist-tag add @acme/sdk@3.2.0 latest",
        "helm upgrade api ./chart --wait",
        "terraform state rm aws_instance.old",
        "journalctl --vacuum-size=1G",
        "npm publish",
        # Reporting subcommands and reading programs made to write by an option.
        "helm template api ./chart --output-dir rendered/",
        "kubectl cluster-info dump --output-directory=/tmp/dump",
        "ss -K dst 10.0.0.5",
        "journalctl --update-catalog",
        "npm config set registry https://r.example",
        "terraform providers lock -platform=linux_amd64",
        "cargo pkgid",
        "composer require stripe/stripe-php:^16",
        "composer update --lock",
        "bundle install",
        "gem install rails",
        "nvidia-smi -r -i 0",
        "./host start",
        "../bin/dig deploy",
        "openssl req -new -key k.pem -out req.csr",
        "openssl x509 -in cert.pem -out cert.der -outform DER",
        "base64 -o out.bin in.txt",
        "resolvectl flush-caches",
        "rabbitmqctl purge_queue invoices.retry",
        "rabbitmqadmin delete queue name=invoices.retry",
        "patronictl -c /etc/patroni.yml switchover",
        "step certificate create api api.crt api.key",
        "curl -G -X POST https://api.example.com/v1/jobs",
        "curl -s --data-urlencode q=1 https://api.example.com/v1/search",
        # A substitution that acts, nested too deep to read, or left open; a card or a clock set.
        "kill $(pgrep -f worker)",
        "cat $(git diff --name-only | xargs rm)",
        'echo "rc: `touch x`"',
        "ls $(a $(b $(c $(d $(e)))))",
        "ls $(pwd",
        "nvidia-smi -pm 1",
        "nvidia-smi mig -cgi 9",
        'date -s "2026-01-01 00:00"',
        # `gh api` sending fields or a body, or another method; a bisect's step.
        "gh api repos/acme/app/issues -f title=x",
        "gh api -X PATCH repos/acme/app/pulls/7 -f state=closed",
        "gh api --method=DELETE repos/acme/app/git/refs/heads/old",
        "gh api graphql -f query='mutation { x }'",
        "gh api repos/acme/app/contents/a.txt --input body.json",
        "git bisect good",
        "set -e\nrm -rf build",
        # Forms a substitution reader cannot follow as the shell does: an ANSI-C quote, a
        # comment, backticks inside backticks, a here-document inside `$(...)`.
        "echo $'\\' $(ls ' ; touch x ; echo ')'\\'",
        "echo \\ #'\n$(ls ' ; touch x ; echo ')'\\'",
        "echo `echo \\`touch x\\``",
        "echo $(cat <<EOF\n)'\nEOF\ntouch x\n# '\n)",
        # What a substitution prints may be the option, program or statement that writes.
        "find . -name '*.pyc' $(echo -delete)",
        "sort $(echo -o) out.txt in.txt",
        'awk "$(cat prog.awk)" data.txt',
        'psql -c "$(cat migrate.sql)"',
        "date -us 2020-01-01",
        "date 010100002026",
        "nvidia-smi --gom=COMPUTE",
    ],
)
def test_mutating_or_unknown_commands_count_as_changes(command):
    assert tool_effects.may_change_world(ToolCall("Bash", {"command": command}))


@pytest.mark.parametrize(
    "command",
    [
        "ls -la",
        "cat go.mod",
        "git status",
        "git log --oneline -5",
        "git diff HEAD~1",
        "grep -rn TODO .",
        "rg Session src",
        "cd /p && git status",
        "ls 2>/dev/null",
        "head -n 5 f | wc -l",
        "gh pr view 42",
        "git -C /p show HEAD",
        "sleep 30",
        "git branch",
        "sed -n 1,20p f",
        "true # note",
        "timeout 10 cat log",
        "while true; do sleep 5; done",
        "kubectl -n staging get pods",
        "aws --region eu-west-1 sts get-caller-identity",
        # Operators and redirects inside quotes are arguments, not the shell's.
        "grep -E 'foo|bar' f.txt",
        "jq '.jobs[] | .name' runs.json",
        "awk '$3 > 5' data.csv",
        "kubectl get pods -o jsonpath='{.items[*].status.phase}'",
        "{ cat a; cat b; }",
        "ls  # what's this",
        "aws --profile ops s3 ls s3://acme-docs/",
        "aws s3 ls s3://acme-docs/",
        "aws acm describe-certificate --certificate-arn arn:aws:acm:x",
        "gcloud compute instances list --format=json",
        "az vm show -g web -n api-1",
        "kubectl --context prod describe pod api-0",
        "docker compose ps",
        "docker compose -f dev.yml logs --tail 50 api",
        "docker-compose logs web",
        # A status asked through each tool's own words.
        "npm show @acme/sdk@latest version",
        "pnpm view @acme/sdk version",
        "yarn info @acme/sdk version",
        "npm dist-tag ls @acme/sdk",
        "helm status api -n api",
        "helm history api -n api --max 5",
        "kubectl rollout status deploy/api -n api --timeout=60s",
        "kubectl cluster-info",
        "kubectl auth can-i create pods",
        "docker image ls",
        "docker container inspect api",
        "terraform state list",
        "journalctl -u api --since '10 min ago'",
        "dig +short api.internal",
        "systemctl list-units --failed",
        "npm config get registry",
        "helm template api ./chart",
        "composer diagnose",
        "composer show -t stripe/stripe-php",
        "bundle outdated",
        "gem list rails",
        # Probes of names, certificates, queues and replicas.
        "host -t CNAME status.example.com",
        "kdig @1.1.1.1 +https +short status.example.com",
        "openssl s_client -connect api.example.com:443 </dev/null | openssl x509 -noout -dates",
        "kubectl get secret tls -o jsonpath='{.data.tls\\.crt}' | base64 -d",
        "resolvectl query status.example.com",
        "rabbitmqctl -n rabbit@mq-1 list_queues -p billing name messages",
        "rabbitmqadmin -H mq.internal -V billing list queues name messages",
        "patronictl -c /etc/patroni/orders-db.yml list",
        "cmctl status certificate api-tls -n edge",
        "step certificate inspect https://api.example.com --format json",
        "pg_isready -h db.internal",
        # Data sent in the address only asks.
        "curl -s -G http://prometheus:9090/api/v1/query --data-urlencode 'query=up'",
        "curl -sG http://prometheus:9090/api/v1/query -d 'query=up'",
        # What a substitution prints is a value when it only reads, bare or quoted.
        "pgrep -u $(whoami) -a python",
        'cat "$(git rev-parse --show-toplevel)/README.md"',
        'git log --since="$(date -d yesterday)" --oneline',
        "wc -l $(git ls-files '*.py') | tail -1",
        "echo `date +%s`",
        "awk '{print $(NF)}' data.txt",
        "nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv,noheader",
        "nvidia-smi -q -d MEMORY",
        # `gh api` asks with a GET: fields are the query only under `-X GET`.
        "gh api repos/acme/app/pulls/112/comments --paginate --jq '.[].body'",
        "gh api -X GET search/issues -f q=repo:acme/app",
        "git bisect log",
        # The shell's own options and variables.
        "set -euo pipefail; kubectl get pods -n staging",
        "export KUBECONFIG=$HOME/.kube/prod && kubectl get nodes",
        "sleep $((5 * 60)); tail -n 3 train.log",
        "kubectl logs $(kubectl get pods -l app=api -o name | head -1)",
        "date -Iseconds",
    ],
)
def test_read_only_commands_do_not(command):
    assert not tool_effects.may_change_world(ToolCall("Bash", {"command": command}))


@pytest.mark.parametrize(
    ("command", "acts"),
    [
        ("sleep 30 && composer require stripe/stripe-php:^16", True),
        ("sleep 60 && composer update --lock", True),
        ("sleep 10 && git add -A", True),
        ("sleep 10 && pg_isready -h db", False),
        ("sleep 5; kubectl get pods", False),
    ],
)
def test_a_wait_before_a_package_manager_that_adds_or_updates_acts(command, acts):
    # A retry after a wait that fails is a failed attempt, not a poll's answer.
    assert tool_effects.acts(ToolCall("Bash", {"command": command})) is acts


@pytest.mark.parametrize(
    ("command", "writes"),
    [
        ("sed -i 's/a/b/' f.py", True),
        ("sed -i.bak -e 's/a/b/' f.py", True),
        ("sed --in-place 's/a/b/' f.py", True),
        ("perl -pi -e 's/a/b/' f.py", True),
        ("echo x >> notes.txt", True),
        ("cat > f.py <<'EOF'\nprint(1)\nEOF", True),
        ("printf x | tee out.txt", True),
        ("patch -p1 < fix.diff", True),
        ("cd /p && git apply fix.diff", True),
        ("git checkout main", True),
        ("sed -n 1,20p f.py", False),
        ("awk '$3 > 5' data.csv", False),
        ("awk '{print > \"out.txt\"}' in.txt", True),
        ("echo 'done; tee log.txt'", False),
        ("# it's a fix\necho 'x=1' >> config.ini", True),
        ("echo 'open >> f", True),
        ("grep -n -- '->' main.rs", False),
        ("perl -ne 'print if /x/' f", False),
        ("pytest -q 2>&1", False),
        ("make > /dev/null", False),
        ("pip install -e .", False),
        ("tee", False),
        ("perl -Ilib t/basic.t", False),
        ("perl -Mwarnings -ne 'print if /x/' f", False),
        ("patch --dry-run -p1 < fix.diff", False),
        ("make 2>&1 | tee /dev/stderr", False),
        ("git status", False),
    ],
)
def test_commands_that_write_files_from_the_shell(command, writes):
    assert shell_writes.edits_files(ToolCall("Bash", {"command": command})) is writes


@pytest.mark.parametrize(
    ("answer", "writes"),
    [
        ("Current branch main is up to date.", False),
        ("Already up to date.", False),
        ("Updating 1e6c0a9..4b7e91c\nFast-forward\n src/app.py | 2 +-", True),
    ],
)
def test_a_pull_that_says_nothing_moved_wrote_nothing(answer, writes):
    call = ToolCall("Bash", {"command": "git pull --rebase origin main"})
    assert shell_writes.edits_files(call, answer) is writes
    # Beside another writer, the command still wrote.
    both = ToolCall("Bash", {"command": "git pull && sed -i 's/a/b/' f.py"})
    assert shell_writes.edits_files(both, answer)


@pytest.mark.parametrize(
    ("command", "answer"),
    [
        ("git checkout main && git pull", "Already on 'main'\nUpdating 1e6c0a9..4b7e91c"),
        ("git -C ../lib pull && git -C ../app pull", "Already up to date.\nUpdating 1e6c0a9..4b7"),
    ],
)
def test_one_of_two_git_commands_saying_nothing_moved_says_nothing_of_the_other(command, answer):
    assert shell_writes.edits_files(ToolCall("Bash", {"command": command}), answer)


def test_a_checkout_whose_branch_is_up_to_date_with_its_remote_still_moved():
    # git's note on the branch's remote is no answer that nothing moved.
    switched = "Switched to branch 'main'\nYour branch is up to date with 'origin/main'."
    call = ToolCall("Bash", {"command": "git checkout main"})
    assert shell_writes.edits_files(call, switched)
    assert shell_writes.moves_checkout(call, switched)


@pytest.mark.parametrize(
    ("command", "restart"),
    [
        (
            "docker compose up -d api && sleep 4 && curl -s localhost:8080/version",
            "docker compose up -d api ; sleep 4",
        ),
        ("make deploy; kubectl get pods -n prod | grep api", "make deploy"),
        ("systemctl restart app || systemctl status app", "systemctl restart app"),
        ("systemctl restart app; systemctl is-active app;\n", "systemctl restart app"),
        ("npm start & sleep 5; curl -s localhost:3000", "npm start ; sleep 5"),
        ("docker compose restart api && LC_ALL=C cat out.log", "docker compose restart api"),
        (
            "kubectl rollout restart deploy/api; timeout 10 curl -s x",
            "kubectl rollout restart deploy/api",
        ),
        ("make install && echo done", ""),  # says what it was told
        ("docker compose build api 2>&1 | tail -5", ""),  # reads what the build printed
        ("docker compose up -d api |& tail -3", ""),
        ("kubectl apply -f x.yaml && kubectl rollout status deploy/x", ""),  # waits
        ("make deploy && timeout 60 kubectl -n prod rollout status deploy/x", ""),
        ("docker compose up -d && sleep 10", ""),
        ("docker compose up -d --build && cd ..", ""),  # prints nothing of the world
        ("for s in api web; do systemctl restart $s; done", ""),  # the loop's body printed last
        ("git add parser.py && git status --short", ""),  # no restart: a status of other work
        ("echo 'a && curl x'", ""),
    ],
)
def test_restarts_that_end_on_a_look_of_their_own(command, restart):
    assert tool_effects.checked_restart(ToolCall("Bash", {"command": command})) == restart


@pytest.mark.parametrize(
    ("tool", "changes"),
    [
        ("NotebookEdit", True),
        ("mcp__github__create_issue", True),
        ("mcp__db__run_sql", True),
        ("SomeCustomTool", True),
        ("mcp__github__get_issue", False),
        ("mcp__docs__search", False),
        ("Read", False),
        ("Grep", False),
        ("TaskList", False),
    ],
)
def test_other_tools_change_the_world_unless_known_to_read(tool, changes):
    assert tool_effects.may_change_world(ToolCall(tool, {})) is changes


# --- progress-aware nudges and backstop ----------------------------------------------------------


def test_steady_edit_and_test_work_gets_no_check_in_nudge():
    d = Driver()
    contexts = [c for n in range(80) for c in d.turn(*work(n))["context"]]
    assert contexts == []


def test_productive_unattended_work_is_neither_nudged_nor_paused_by_the_backstop():
    d = Driver()
    for n in range(1, 400):
        result = d.turn(*work(n), text="Tests pass; next file." if n % 20 == 0 else "")
        assert result["context"] == [] and result["paused"] is None, n


def test_the_ceiling_pauses_even_productive_work():
    d = Driver(backstop_ceiling_turns=300)
    for n in range(1, 301):
        result = d.turn(*work(n), text="note" if n % 20 == 0 else "")
        assert (result["paused"] is not None) == (n == 300), n
    assert d.paused["kind"] == "backstop"
    assert "backstop_ceiling_turns" in d.paused["reason"]


def test_the_check_in_nudge_comes_once_progress_stops():
    d = Driver()
    for n in range(10):
        assert d.turn(*work(n))["context"] == []
    fired = [n for n in range(1, 40) if d.turn(idle(n))["context"]]
    assert fired == [25]


def test_the_backstop_pause_waits_for_a_window_without_progress():
    d = Driver()
    paused_at = None
    for n in range(1, 300):
        calls = work(n) if n <= 210 else [idle(n)]
        if d.turn(*calls, text="note" if n % 20 == 0 else "")["paused"]:
            paused_at = n
            break
    # Quiet from turn 211: the request for a summary at 235, and 25 more quiet turns.
    assert paused_at == 210 + 25 + 25


# --- the operator, and the harness speaking on the operator's event -------------------------------


QUEUED_PROMPT = {
    "type": "attachment",
    "uuid": "u-1",
    "attachment": {
        "type": "queued_command",
        "prompt": "how does the SVG handle the font?",
        "commandMode": "prompt",
        "origin": {"kind": "human"},
    },
}
QUEUED_NOTIFICATION = {
    "type": "attachment",
    "uuid": "u-2",
    "attachment": {
        "type": "queued_command",
        "commandMode": "task-notification",
        "prompt": "<task-notification>\n<task-id>a64</task-id>\n<status>completed</status>\n"
        "<summary>Agent finished</summary>\n</task-notification>",
    },
}


def test_queued_commands_are_told_apart_by_who_typed_them():
    assert queued_prompt(QUEUED_PROMPT) == ("how does the SVG handle the font?", True)
    text, typed = queued_prompt(QUEUED_NOTIFICATION) or ("", True)
    assert text.startswith("<task-notification>") and not typed
    assert queued_prompt({"type": "attachment", "attachment": {"type": "todo_reminder"}}) is None


def test_a_prompt_queued_while_the_model_works_is_the_operator():
    d = Driver()
    for n in range(150):
        d.turn(idle(n), text="note" if n % 20 == 0 else "")
    d.turn(idle("q"), queued=[("u-1", "how does the SVG handle the font?", True)])
    assert d.main["turns"] == 1
    d.turn(idle("q2"), queued=[("u-1", "how does the SVG handle the font?", True)])
    assert d.main["turns"] == 2  # the same queued prompt, seen again: acted on once


def test_a_queued_task_notification_is_not_the_operator():
    d = Driver()
    for n in range(30):
        d.turn(idle(n))
    d.turn(idle("n"), queued=[("u-2", QUEUED_NOTIFICATION["attachment"]["prompt"], False)])
    assert d.main["turns"] == 31


@pytest.mark.parametrize(
    "prompt",
    [
        "Stop hook feedback:\n[arcguard] keep going",
        "This session is being continued from a previous conversation that ran out of context.",
        "<task-notification>\n<summary>Stop hook feedback</summary>\n</task-notification>",
    ],
)
def test_prompts_the_harness_made_reset_nothing(prompt):
    d = Driver()
    for n in range(30):
        d.turn(idle(n))
    _, state = decide_posture(d.state, prompt, d.cfg, d.now, session_id="sess", command="arcguard")
    assert state is not None and state["guard"]["tracks"]["main"]["turns"] == 30


# --- waiting is not looping ---------------------------------------------------------------------


POLL = 'sleep 60 && echo "Poll time"'
BOARD_RUNNING = "#1 [completed] Build\n#2 [in_progress] Implement parser (owner: dev)\n"
BOARD_DONE = "#1 [completed] Build\n#2 [completed] Implement parser (owner: dev)\n"


def poll_round(d: Driver, board: str) -> list[dict[str, object]]:
    return [d.turn(bash(POLL, response="Poll time")), d.turn(Call("TaskList", {}, response=board))]


def test_a_teammate_polling_while_work_runs_is_waiting_not_looping():
    d = Driver()
    results = [r for _ in range(6) for r in poll_round(d, BOARD_RUNNING)]
    assert not any(r["denied"] or r["paused"] for r in results)


def test_identical_status_calls_with_nothing_running_are_still_a_loop():
    # The shell poll between them waits, and is bounded by time; the status tool that keeps
    # reporting the same finished board is an ordinary repeat.
    d = Driver()
    results = [r for _ in range(5) for r in poll_round(d, BOARD_DONE)]
    assert d.paused is not None and d.paused["kind"] in ("cycle", "blocked")
    assert not any(r["denied"] for r in results[::2])


def test_waiting_ends_when_the_work_ends():
    d = Driver()
    for _ in range(3):
        poll_round(d, BOARD_RUNNING)
    for _ in range(5):
        poll_round(d, BOARD_DONE)
    assert d.paused is not None


def test_waiting_is_bounded_by_time():
    d = Driver(wait_max_seconds=600)
    rounds = 0
    while d.paused is None and rounds < 20:
        poll_round(d, BOARD_RUNNING)
        d.wait(60)
        rounds += 1
    assert d.paused is not None and 600 // 60 <= rounds < 20


def _launch(d: Driver, command: str, task: str) -> None:
    """`command` started in the background as task `task`."""
    launched = {"stdout": "", "stderr": "", "backgroundTaskId": task}
    d.turn(bash(command, input={"run_in_background": True}, response=launched))


def test_a_background_command_is_waited_on_until_it_finishes():
    d = Driver()
    _launch(d, "go test ./... > out.txt", "b7b")
    running = {
        "retrieval_status": "timeout",
        "task": {"task_id": "b7b", "status": "running", "output": ""},
    }
    for _ in range(6):
        result = d.turn(Call("TaskOutput", {"task_id": "b7b", "block": True}, response=running))
        assert not result["denied"] and result["paused"] is None
    done = {
        "retrieval_status": "success",
        "task": {"task_id": "b7b", "status": "completed", "output": "ok"},
    }
    outcomes = [
        d.turn(Call("TaskOutput", {"task_id": "b7b", "block": True}, response=done))
        for _ in range(4)
    ]
    # The first call still waited; once it reported the end, the usual repeat rule applies.
    assert [bool(o["denied"]) for o in outcomes] == [False, False, False, True]


def test_checking_on_a_long_background_build_is_no_run_of_repeats():
    # Every two minutes for half an hour, a build's progress: its counts move, its shape does
    # not. Without the wait's exemption the 8th check asks and the 12th pauses.
    d = Driver()
    _launch(d, "cmake --build build -j16", "b7f")
    for n in range(1, 16):
        d.wait(120)
        line = f"[{600 * n}/9412] Building CXX object lib/part{n}.cpp.o"
        running = {"retrieval_status": "not_ready", "task": {"status": "running", "output": line}}
        result = d.turn(Call("TaskOutput", {"task_id": "b7f", "block": False}, response=running))
        assert not result["context"] and result["paused"] is None, n


def test_a_result_reported_for_a_call_that_was_denied_changes_nothing():
    # Replaying a recorded session feeds the recorded result of a call arcguard denied; the
    # live session would never have run it, so it is no evidence of a change.
    d = Driver()
    for _ in range(2):
        d.turn(bash("npm test", error="Exit code 1\n1 failing"), read())
    assert d.turn(bash("npm test", error="Exit code 1\n1 failing"))["denied"]
    denied_id = d.main["denied_ids"][-1]
    changes = d.state["guard"].get("change_seq", 0)
    call = ToolCall("Bash", {"command": "npm test"}, denied_id)
    failure = ToolResult(failed=True, error="Exit code 1\n1 failing")
    _, d.state = finished.decide_post_tool(d.state, d.cfg, d.now, call, failure)
    assert d.state["guard"].get("change_seq", 0) == changes
    assert d.turn(read())["denied"]


def test_sleeping_on_an_async_subagent_is_waiting_until_its_notification():
    d = Driver()
    d.turn(
        Call(
            "Agent",
            {"description": "Assess issues", "prompt": "..."},
            response={"isAsync": True, "status": "async_launched", "agentId": "a64"},
        )
    )
    for _ in range(8):
        result = d.turn(bash("sleep 30", response=""))
        assert not result["denied"] and result["paused"] is None
    notification = "<task-notification>\n<task-id>a64</task-id>\n<status>completed</status>"
    d.turn(bash("git status", response="clean"), queued=[("u-9", notification, False)])
    for _ in range(5):
        d.wait(60)
        d.turn(bash("sleep 30", response=""))
    # Nothing runs any more: the same sleep is a poll, bounded by its own time now.
    assert d.paused is None
    for _ in range(40):
        d.wait(60)
        d.turn(bash("sleep 30", response=""))
    assert d.paused is not None and d.paused["kind"] == "poll"


def test_a_notification_of_a_task_already_gone_takes_no_other_task():
    # A status call reported the end and the task left; its notification, naming the task and
    # the call that started it, comes after, and the build still running is still running. One
    # naming only a task id it does not know (kept under its call's id) takes the oldest.
    tasks = {short_id("bbuild1"): 1.0, short_id("toolu_2"): 2.0}
    done = "<task-notification><task-id>bcommit9</task-id><status>completed</status>"
    background.notified(tasks, done + "<tool-use-id>toolu_9</tool-use-id></task-notification>")
    assert list(tasks) == [short_id("bbuild1"), short_id("toolu_2")]
    background.notified(tasks, "<task-notification><task-id>b7</task-id><status>completed")
    assert list(tasks) == [short_id("toolu_2")]


def test_a_monitor_is_running_work_until_its_stream_ends():
    tasks: dict[str, float] = {}
    monitor = {"taskId": "bmon1", "timeoutMs": 3_600_000, "persistent": True}
    tasks[short_id(background.launched_by(monitor, "toolu_1", "Monitor") or "")] = 1.0
    event = "<task-notification><task-id>bmon1</task-id><summary>Monitor event</summary>"
    background.notified(tasks, event + "<event>build: running</event></task-notification>")
    assert list(tasks) == [short_id("bmon1")]
    background.notified(tasks, "<task-notification><task-id>bmon1</task-id><status>completed")
    assert tasks == {}
    # A text reply names the task its notifications name.
    started = "Monitor started (task bmon2, persistent). You will be notified on each event."
    assert background.launched_by(started, "toolu_2") == "bmon2"
