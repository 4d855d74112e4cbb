"""A scripted stand-in for the Anthropic Messages API, for end-to-end tests.

The real Claude Code CLI is pointed at this server (``ANTHROPIC_BASE_URL``) and
receives, turn by turn, the assistant messages a test has scripted. Standard
library only: ``http.server`` on 127.0.0.1 with an ephemeral port, served from
a background thread.

Scripting
---------
A script is a list of turns. Build them with the helpers::

    text("All done.")                              # a text block
    thinking("Let me look.")                       # a thinking block (+ signature)
    tool_use("Bash", {"command": "echo hi"})       # a tool call, id generated
    turn(thinking("..."), text("..."), tool_use(...))  # several blocks, one turn
    rate_limit()                                   # answer HTTP 429 for this turn

A bare block or a plain string in the script is shorthand for a one-block turn.
The stop reason is ``tool_use`` when the turn holds a tool call, else
``end_turn`` (``turn(..., stop_reason=...)`` overrides it).

``rate_limit(count=n)`` answers ``n`` consecutive main requests with a 429
(``retry-after: 0``). The CLI retries a 429 itself: with
``CLAUDE_CODE_MAX_RETRIES=1`` one logical turn costs two requests, so a
terminal rate limit needs ``count=2``.

When the script is exhausted, every further main request is answered with
``text("Done.")`` and ``end_turn``; ``fallback_count`` records how often that
happened, so a test can tell "the session asked for more turns than scripted".

Which requests advance the script
---------------------------------
Observed with Claude Code 2.1.328 in ``-p`` mode (with
``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1``): every request was a model call
of the agent loop, ``POST /v1/messages?beta=true`` with ``"stream": true``, a
system prompt containing "You are a Claude agent, ..." and the full ``tools``
list; no count_tokens, title or quota calls were seen. Without that variable the
CLI adds one ``HEAD /api/hello``. The binary does contain side calls through the
same endpoint (e.g. a quota probe: ``max_tokens: 1``, user text ``"quota"``,
non-streaming, no tools) and ``/v1/messages/count_tokens`` exists in the API, so
the server is prepared for them.

The rule used here: a ``POST /v1/messages`` is a *main* request (counted in
``requests``, answered from the script) when it streams and its system prompt
carries an agent identity line ("You are a Claude agent", or the older
"You are Claude Code"), with or without a ``tools`` list (runs with
``--tools ""`` send none). A tools list alone does not make a request a turn of
the conversation: a side task may lend the model tools under a system prompt of
its own, and a non-streamed call is never the agent loop's. Nor is a streamed call under the
agent identity whose tools are all foreign to the agent (Claude Code sometimes asks the model,
under that identity, for a structured answer through a single lent tool such as one taking
``findings``): a conversation turn lends at least one of the agent's own tools, when it lends
any. Calls made by a subagent
(``Agent`` tool) look like main calls but carry an ``x-claude-code-agent-id``
header; they are answered from a separate ``subagent_script`` (shared by all
subagents, in arrival order; ``text("Done.")`` once it runs out) and recorded
in ``subagent_requests``, so the parent's script and request count stay
deterministic while a background subagent runs.
Everything else on ``/v1/messages`` is *auxiliary*: recorded in
``aux_requests`` and answered with a short canned message (streamed or not, as
asked) without touching the script. ``count_tokens`` gets a token estimate.
Any other path gets a 404 JSON error. Pass ``is_main=`` to override the rule.

Every request is recorded (and, for a model call, given its scripted turn) when it
arrives, before any of its answer is sent: once a client holds an answer, its request
is in ``log``, even if the server is stopped right after.
"""

from __future__ import annotations

import gzip
import http.server
import itertools
import json
import threading
import uuid
import zlib
from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from typing import Any


__all__ = [
    "Recorded",
    "ScriptedAPI",
    "Turn",
    "api_error",
    "is_main_request",
    "rate_limit",
    "text",
    "thinking",
    "tool_use",
    "turn",
]

Block = dict[str, Any]

_ids = itertools.count(1)
_id_lock = threading.Lock()

AGENT_IDENTITY_MARKERS = ("You are a Claude agent", "You are Claude Code")
# Tools every agent conversation in these tests is lent; a side task lends its own instead.
AGENT_TOOLS = frozenset({"Bash", "Read", "Edit", "Write", "Glob", "Grep", "Agent", "Task"})


def _new_id(prefix: str) -> str:
    with _id_lock:
        n = next(_ids)
    return f"{prefix}_{n:04d}{uuid.uuid4().hex[:20]}"


# --------------------------------------------------------------------------- script helpers


@dataclass(frozen=True)
class Turn:
    """One scripted answer: either an assistant message or an HTTP error."""

    blocks: tuple[Block, ...] = ()
    stop_reason: str | None = None
    status: int = 200
    error_type: str = ""
    error_message: str = ""
    headers: tuple[tuple[str, str], ...] = ()

    @property
    def is_error(self) -> bool:
        return self.status != 200

    def resolved_stop_reason(self) -> str:
        if self.stop_reason:
            return self.stop_reason
        if any(b["type"] == "tool_use" for b in self.blocks):
            return "tool_use"
        return "end_turn"


def text(value: str) -> Block:
    """A text content block."""
    return {"type": "text", "text": value}


def thinking(value: str, signature: str | None = None) -> Block:
    """A thinking content block (streamed as thinking_delta + signature_delta)."""
    return {
        "type": "thinking",
        "thinking": value,
        "signature": signature or "sig-" + uuid.uuid4().hex,
    }


def tool_use(name: str, input: dict[str, Any] | None = None, id: str | None = None) -> Block:
    """A tool_use content block; ``id`` defaults to a fresh unique ``toolu_...`` id."""
    return {
        "type": "tool_use",
        "id": id or _new_id("toolu"),
        "name": name,
        "input": dict(input or {}),
    }


def turn(*blocks: Block | str, stop_reason: str | None = None) -> Turn:
    """Combine blocks (strings become text blocks) into one assistant turn."""
    if not blocks:
        raise ValueError("a turn needs at least one block")
    return Turn(
        blocks=tuple(text(b) if isinstance(b, str) else b for b in blocks),
        stop_reason=stop_reason,
    )


def api_error(
    status: int,
    error_type: str,
    message: str,
    *,
    headers: dict[str, str] | None = None,
) -> Turn:
    """An HTTP error answer with the API's JSON error body."""
    return Turn(
        status=status,
        error_type=error_type,
        error_message=message,
        headers=tuple((headers or {}).items()),
    )


def rate_limit(
    count: int = 1, message: str = "Number of requests has exceeded your rate limit."
) -> list[Turn]:
    """``count`` consecutive HTTP 429 answers (``retry-after: 0``).

    Returns a list; a script accepts nested lists and flattens them.
    """
    err = api_error(429, "rate_limit_error", message, headers={"retry-after": "0"})
    return [err] * count


ScriptItem = Turn | Block | str | list[Any] | tuple[Any, ...]


def _flatten(items: Iterable[ScriptItem]) -> list[Turn]:
    out: list[Turn] = []
    for item in items:
        if isinstance(item, Turn):
            out.append(item)
        elif isinstance(item, str | dict):
            out.append(turn(item))
        elif isinstance(item, list | tuple):
            out.extend(_flatten(item))
        else:
            raise TypeError(f"not a script item: {item!r}")
    return out


# --------------------------------------------------------------------------- classification


def _system_text(body: dict[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(b.get("text", "") for b in system if isinstance(b, dict))
    return ""


def is_main_request(body: Any) -> bool:
    """Default rule: does this /v1/messages body belong to the agent loop?"""
    if not isinstance(body, dict) or not body.get("stream"):
        return False
    system = _system_text(body)
    if not any(marker in system for marker in AGENT_IDENTITY_MARKERS):
        return False
    tools = body.get("tools")
    if not isinstance(tools, list) or not tools:
        return True  # runs with `--tools ""` lend none
    return any(isinstance(t, dict) and t.get("name") in AGENT_TOOLS for t in tools)


# --------------------------------------------------------------------------- server


@dataclass
class Recorded:
    """One request as received, whatever its kind."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    kind: str  # "main", "subagent", "aux", "count_tokens", "other"
    answer: str = ""  # "script[3]", "subagent_script[0]", "fallback", "aux", "404", ...


@dataclass
class _Queue:
    turns: list[Turn]
    position: int = 0
    fallback_count: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)

    def take(self, body: dict[str, Any], fallback: Turn) -> tuple[Turn, int | None]:
        self.requests.append(body)
        if self.position < len(self.turns):
            self.position += 1
            return self.turns[self.position - 1], self.position - 1
        self.fallback_count += 1
        return fallback, None


@dataclass
class _State:
    main: _Queue
    subagent: _Queue
    aux_requests: list[Recorded] = field(default_factory=list)
    log: list[Recorded] = field(default_factory=list)


class ScriptedAPI:
    """Serve scripted assistant turns to the Claude Code CLI.

    Use as a context manager::

        with ScriptedAPI([tool_use("Bash", {"command": "echo hi"}), text("ok")]) as api:
            env["ANTHROPIC_BASE_URL"] = api.base_url
            ...
        assert len(api.requests) == 2

    Attributes (safe to read after the CLI has exited):

    - ``requests``: parsed bodies of the main requests, in order (one per model call)
    - ``aux_requests``: auxiliary requests (see the module docstring), as ``Recorded``
    - ``log``: every request received, as ``Recorded``
    - ``fallback_count``: main requests answered after the script ran out
    - ``subagent_requests`` / ``subagent_fallback_count``: the same for subagent calls
    """

    def __init__(
        self,
        script: Iterable[ScriptItem] = (),
        *,
        subagent_script: Iterable[ScriptItem] = (),
        is_main: Callable[[Any], bool] = is_main_request,
        fallback: Turn | None = None,
        model: str | None = None,
    ) -> None:
        self._state = _State(
            main=_Queue(turns=_flatten(script)),
            subagent=_Queue(turns=_flatten(subagent_script)),
        )
        self._lock = threading.Lock()
        self._is_main = is_main
        self._conversation_tools: frozenset[str] | None = None
        self._fallback = fallback or turn(text("Done."))
        self._model = model
        self._server: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> ScriptedAPI:
        handler = _make_handler(self)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, args=(0.05,), name="scripted-api", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> ScriptedAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ inspection

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("server not started")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._state.main.requests)

    @property
    def subagent_requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._state.subagent.requests)

    @property
    def aux_requests(self) -> list[Recorded]:
        with self._lock:
            return list(self._state.aux_requests)

    @property
    def log(self) -> list[Recorded]:
        with self._lock:
            return list(self._state.log)

    @property
    def fallback_count(self) -> int:
        with self._lock:
            return self._state.main.fallback_count

    @property
    def subagent_fallback_count(self) -> int:
        with self._lock:
            return self._state.subagent.fallback_count

    @property
    def remaining(self) -> int:
        """Main-script turns not yet served."""
        with self._lock:
            return len(self._state.main.turns) - self._state.main.position

    def add(self, *items: ScriptItem) -> None:
        """Append turns to the main script (allowed while the server runs)."""
        new = _flatten(items)
        with self._lock:
            self._state.main.turns.extend(new)

    def tool_results(self, index: int = -1) -> list[Block]:
        """The tool_result blocks of the newest user message of main request ``index``."""
        messages = self.requests[index].get("messages", [])
        for message in reversed(messages):
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, list):
                found = [
                    b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
                ]
                if found:
                    return found
            return []
        return []

    def request_text(self, index: int = -1) -> str:
        """All text of the messages of main request ``index`` (for substring checks)."""
        return _all_text(self.requests[index].get("messages", []))

    # ------------------------------------------------------------------ dispatch

    def _admit(self, recorded: Recorded) -> Turn | None:
        """Record a request on arrival and, for a model call, take its scripted answer.

        Both happen under one lock before any byte of the answer is sent: a client that has
        its answer (the CLI, or a test's own request) always finds the request in ``log``,
        and ``log`` lists requests in the order their answers were chosen.
        """
        with self._lock:
            self._state.log.append(recorded)
            if recorded.kind == "aux":
                self._state.aux_requests.append(recorded)
            if recorded.kind not in ("main", "subagent"):
                return None
            subagent = recorded.kind == "subagent"
            queue = self._state.subagent if subagent else self._state.main
            chosen, index = queue.take(recorded.body, self._fallback)
            name = "subagent_script" if subagent else "script"
            recorded.answer = "fallback" if index is None else f"{name}[{index}]"
            return chosen

    def _classify(self, path: str, body: Any, headers: dict[str, str]) -> str:
        if path == "/v1/messages/count_tokens":
            return "count_tokens"
        if path != "/v1/messages" or not isinstance(body, dict):
            return "other"
        if not self._is_main(body) or self._lends_a_tool_of_its_own(body):
            return "aux"
        return "subagent" if headers.get("x-claude-code-agent-id") else "main"

    def _lends_a_tool_of_its_own(self, body: dict[str, Any]) -> bool:
        """A side task under the agent identity may lend the agent's tools plus one of its own
        (a structured answer such as a `findings` report, seen now and then in long runs):
        the conversation's tools are those its first turn lent, and a request that adds one
        that is not an agent tool is not a turn of it."""
        tools = body.get("tools")
        names = frozenset(
            str(t.get("name")) for t in tools or [] if isinstance(t, dict) and t.get("name")
        )
        with self._lock:
            if self._conversation_tools is None:
                self._conversation_tools = names
                return False
            return bool(names - self._conversation_tools - AGENT_TOOLS)


def _all_text(value: Any) -> str:
    parts: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, str):
            parts.append(v)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for key in ("text", "content", "thinking"):
                if key in v:
                    walk(v[key])

    walk(value)
    return "\n".join(parts)


def _message_json(turn_: Turn, model: str) -> dict[str, Any]:
    return {
        "id": _new_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [dict(b) for b in turn_.blocks],
        "stop_reason": turn_.resolved_stop_reason(),
        "stop_sequence": None,
        "usage": _usage(output_tokens=max(1, len(turn_.blocks) * 5)),
    }


def _usage(output_tokens: int = 1) -> dict[str, Any]:
    return {
        "input_tokens": 10,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
        "service_tier": "standard",
    }


def _sse_events(turn_: Turn, model: str) -> Iterable[dict[str, Any]]:
    """The stream events of one turn; each event's SSE name is its ``type``."""
    message = _message_json(turn_, model)
    yield {
        "type": "message_start",
        "message": dict(message, content=[], stop_reason=None, usage=_usage(1)),
    }
    for index, block in enumerate(turn_.blocks):
        kind = block["type"]
        if kind == "text":
            first: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": block["text"]}]
        elif kind == "thinking":
            first = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": block["thinking"]},
                {"type": "signature_delta", "signature": block["signature"]},
            ]
        elif kind == "tool_use":
            first = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            payload = json.dumps(block["input"])
            cut = len(payload) // 2  # two pieces, as a real stream splits tool input
            deltas = [
                {"type": "input_json_delta", "partial_json": piece}
                for piece in (payload[:cut], payload[cut:])
            ]
        else:
            raise ValueError(f"unsupported block type in script: {kind!r}")
        yield {"type": "content_block_start", "index": index, "content_block": first}
        for delta in deltas:
            yield {"type": "content_block_delta", "index": index, "delta": delta}
        yield {"type": "content_block_stop", "index": index}
    yield {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
        "usage": {"output_tokens": message["usage"]["output_tokens"]},
    }
    yield {"type": "message_stop"}


def _make_handler(api: ScriptedAPI) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "scripted-api"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:
            pass

        # -------------------------------------------------------------- io helpers

        def _read_body(self) -> Any:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            encoding = (self.headers.get("content-encoding") or "").lower()
            if encoding == "gzip":
                raw = gzip.decompress(raw)
            elif encoding == "deflate":
                raw = zlib.decompress(raw)
            if not raw:
                return None
            try:
                return json.loads(raw)
            except ValueError:
                return raw.decode("utf-8", "replace")

        def _send_json(
            self, status: int, payload: Any, headers: Iterable[tuple[str, str]] = ()
        ) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("request-id", _new_id("req"))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def _send_turn(self, turn_: Turn, body: dict[str, Any]) -> None:
            if turn_.is_error:
                self._send_json(
                    turn_.status,
                    {
                        "type": "error",
                        "error": {"type": turn_.error_type, "message": turn_.error_message},
                    },
                    turn_.headers,
                )
                return
            model = api._model or str(body.get("model") or "claude-scripted")
            if not body.get("stream"):
                self._send_json(200, _message_json(turn_, model))
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream; charset=utf-8")
            self.send_header("cache-control", "no-cache")
            self.send_header("request-id", _new_id("req"))
            self.send_header("connection", "close")
            self.end_headers()
            self.close_connection = True
            for event in _sse_events(turn_, model):
                chunk = f"event: {event['type']}\ndata: {json.dumps(event)}\n\n"
                self.wfile.write(chunk.encode())
            self.wfile.flush()

        def _not_found(self) -> None:
            self._send_json(
                404,
                {
                    "type": "error",
                    "error": {"type": "not_found_error", "message": f"no route: {self.path}"},
                },
            )

        # -------------------------------------------------------------- verbs

        def do_POST(self) -> None:
            body = self._read_body()
            headers = {k.lower(): v for k, v in self.headers.items()}
            path = self.path.split("?", 1)[0].rstrip("/")
            kind = api._classify(path, body, headers)
            answer = {"count_tokens": "count_tokens", "aux": "aux", "other": "404"}.get(kind, "")
            recorded = Recorded("POST", self.path, headers, body, kind, answer)
            scripted = api._admit(recorded)
            if scripted is not None:
                self._send_turn(scripted, body)
            elif kind == "count_tokens":
                size = len(json.dumps(body)) if body is not None else 0
                self._send_json(200, {"input_tokens": max(1, size // 4)})
            elif kind == "aux":
                self._send_turn(turn(text("OK")), body)
            else:
                self._not_found()

        def _other(self) -> None:
            if self.command != "HEAD":
                self._read_body()
            headers = {k.lower(): v for k, v in self.headers.items()}
            api._admit(Recorded(self.command, self.path, headers, None, "other", "404"))
            self._not_found()

        do_GET = _other
        do_HEAD = _other
        do_PUT = _other
        do_DELETE = _other
        do_PATCH = _other

    return Handler
