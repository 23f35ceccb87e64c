"""Requests a second per client (``kaboom/server/request_rate.py``): past the rate a client's
requests wait until the window lets them in, other clients, another IPv6 /64 and a
trusted proxy pass at once, the window slides, and the count holds over every worker of
a server."""

from __future__ import annotations

import asyncio
import bisect
import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from kaboom.server.edge import Trusted
from kaboom.server.metrics import THROTTLED
from kaboom.server.request_rate import RequestRate, RequestWindows
from kaboom.testing import LiveServer


def test_the_window_counts_the_last_eleven_tenths_of_a_second() -> None:
    table = RequestWindows.alone().table
    first = RequestWindows(table, 0, b"k" * 16)
    cells = (3, 9)
    for _ in range(10):
        assert first.take(cells, 100.25, 100)  # tenth 1002
    assert first.rate(cells, 100.9) == 10
    assert first.rate(cells, 101.25) == 10  # tenths 1002-1012: a second ago is counted
    assert first.rate(cells, 101.3) == 0  # tenth 1002 has left the window
    assert first.take(cells, 101.32, 100)  # tenth 1013 takes 1002's place in the ring: zeroed
    assert first.take(cells, 101.55, 100)
    assert first.rate(cells, 101.6) == 2
    assert first.rate(cells, 102.4) == 1  # 101.32 is out, 101.55 still in
    assert first.rate(cells, 105.0) == 0  # every counted tenth is stale
    assert first.rate((3, 4), 101.6) == 0  # a client sharing one cell is not counted


@settings(max_examples=30, deadline=None)
@given(per_second=st.integers(1, 150), start=st.floats(1000.0, 1001.0),
       poll=st.floats(0.001, 0.06))
def test_no_second_serves_a_client_more_than_its_rate(per_second: int, start: float,
                                                      poll: float) -> None:
    """A client that asks without pause, from any instant: at most the rate in any
    second, and at least ten elevenths of it over eleven seconds; ``take`` counts only
    what it admits."""
    windows = RequestWindows.alone()
    cells = windows.cells("192.0.2.3")
    served: list[float] = []
    now = start
    while now < start + 11:
        while windows.take(cells, now, per_second):  # what the middleware asks
            served.append(now)
        now += poll
    assert max(bisect.bisect_left(served, t + 1) - i for i, t in enumerate(served)) \
        <= per_second
    assert len(served) >= 10 * per_second
    assert windows.rate(cells, now) <= per_second


def test_every_worker_counts_in_a_row_of_its_own_and_reads_them_all() -> None:
    buffer = bytearray(2 * RequestWindows.SIZE * 8)
    RequestWindows.blank(buffer, 2)
    one, two = (RequestWindows.shared(buffer, 2, row, b"k" * 16) for row in (0, 1))
    for _ in range(4):
        assert one.take((1, 2), 50.5, 100)
    for _ in range(3):
        assert two.take((1, 2), 50.65, 100)
    assert one.rate((1, 2), 50.7) == two.rate((1, 2), 50.7) == 7
    assert two.rate((1, 2), 51.55) == 7  # the window reaches back to 50.5
    assert two.rate((1, 2), 51.6) == 3  # one's tenth has left it
    assert two.take((1, 2), 51.7, 100)  # two's tenth 517 takes 506's place in its ring: zeroed
    assert one.rate((1, 2), 51.7) == 1


def _scope(host: str) -> dict[str, Any]:
    return {"type": "http", "method": "GET", "path": "/x", "client": (host, 50000),
            "query_string": b"", "headers": []}


async def _nothing() -> dict[str, Any]:
    return {"type": "http.request", "body": b""}


async def _ignore(message: Any) -> None:
    return None


def test_past_its_rate_a_clients_requests_wait_and_others_pass() -> None:
    reached: list[str] = []
    now = [100.0]

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["client"][0])

    async def settle() -> None:
        await asyncio.sleep(0.02)  # many polls

    async def main() -> None:
        limit = RequestRate(app, per_second=5, trusted=Trusted("10.0.0.1"),
                            windows=RequestWindows.alone(), poll_s=0.001,
                            clock=lambda: now[0])
        throttled = THROTTLED._value.get()
        waiting = [asyncio.create_task(limit(_scope(host), _nothing, _ignore))
                   for host in ["192.0.2.7"] * 8 + ["2001:db8::1"] * 6]
        await settle()
        assert reached.count("192.0.2.7") == 5 and reached.count("2001:db8::1") == 5
        for host in ("198.51.100.1", *["10.0.0.1"] * 20, "2001:db8:0:1::1"):
            await limit(_scope(host), _nothing, _ignore)  # each passes at once
        assert len(reached) == 32
        now[0] = 101.05  # the window reaches back to 100.0 still
        await settle()
        assert len(reached) == 32
        now[0] = 101.1  # 100.0's tenth has left it: room for the rest of both clients
        await asyncio.gather(*waiting)
        assert reached.count("192.0.2.7") == 8 and reached.count("2001:db8::1") == 6
        assert THROTTLED._value.get() - throttled == 4

    asyncio.run(main())


def test_a_waiting_request_whose_client_hangs_up_leaves_uncounted() -> None:
    """Past the rate, a request listens for its client: one whose client hangs up is not
    served and takes no room in the window; one whose client stays gets its body."""
    reached: list[bytes] = []
    now = [200.0]

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append((await receive())["body"])

    def client(body: bytes, hangs_up: asyncio.Event) -> Any:
        messages = [{"type": "http.request", "body": body}]

        async def receive() -> dict[str, Any]:
            if messages:
                return messages.pop(0)
            await hangs_up.wait()
            return {"type": "http.disconnect"}
        return receive

    async def main() -> None:
        windows = RequestWindows.alone()
        limit = RequestRate(app, per_second=1, trusted=Trusted(""), windows=windows,
                            poll_s=0.001, clock=lambda: now[0])
        stays, goes = asyncio.Event(), asyncio.Event()
        await limit(_scope("192.0.2.9"), client(b"first", stays), _ignore)
        leaving = asyncio.create_task(limit(_scope("192.0.2.9"), client(b"gone", goes),
                                            _ignore))
        staying = asyncio.create_task(limit(_scope("192.0.2.9"), client(b"kept", stays),
                                            _ignore))
        await asyncio.sleep(0.02)
        goes.set()  # its client hangs up while it waits
        await asyncio.wait_for(leaving, 1)
        assert reached == [b"first"]
        now[0] = 201.1  # the window empties: one of the two waiting may go, not both
        await asyncio.wait_for(staying, 1)
        assert reached == [b"first", b"kept"]
        cells = windows.cells("192.0.2.9")
        assert windows.rate(cells, now[0]) == 1  # the one that left was never counted

    asyncio.run(main())


def _health(port: int) -> tuple[float, int]:
    """``/api/health`` from 127.0.0.2 on a new connection (so the kernel may pick either
    worker): when it was answered, and the answering worker's pid."""
    with socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0),
                                  timeout=30) as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.split()[1] == b"200", head
    return time.monotonic(), int(json.loads(body)["worker"])


def test_a_clients_rate_holds_over_every_worker(tmp_path: Path) -> None:
    """Counted in each process, a client would have the rate once a worker."""
    with LiveServer(tmp_path / "rate.db", workers=2, requests_per_second=20,
                    connections_per_client=0) as server:
        for _ in range(5):  # until the kernel spread them over both workers
            time.sleep(2.1)  # the last run's requests out of the window
            start = time.monotonic()
            with ThreadPoolExecutor(8) as pool:
                answers = list(pool.map(lambda _: _health(server.port), range(40)))
            if len({worker for _, worker in answers}) == 2:
                break
        assert len({worker for _, worker in answers}) == 2, "one worker five times running"
        # 20 come in at once, the other 20 when their tenth has left the window: a second
        # on, or a little more.  Counted in each worker, all 40 came at once.
        times = sorted(t - start for t, _ in answers)
        assert times[19] < 0.5 and 0.9 < times[39] < 3.0, times
        scrape = httpx.get(f"{server.url}/api/metrics", timeout=10).text
        throttled = sum(float(line.split()[-1]) for line in scrape.splitlines()
                        if line.startswith("kaboom_throttled_requests_total"))
        assert 0 < throttled <= 20  # one that came after the count fell did not wait
