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
    assert served.as_failure(command, printed) == failure


@pytest.mark.parametrize(
    ("command", "printed"),
    [
        ("curl -siL http://example.test/old", "HTTP/1.1 502 Bad Gateway\nHTTP/1.1 200 OK\n"),
        ("curl -si http://example.test/users/42", "HTTP/1.1 404 Not Found\n"),
        ("curl -s http://example.test/health", '{"status": "down", "code": 503}'),
        ("for p in 1 2 3; do curl -si http://example.test/$p; done", "HTTP/1.1 502 Bad\n"),
        ("cat access.log", "HTTP/1.1 502 Bad Gateway\n"),
        ("curl -s -o /dev/null http://example.test/", "502"),  # no write-out asked: not a status
    ],
)  # fmt: skip
def test_an_answer_a_redirect_or_a_text_that_only_mentions_a_status_is_no_failure(command, printed):
    assert served.as_failure(command, printed) is None


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
