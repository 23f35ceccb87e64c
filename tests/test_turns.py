"""A client's turns (``kaboom/server/edge.py``'s ``ClientTurns``): a process works on a few of one
client's requests at once, the client's others wait in order, other clients pass, and a
long poll gives its turn back while it waits."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from starlette.types import Receive, Scope, Send

from kaboom.server.edge import RELEASE_TURN, ClientTurns, Trusted
from kaboom.testing import LiveServer


class _App:
    """An ASGI app whose requests run until the test lets each of them end."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.gates: dict[str, asyncio.Event] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        name = scope["path"]
        self.started.append(name)
        if scope["query_string"] == b"release":
            scope[RELEASE_TURN]()
        await self.gates.setdefault(name, asyncio.Event()).wait()

    def end(self, name: str) -> None:
        self.gates.setdefault(name, asyncio.Event()).set()


def _scope(name: str, host: str, query: bytes = b"") -> dict[str, Any]:
    return {"type": "http", "path": name, "client": (host, 50000), "query_string": query}


async def _nothing() -> dict[str, Any]:
    return {}


async def _ignore(message: Any) -> None:
    return None


def _start(turns: ClientTurns, scope: dict[str, Any]) -> asyncio.Task[None]:
    return asyncio.create_task(turns(scope, _nothing, _ignore))


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_a_clients_requests_past_its_turns_wait_in_order_and_others_pass() -> None:
    async def main() -> None:
        app = _App()
        turns = ClientTurns(app, per_client=2, trusted=Trusted("192.0.2.1"))
        tasks = [_start(turns, _scope(f"/a{i}", "203.0.113.7")) for i in range(4)]
        tasks.append(_start(turns, _scope("/b0", "198.51.100.1")))
        await _settle()
        assert app.started == ["/a0", "/a1", "/b0"]  # the other client passes
        app.end("/a1")
        await _settle()
        assert app.started == ["/a0", "/a1", "/b0", "/a2"]  # first come, first served
        for name in ("/a0", "/a2", "/a3", "/b0"):
            app.end(name)
        await asyncio.gather(*tasks)
        assert app.started[-1] == "/a3" and turns.turns == {}

    asyncio.run(main())


def test_a_request_cancelled_while_it_waits_leaves_no_turn_behind() -> None:
    async def main() -> None:
        app = _App()
        turns = ClientTurns(app, per_client=1, trusted=Trusted(""))
        first = _start(turns, _scope("/a0", "203.0.113.7"))
        waiting = _start(turns, _scope("/a1", "203.0.113.7"))
        await _settle()
        waiting.cancel()
        await _settle()
        app.end("/a0")
        await first
        assert waiting.cancelled() and app.started == ["/a0"] and turns.turns == {}

    asyncio.run(main())


def test_a_turn_given_back_early_lets_the_next_request_in_and_counts_once() -> None:
    async def main() -> None:
        app = _App()
        turns = ClientTurns(app, per_client=1, trusted=Trusted(""))
        poll = _start(turns, _scope("/poll", "203.0.113.7", b"release"))
        read = _start(turns, _scope("/read", "203.0.113.7"))
        await _settle()
        assert app.started == ["/poll", "/read"]  # the poll gave its turn to the read
        app.end("/read")
        app.end("/poll")
        await asyncio.gather(poll, read)
        assert turns.turns == {}  # the poll's turn was given back once, not twice

    asyncio.run(main())


def test_a_trusted_proxys_own_requests_are_not_held() -> None:
    async def main() -> None:
        app = _App()
        turns = ClientTurns(app, per_client=1, trusted=Trusted("127.0.0.1"))
        tasks = [_start(turns, _scope(f"/p{i}", "127.0.0.1")) for i in range(3)]
        await _settle()
        assert app.started == ["/p0", "/p1", "/p2"] and turns.turns == {}
        for i in range(3):
            app.end(f"/p{i}")
        await asyncio.gather(*tasks)

    asyncio.run(main())


def test_a_spectators_long_poll_holds_up_none_of_its_reads(tmp_path: Path) -> None:
    """One turn a client, over real HTTP from an untrusted address: the long poll gives
    its turn back while it waits, so the same client's read is answered before it."""
    with LiveServer(tmp_path / "turns.db", requests_per_client=1) as server:
        game = httpx.post(f"{server.url}/api/games", timeout=30,
                          json={"width": 9, "height": 9, "mines": 10}).json()
        spectator = httpx.HTTPTransport(local_address="127.0.0.2")
        done: list[str] = []

        def poll() -> None:
            with httpx.Client(base_url=server.url, transport=spectator, timeout=30) as http:
                reply = http.get(f"/api/games/{game['id']}",
                                 params={"wait_moves": 0, "timeout": 6})
                done.append(f"poll {reply.status_code}")

        poller = threading.Thread(target=poll)
        poller.start()
        deadline = time.monotonic() + 10
        while "kaboom_long_polls_waiting 1.0" not in httpx.get(
                f"{server.url}/api/metrics", timeout=10).text.splitlines():
            assert time.monotonic() < deadline, "the long poll never began to wait"
            time.sleep(0.05)
        with httpx.Client(base_url=server.url, transport=httpx.HTTPTransport(
                local_address="127.0.0.2"), timeout=30) as http:
            for _ in range(3):
                assert http.get(f"/api/games/{game['id']}/moves").status_code == 200
                done.append("read")
        poller.join()
        assert done == ["read", "read", "read", "poll 200"]


def test_a_client_whose_line_is_full_is_answered_429_at_once() -> None:
    async def main() -> None:
        app = _App()
        turns = ClientTurns(app, per_client=1, trusted=Trusted(""), max_waiting=2)
        tasks = [_start(turns, _scope(f"/a{i}", "203.0.113.7")) for i in range(3)]
        await _settle()
        sent: list[dict[str, Any]] = []

        async def send(message: Any) -> None:
            sent.append(message)

        await turns(_scope("/a3", "203.0.113.7"), _nothing, send)  # two wait already
        assert sent[0]["status"] == 429 and (b"retry-after", b"1") in sent[0]["headers"]
        assert b"2 requests from 203.0.113.7 are waiting already" in sent[1]["body"]
        app.end("/a0")
        await _settle()
        fourth = _start(turns, _scope("/a4", "203.0.113.7"))  # one waits now: room
        for name in ("/a1", "/a2", "/a4"):
            app.end(name)
        await asyncio.gather(*tasks, fourth)
        assert app.started == ["/a0", "/a1", "/a2", "/a4"] and turns.turns == {}

    asyncio.run(main())


def test_a_waiting_request_leaves_the_line_when_its_client_hangs_up() -> None:
    """The body read while waiting reaches the app in order; a hang-up while waiting
    takes the request out of the line, and it never reaches the app."""

    class Client:
        def __init__(self, body: bytes) -> None:
            self.body = body
            self.hung_up = asyncio.Event()
            self.reads = 0

        async def receive(self) -> dict[str, Any]:
            self.reads += 1
            if self.reads == 1:
                return {"type": "http.request", "body": self.body, "more_body": False}
            await self.hung_up.wait()
            return {"type": "http.disconnect"}

    got: dict[str, list[dict[str, Any]]] = {}
    gate = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        got[scope["path"]] = [await receive()]
        if scope["path"] == "/a0":
            await gate.wait()
        else:
            got[scope["path"]].append(await receive())

    async def main() -> None:
        turns = ClientTurns(app, per_client=1, trusted=Trusted(""))
        clients = {name: Client(name.encode()) for name in ("/a0", "/a1", "/a2")}
        tasks = {name: asyncio.create_task(turns(_scope(name, "203.0.113.7"), c.receive,
                                                 _ignore))
                 for name, c in clients.items()}
        await _settle()
        assert list(got) == ["/a0"] and len(turns.turns["203.0.113.7"].waiting) == 2
        clients["/a1"].hung_up.set()
        await asyncio.wait_for(tasks["/a1"], 5)  # out of line, not waiting for /a0
        assert len(turns.turns["203.0.113.7"].waiting) == 1  # /a1 left the line
        gate.set()
        await _settle()
        clients["/a2"].hung_up.set()  # in the app now: it hears of it as any app would
        await asyncio.gather(*tasks.values())
        assert list(got) == ["/a0", "/a2"] and turns.turns == {}
        assert got["/a2"] == [{"type": "http.request", "body": b"/a2", "more_body": False},
                              {"type": "http.disconnect"}]

    asyncio.run(main())


def test_a_request_whose_client_hung_up_leaves_the_line(tmp_path: Path) -> None:
    """A request waiting its turn listens for its client's hang-up.  Kept in line, 200
    requests sent and hung up at once made the client's next request wait 9 s at a rate of
    20 a second (and a client doing it without end grew the line without end)."""
    with LiveServer(tmp_path / "line.db", requests_per_second=20,
                    connections_per_client=0) as server:  # no bound on the line: listening alone
        for _ in range(200):
            with socket.create_connection(("127.0.0.1", server.port),
                                          source_address=("127.0.0.2", 0)) as sock:
                sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.5)  # the hang-ups arrive
        start = time.monotonic()
        with socket.create_connection(("127.0.0.1", server.port),
                                      source_address=("127.0.0.2", 0), timeout=30) as sock:
            sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert sock.recv(100).split(b"\r\n")[0] == b"HTTP/1.1 200 OK"
        # behind at most the eight that held turns when they hung up, served at 20 a second
        assert time.monotonic() - start < 2.0


def test_a_waiting_request_whose_receive_fails_keeps_no_place_in_line() -> None:
    async def broken() -> dict[str, Any]:
        raise RuntimeError("the server's receive failed")

    async def main() -> None:
        app = _App()
        turns = ClientTurns(app, per_client=1, trusted=Trusted(""))
        first = _start(turns, _scope("/a0", "203.0.113.7"))
        await _settle()
        failed = asyncio.create_task(turns(_scope("/a1", "203.0.113.7"), broken, _ignore))
        await _settle()
        assert isinstance(failed.exception(), RuntimeError)
        third = _start(turns, _scope("/a2", "203.0.113.7"))
        await _settle()
        app.end("/a0")
        await _settle()
        assert app.started == ["/a0", "/a2"]  # the turn went on past the failed one
        app.end("/a2")
        await asyncio.gather(first, third)
        assert turns.turns == {}

    asyncio.run(main())
