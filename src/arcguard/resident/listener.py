"""The resident server's loopback listener: one event loop reads every connection, and only a
complete, authenticated request ever reaches a thread.

Why an event loop and not a thread per connection: a thread (or a slot) per connection is a
resource any local user can fill by opening connections and sending a byte a second. Here a
connection that is still sending costs a coroutine, its whole request (headers and body) must
arrive within one deadline counted from the moment it was accepted, and when too many are
still sending, the oldest is dropped to make room. A hook request arrives at once, so it is
read at once whatever the others do.
"""

from __future__ import annotations

import asyncio
import collections

from arcguard.errors import ArcguardError
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Awaitable
    from collections.abc import Callable

# The whole request, from accept to the last byte of its body, within this (Claude Code
# writes a hook's request at once; anything slower is not a hook).
REQUEST_DEADLINE_S = 1.0
# Connections still sending their request at once; past this, the oldest is dropped.
MAX_PENDING = 256
MAX_HEAD = 16 * 1024
REASONS = {200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 413: "Too Large"}


@value
class Request:
    """A request's line and headers (names lower-cased); the body is read only on `read_body`."""

    method: str
    path: str
    headers: dict[str, str]


@value
class Reply:
    status: int
    body: bytes = b""


if TYPE_CHECKING:
    # What the server does with a request: given its head and a way to read its body (within
    # the connection's deadline; raises TimeoutError past it), the reply.
    Respond = Callable[[Request, Callable[[int], Awaitable[bytes]]], Awaitable[Reply]]


class BadRequest(ArcguardError, ValueError):
    """Not an HTTP request this server reads."""


def parse_head(head: bytes) -> Request:
    """The request line and headers of `head` (up to and including the blank line)."""
    try:
        text = head.decode("latin-1")
    except UnicodeDecodeError:  # pragma: no cover - latin-1 decodes every byte
        raise BadRequest("undecodable") from None
    line, *rest = text.split("\r\n")
    words = line.split(" ")
    if len(words) != 3 or not words[2].startswith("HTTP/1."):
        raise BadRequest("not an HTTP/1 request line")
    headers: dict[str, str] = {}
    for field in rest:
        if not field:
            continue
        name, colon, content = field.partition(":")
        if not colon or not name or name != name.strip():
            raise BadRequest("malformed header")
        headers[name.lower()] = content.strip()
    return Request(words[0], words[1], headers)


def encode(reply: Reply) -> bytes:
    head = (
        f"HTTP/1.1 {reply.status} {REASONS.get(reply.status, 'Error')}\r\n"
        "Server: arcguard\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(reply.body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode("ascii") + reply.body


@value
class Listener:
    """Accepts connections and hands each complete request to `respond`."""

    respond: Respond
    pending: collections.OrderedDict[int, asyncio.Task[None]]

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        key = id(task)
        while len(self.pending) >= MAX_PENDING:
            self.pending.popitem(last=False)[1].cancel()
        self.pending[key] = task
        try:
            await self._serve_one(reader, writer)
        except (asyncio.CancelledError, OSError, ConnectionError):
            pass
        finally:
            self.pending.pop(key, None)
            writer.close()

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + REQUEST_DEADLINE_S

        async def within(step: Awaitable[bytes]) -> bytes:
            return await asyncio.wait_for(step, max(0.0, deadline - loop.time()))

        try:
            head = await within(reader.readuntil(b"\r\n\r\n"))
            request = parse_head(head)
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            return  # too slow, too long or gone: closed unanswered
        except BadRequest:
            writer.write(encode(Reply(400)))
            await writer.drain()
            return

        async def read_body(length: int) -> bytes:
            return await within(reader.readexactly(length))

        # Answered: no longer a connection that is still sending, and never dropped for one.
        self.pending.pop(id(asyncio.current_task()), None)
        try:
            reply = await self.respond(request, read_body)
        except (TimeoutError, asyncio.IncompleteReadError):
            return
        writer.write(encode(reply))
        await writer.drain()


async def listen(
    host: str,
    port: int,
    respond: Respond,
) -> asyncio.Server:
    listener = Listener(respond, collections.OrderedDict())
    return await asyncio.start_server(
        listener.connection, host, port, limit=MAX_HEAD, backlog=128, reuse_address=True
    )
