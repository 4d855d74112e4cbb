"""One root cause printed other ways is one failure, fixes to code between notwithstanding
(`loop_guard.same_cause`).

A print cut by another filter, or printed by another command, counts as the failure again when
everything it says went wrong was said by the last attempts; a print that tells something new
does not: fewer errors than the same spelling printed last, more tests passing, a package
passing that had not, a line never printed."""

from __future__ import annotations

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import edit
from testing.guard_driver import fail

from arcguard.core.loop_guard import failure_lines
from arcguard.core.loop_guard import failures


REFUSED = (
    'django.db.utils.OperationalError: connection to server at "localhost" (127.0.0.1), port '
    '5432 failed: FATAL:  password authentication failed for user "shop"'
)
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/srv/shop/manage.py", line 22, in <module>\n'
    "    main()\n"
    'psycopg2.OperationalError: connection to server at "localhost" (127.0.0.1), port 5432 '
    'failed: FATAL:  password authentication failed for user "shop"\n\n'
    "The above exception was the direct cause of the following exception:\n\n" + REFUSED
)


def _fix(n: int) -> Call:
    """A fix to code in a file of its own: new content, not a value turned in place."""
    return edit(
        f"/srv/shop/shop/settings/part_{n}.py", f"DB_{n} = env()", f"DB_{n} = env(strict=True)"
    )


def _asked(d: Driver, attempts: list[Call]) -> list[int]:
    """Each attempt after a fix: the attempts that brought a request."""
    found = []
    for n, attempt in enumerate(attempts):
        if n:
            d.turn(_fix(n))
        if d.turn(attempt)["context"]:
            found.append(n + 1)
    return found


def test_a_refused_login_read_through_other_commands_and_filters_is_one_failure():
    attempts = [
        fail("python manage.py migrate", TRACEBACK),
        fail("python manage.py migrate 2>&1 | tail -1", REFUSED),
        fail("python manage.py migrate --plan", TRACEBACK),
        fail("python manage.py check --database default 2>&1 | tail -1", REFUSED),
    ]
    assert _asked(Driver(), attempts) == [4]


def test_a_port_that_failed_is_no_count_of_failures():
    assert failure_lines.read([REFUSED.lower()]).tally == ""
    assert failure_lines.read(["==== 2 failed, 40 passed in 3.1s ===="]).tally == "2"
    assert failure_lines.read(["==== 2 failed, 40 passed in 3.1s ===="]).passes == 40


MANIFESTS = {
    "api": 'strict decoding error: unknown field "spec.template.spec.containers[0].envFrom"',
    "worker": 'strict decoding error: unknown field "spec.template.spec.containers[0].resource"',
    "ingress": "spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified",
    "cron": 'spec.schedule: Invalid value: "0 0 * * 8": day of week out of range for the schedule',
    "hpa": 'strict decoding error: unknown field "spec.targetCPUUtilizationPercentage"',
    "pdb": "spec: Invalid value: minAvailable and maxUnavailable cannot be both set at once",
    "svc": "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
}
SPELLINGS = (
    "kubectl apply --dry-run=server -f k8s/",
    "kubectl apply --dry-run=server -f k8s/ 2>&1 | tail -20",
    "kubectl apply -f k8s/ --dry-run=server",
)


def test_manifests_fixed_one_error_at_a_time_through_other_spellings_are_progress():
    # Each run prints one error fewer; the spellings take turns, so each print is one a filter
    # might have cut, but the same spelling printed more the last time it ran.
    d = Driver()
    names = list(MANIFESTS)
    for n in range(len(names)):
        if n:
            d.turn(edit(f"/srv/k8s/{names[n - 1]}.yaml", "bad: x", "good: x"))
        errors = "\n".join(
            f'Error from server (Invalid): error when creating "k8s/{name}.yaml": {MANIFESTS[name]}'
            for name in names[n:]
        )
        assert not d.turn(fail(SPELLINGS[n % len(SPELLINGS)], errors))["context"], n
    assert d.paused is None


LEGACY = (
    'E   psycopg2.OperationalError: connection to server at "reports.internal" (10.2.0.7), '
    "port 5432 failed: Connection refused\n"
    "FAILED tests/test_export.py::test_export_nightly - psycopg2.OperationalError: connection "
    'to server at "reports.internal" (10.2.0.7), port 5432 failed: Connection refused'
)


def test_an_old_failure_beside_tests_passing_one_more_each_run_is_work_moving_on():
    # A feature built test by test beside a test that needs a database this machine lacks.
    spellings = ("pytest -q", "pytest -q 2>&1 | tail -3", "python -m pytest tests/")
    d = Driver()
    for n in range(7):
        if n:
            d.turn(
                edit("/srv/shop/app/discounts.py", f"# rule {n}", f"def rule_{n}(c):\n    return c")
            )
        out = f"{LEGACY}\n==== 1 failed, {40 + n} passed in 2.2s ===="
        assert not d.turn(fail(spellings[n % 3], out))["context"], n


def test_a_package_passing_that_had_not_is_news_beside_an_old_failure():
    legacy = (
        "--- FAIL: TestLimiter (0.00s)\n"
        "    limiter_test.go:21: dial tcp 127.0.0.1:6379: connect: connection refused by redis\n"
        "FAIL\tgithub.com/acme/platform/legacy/ratelimit\t0.011s"
    )
    d = Driver()
    for n in range(6):
        if n:
            d.turn(edit("/srv/platform/quota/quota.go", f"// step {n}", f"func step{n}() {{}}"))
        passing = "\n".join(f"--- PASS: TestQuotaStep{k}" for k in range(1, n + 1))
        command = "go test ./... 2>&1 | tail -12" if n % 2 else "go test ./..."
        assert not d.turn(fail(command, f"{passing}\n{legacy}"))["context"], n


def _duplicate_column(file: str, column_type: str) -> str:
    """alembic applying a migration to a table that already has its column: the frame names
    the migration's file, and SQLAlchemy echoes the statement after the error."""
    return (
        "INFO  [alembic.runtime.migration] Running upgrade b71c04e9a2f3 -> head\n"
        "Traceback (most recent call last):\n"
        f'  File "/srv/api/migrations/versions/{file}.py", line 22, in upgrade\n'
        "    op.add_column('projects', sa.Column('archived_at', nullable=True))\n"
        "sqlalchemy.exc.ProgrammingError: (psycopg.errors.DuplicateColumn) column "
        '"archived_at" of relation "projects" already exists\n'
        f"[SQL: ALTER TABLE projects ADD COLUMN archived_at {column_type}]\n"
        "(Background on this error at: https://sqlalche.me/e/20/f405)"
    )


def test_a_statement_the_fixes_rewrite_in_the_failure_s_echo_is_the_same_failure():
    # Each migration rewritten (a new revision file, then another column type), and every
    # upgrade fails on the column that is already there: the statement echoed back after the
    # error shows the fix, not another failure.
    tries = [
        ("3c9e_add_archived_at", "TIMESTAMP WITH TIME ZONE"),
        ("8a4d_add_archived_at", "TIMESTAMP WITH TIME ZONE"),
        ("8a4d_add_archived_at", "TIMESTAMP WITHOUT TIME ZONE"),
        ("c5f0_projects_archived_at", "TIMESTAMP WITH TIME ZONE"),
    ]
    attempts = [fail("alembic upgrade head", _duplicate_column(*t)) for t in tries]
    assert _asked(Driver(), attempts) == [4]


def _duplicate_key(email: str) -> str:
    return (
        'psql:import.sql:12: ERROR:  duplicate key value violates unique constraint "users_email'
        f'_key"\nDETAIL:  Key (email)=({email}) already exists.\nCONTEXT:  COPY users, line 12\n'
    )


def test_the_record_a_failure_names_in_its_detail_is_not_an_echo():
    # Each duplicate taken out of the data, and the import stops on the next one: the work
    # moving through the records, not the same failure.
    d, asked = Driver(), []
    emails = [f"{name}@example.com" for name in ("ann", "bob", "cy", "dee", "eve", "fay", "gus")]
    for n, email in enumerate(emails):
        if n:
            d.turn(edit("/srv/api/data/users.csv", f"{emails[n - 1]},dup\n", ""))
        if d.turn(fail("psql -f import.sql", _duplicate_key(email)))["context"]:
            asked.append(n + 1)
    assert asked == []


def _quota(family: str) -> str:
    """terraform refused a GPU quota, quoting the line of the file fixed that asked for it."""
    return (
        "google_container_node_pool.gpu_t4: Creating...\n\u2577\n"
        "\u2502 Error: error creating NodePool: googleapi: Error 403: Insufficient regional quota"
        " to satisfy request: resource \"NVIDIA_T4_GPUS\": request requires '1.0' and is short"
        " '1.0'. project has a quota of '0.0' with '0.0' available.\n\u2502 \n"
        '\u2502   on node_pools.tf line 31, in resource "google_container_node_pool":\n'
        f'\u2502   31:   machine_family = "{family}" # the pool\'s machines\n\u2575'
    )


def test_the_source_a_failure_quotes_at_its_line_is_no_cause():
    # Each fix turns the pool's machines, which the quote shows: the code shown is what the
    # fixes rewrite; the refused quota is what failed.
    families = ("standard", "highmem", "highcpu", "megamem")
    attempts = [fail("terraform apply -auto-approve", _quota(f)) for f in families]
    assert _asked(Driver(), attempts) == [4]


def test_the_values_a_failed_statement_was_given_name_the_record_it_failed_on():
    # Rows rejected one after another by the same constraint: the statement echoed is the
    # same, the parameters name another row each time (news, as a detail's key is).
    def rejected(name: str, tail: str = "") -> str:
        return (
            "sqlalchemy.exc.DataError: (psycopg2.errors.StringDataRightTruncation) value too "
            "long for type character varying(40)\n[SQL: INSERT INTO customers (name) VALUES "
            f"(%s){tail}]\n[parameters: ('{name} Holdings International',)]"
        )

    call = fail("python load.py", "")
    names = ("Northwind Trading", "Contoso Pharmaceuticals")
    first, second = (set(failures.cause_pieces(rejected(n), call)) for n in names)
    assert first != second
    # The statement's tail is what a fix rewrites; its head says what it acts on.
    rewritten = rejected(names[0], " ON CONFLICT (name) DO NOTHING")
    assert set(failures.cause_pieces(rewritten, call)) == first


def _syntax_error(table: str, columns: str) -> str:
    """A seed script's next INSERT, stopped by the same syntax error: the echo names its table."""
    return (
        'sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) near ")": syntax error\n'
        f"[SQL: INSERT INTO {table} ({columns},) VALUES ('eu', 'Europe', 2)]\n"
        "(Background on this error at: https://sqlalche.me/e/20/e3q8)"
    )


def test_a_statement_on_another_table_each_run_is_work_moving_on():
    # Each fix mends one INSERT and the script stops at the next: the statements' heads name
    # another table each time.
    tables = ("plans", "regions", "tax_rates", "feature_flags", "currencies", "shipping_zones")
    attempts = [fail("python scripts/seed.py", _syntax_error(t, "code, name")) for t in tables]
    assert _asked(Driver(), attempts) == []


def test_a_short_statement_on_another_table_each_run_is_work_moving_on():
    # SQLite's message never names the table; only the echoed `DELETE FROM ...`, too short to
    # read as a cause otherwise, says the reset moved on to the next one.
    def blocked(table: str) -> str:
        return (
            "sqlalchemy.exc.IntegrityError: (sqlite3.IntegrityError) FOREIGN KEY constraint "
            f"failed\n[SQL: DELETE FROM {table}]\n"
            "(Background on this error at: https://sqlalche.me/e/20/gkpj)"
        )

    tables = ("customers", "products", "categories", "warehouses", "suppliers", "regions")
    attempts = [fail("python scripts/reset_demo_data.py", blocked(t)) for t in tables]
    assert _asked(Driver(), attempts) == []


def test_only_a_statement_s_echo_and_terraform_s_frame_are_quotes():
    # Go's database/sql words its errors `sql: ...`, a Rust error chain numbers its causes,
    # Groovy puts the line number before the error, TypeORM logs each query it starts: what
    # follows is what went wrong, or no statement that writes.
    for line in (
        "    store_test.go:41: sql: expected 5 destination arguments in Scan, not 4",
        "    1: unknown field `max_conns`, expected one of `url`, `pool_size`",
        "release.groovy: 14: The current scope already contains a variable of the name tag",
        "query: START TRANSACTION",
        "ERROR: update failed: the record was changed by another request",
    ):
        assert failure_lines.unquoted(line) == line
    assert failure_lines.unquoted('\u2502   31: resource "google_container_node_pool" {') == ""
    assert failure_lines.unquoted("7:    node_locations = var.node_zones") == ""
    echo = "E       [SQL: ALTER TABLE projects ADD COLUMN archived_at TIMESTAMP WITH TIME ZONE]"
    assert failure_lines.unquoted(echo) == "E       [SQL: ALTER TABLE projects ADD archived_at"
    echo = '  query: \'ALTER TABLE "projects" ADD "archived_at" TIMESTAMP\','
    assert failure_lines.unquoted(echo) == '  query: \'ALTER TABLE "projects" ADD "archived_at"'


TYPES = ("TIMESTAMP WITH TIME ZONE", "TIMESTAMP WITHOUT TIME ZONE", "TIMESTAMPTZ", "TIMESTAMP(3)")
DUPLICATE = 'column "archived_at" of relation "projects" already exists'


def _laravel(column_type: str) -> str:
    return (
        "  2024_05_01_120000_add_archived_at_to_projects_table ........... FAIL\n"
        "   Illuminate\\Database\\QueryException\n"
        f"  SQLSTATE[42701]: Duplicate column: 7 ERROR:  {DUPLICATE} (Connection: pgsql, SQL: "
        f'alter table "projects" add column "archived_at" {column_type.lower()} null)\n'
    )


def _typeorm(column_type: str) -> str:
    statement = f'ALTER TABLE "projects" ADD "archived_at" {column_type}'
    return (
        f"query: {statement}\nquery failed: {statement}\nerror: error: {DUPLICATE}\n"
        f"QueryFailedError: {DUPLICATE}\n  query: '{statement}',\n"
    )


def _server_log(column_type: str) -> str:
    stamp = "2024-05-01 12:00:07.412 UTC [4242]"
    return (
        f"{stamp} ERROR:  {DUPLICATE}\n"
        f"{stamp} STATEMENT:  ALTER TABLE projects ADD COLUMN archived_at {column_type}\n"
    )


@pytest.mark.parametrize(
    ("command", "printed"),
    [
        ("php artisan migrate", _laravel),
        ("npx typeorm migration:run -d dist/data-source.js", _typeorm),
        ("make migrate || tail -2 /var/log/postgresql/postgresql-16-main.log", _server_log),
    ],
    ids=["laravel", "typeorm", "server log"],
)
def test_a_statement_any_database_layer_echoes_is_read_by_its_head(command, printed):
    # The migration rewritten with another column type each time, and every run fails on the
    # column already there: however the layer echoes the statement, the fix shows in it.
    attempts = [fail(command, printed(column_type)) for column_type in TYPES]
    assert _asked(Driver(), attempts) == [4]


def test_a_statement_another_layer_echoes_on_another_table_is_work_moving_on():
    # Laravel's seeder mends one insert per run and stops at the next table's.
    def stopped(table: str) -> str:
        return (
            "   Illuminate\\Database\\QueryException\n  SQLSTATE[23502]: Not null violation: 7 "
            '"code" violates not-null constraint (Connection: pgsql, SQL: insert into '
            f'"{table}" ("name") values (Default))\n'
        )

    tables = ("plans", "regions", "tax_rates", "feature_flags", "currencies", "shipping_zones")
    attempts = [fail("php artisan db:seed", stopped(table)) for table in tables]
    assert _asked(Driver(), attempts) == []


ROLES = ("lambda_exec", "ecs_task", "api_task", "codebuild", "sfn_ingest", "events_sfn", "glue_job")


def _undeclared(roles: tuple[str, ...]) -> str:
    """terraform validate: one alike block for each reference to a role moved into a module."""
    return "".join(
        "\u2577\n\u2502 Error: Reference to undeclared resource\n\u2502 \n"
        f'\u2502   on {role}.tf line 12, in resource "aws_lambda_function" "{role}":\n'
        f"\u2502   12:   role = aws_iam_role.{role}.arn\n\u2502 \n"
        f'\u2502 A managed resource "aws_iam_role" "{role}" has not been declared in the root '
        "module.\n\u2575\n"
        for role in roles
    )


def test_alike_errors_burnt_down_one_fix_at_a_time_are_work_moving_on():
    # Every block opens with the same error; each fix takes one away. Compared with its own
    # spelling's last print, each attempt prints that error fewer times: the fixes' work.
    d, asked = Driver(), []
    spellings = ("terraform validate", "terraform validate -no-color 2>&1 | head -80")
    for n, role in enumerate(ROLES):
        if n:
            old = f"role = aws_iam_role.{ROLES[n - 1]}.arn"
            d.turn(edit(f"/srv/infra/{ROLES[n - 1]}.tf", old, f"role = module.iam.{role}_arn"))
        if d.turn(fail(spellings[n % 2], _undeclared(ROLES[n:])))["context"] or d.paused:
            asked.append(n + 1)
    assert asked == []
