"""A fetch the server answered with an error (5xx) is a failed attempt, though `curl` exits 0:
one request respelt is one failure, another endpoint is another, and a 404 or a redirect is an
answer, not a failure."""

from __future__ import annotations

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import edit

from arcguard.core.loop_guard import served


PAGE = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>"
)
CHECKED = (
    "sudo nginx -t && sudo systemctl reload nginx && curl -sk https://orders.example/api/health"
)


WRITE_OUT = "curl -s -o /dev/null -w '%{http_code} %{time_total}\\n' http://localhost:3000/api/x"
LOCAL = "localhost:3000/api/x"


@pytest.mark.parametrize(
    ("command", "printed", "failure"),
    [
        (CHECKED, f"nginx: syntax is ok\n{PAGE}", "HTTP 502 for orders.example/api/health"),
        (
            "curl -si http://127.0.0.1:3000/api/x?page=2",
            "HTTP/1.1 503 Busy\n",
            f"HTTP 503 for {LOCAL}",
        ),
        (
            "curl -sv http://[::1]:3000/api/x",
            "< HTTP/2 500\n< date: now\n",
            f"HTTP 500 for {LOCAL}",
        ),
        (WRITE_OUT, "502 0.003926", f"HTTP 502 for {LOCAL}"),
        (
            "curl -s -w 'code=%{response_code}' https://a.example/v1",
            "{}\ncode=504",
            "HTTP 504 for a.example/v1",
        ),
        (
            "http GET :8080/health",
            "HTTP/1.1 500 Internal Server Error\n",
            "HTTP 500 for :8080/health",
        ),
    ],
)
def test_a_fetch_answered_with_a_server_error_is_a_failure(command, printed, failure):
    read = served.as_failure(command, printed)
    assert read is not None
    # What the server said first, then the status and the request, tagged in letters.
    said, _, last = read.rpartition("\n")
    assert said == printed.strip() and last.startswith(f"{failure} (")


@pytest.mark.parametrize(
    ("command", "printed"),
    [
        ("curl -siL http://example.test/old", "HTTP/1.1 502 Bad Gateway\nHTTP/1.1 200 OK\n"),
        ("curl -si http://example.test/users/42", "HTTP/1.1 404 Not Found\n"),
        ("curl -s http://example.test/health", '{"status": "down", "code": 503}'),
        ("for p in 1 2 3; do curl -si http://example.test/$p; done", "HTTP/1.1 502 Bad\n"),
        ("cat access.log", "HTTP/1.1 502 Bad Gateway\n"),
        ("curl -s -o /dev/null http://example.test/", "502"),  # no write-out asked: not a status
        ("curl -s https://docs.example/503", "<title>503 Service Unavailable - HTTP Docs</title>"),
        ("curl -si http://example.test/", "HTTP/1.1 \u0665\u0660\u0663 x\n"),  # other digits
        ("curl -si http://example.test/", "HTTP/1.1 \u00b2\u00b2\u00b2 x\n"),
        ("curl -s -w '%{size_download} %{http_code}' -o /dev/null http://example.test/", "523 200"),
        ("curl -s -w '%{http_code}\\n' -o f http://example.test/ && jq length f", "200\n512"),
    ],
)  # fmt: skip
def test_an_answer_a_redirect_or_a_text_that_only_mentions_a_status_is_no_failure(command, printed):
    assert served.as_failure(command, printed) is None


@pytest.mark.parametrize(
    ("command", "printed"),
    [
        ("curl -s -w '\\nHTTP %{http_code}' http://example.test/x", "{}\nHTTP 502"),
        ("curl -s -w 'Status: %{http_code}\\n' -o /dev/null http://example.test/x", "Status: 503"),
        ("curl -s --write-out=code=%{http_code} -o /dev/null http://example.test/x", "code=500"),
    ],
)  # fmt: skip
def test_a_status_written_out_with_a_label_is_read_where_the_format_puts_it(command, printed):
    assert served.as_failure(command, printed) is not None


def _setting(n: int) -> Call:
    old, new = (f"proxy_read_timeout {n}s;", f"proxy_read_timeout {n + 1}s;")
    return edit("/etc/nginx/sites-available/orders", old, new)


def test_a_setting_turned_again_and_again_behind_the_same_server_error_is_a_loop():
    d = Driver()
    worded = paused = 0
    for n in range(1, 10):
        d.turn(_setting(n), text=f"Trying a read timeout of {n + 1} seconds.")
        spelt = CHECKED if n % 2 else CHECKED.replace("-sk", "-sk --http1.1")
        out = d.turn(bash(spelt, f"nginx: syntax is ok\n{PAGE}"), text=f"Still 502 ({n}).")
        worded = worded or (n if out["context"] else 0)
        paused = paused or (n if d.paused is not None else 0)
    assert 0 < worded <= 5 and 0 < paused <= 8


def test_many_endpoints_each_answering_a_server_error_are_findings_not_a_loop():
    d = Driver()
    services = ("orders", "billing", "search", "auth", "mailer", "ledger", "files", "reports")
    for port, name in enumerate(services, start=8081):
        url = f"http://{name}.internal:{port}/healthz"
        out = d.turn(bash(f"curl -s -o /dev/null -w '%{{http_code}}' {url}", "503"), text=name)
        assert not out["context"] and d.paused is None


def test_one_request_under_the_loopbacks_other_names_is_one_failure():
    # Restarts between: each fetch after one is that restart checked, and fails as before.
    spellings = (
        "curl -s localhost:7000/v1/ping",
        "curl -sS http://127.0.0.1:7000/v1/ping",
        "curl --silent 'http://[::1]:7000/v1/ping'",
    )
    d = Driver()
    worded = 0
    for n in range(1, 6):
        d.turn(bash("sudo systemctl restart api", ""), text=f"Restart number {n}.")
        out = d.turn(bash(spellings[n % 3], PAGE), text=f"Checking the ping, try {n}.")
        worded = worded or (n if out["context"] else 0)
    assert worded == 4


def _fetch(path: str, said: str) -> Call:
    printed = f"HTTP/1.1 500 Internal Server Error\n\n{said}"
    return bash(f"curl -si http://localhost:8000{path}", printed)


def test_a_server_error_saying_something_new_after_each_change_is_news():
    # Fixes by command between tries (a migration, an install): each 500 says another thing.
    d = Driver()
    errors = ("relation orders does not exist", "No module named stripe", "column total missing")
    errors += ("KeyError: currency", "connection to redis refused", "template orders.html gone")
    errors += ("ZeroDivisionError in tax", "settings.SECRET_KEY unset")
    for n, error in enumerate(errors):
        d.turn(_fetch("/orders/", error), text=f"Now: {error}.")
        out = d.turn(bash(f"make fix-{n}", f"applied fix {n}"), text=f"Applied fix {n}.")
        assert not out["context"] and d.paused is None


def test_records_each_answering_the_same_server_error_are_findings_not_a_loop():
    d = Driver()
    for n in (101, 2044, 3177, 4099, 5120, 6502, 7713, 8802):
        out = d.turn(_fetch(f"/api/orders/{n}", "Internal Server Error"), text=f"Order {n}.")
        assert not out["context"] and d.paused is None
