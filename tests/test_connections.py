"""What a connection may hold before it sends a request (``kaboom/server/connections.py``), on a
real ``kaboom serve``: late headers are closed, a client's and a process's connections
are capped, and none of it touches a request once its headers are in."""

from __future__ import annotations

import json
import logging
import os
import resource
import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from kaboom.server.config import Settings
from kaboom.server.connections import ClientCounts, _RefusalLog, connection_cap
from kaboom.server.edge import SECURITY_HEADERS, Trusted
from kaboom.testing import LiveServer
from tests.apikit import new_game

pytestmark = pytest.mark.timeout(120)


def _connect(server: LiveServer) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.settimeout(10)
    return sock


def _answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    data = b""
    while chunk := sock.recv(4096):
        data += chunk
    return data


def _refused(server: LiveServer, reason: str) -> float:
    """The server's count of connections it closed for ``reason`` (its metrics)."""
    for line in httpx.get(f"{server.url}/api/metrics", timeout=10).text.splitlines():
        if line.startswith(f'kaboom_connection_refusals_total{{reason="{reason}"}} '):
            return float(line.split()[-1])
    return 0.0


@pytest.fixture
def untrusted_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests' connections come from 127.0.0.1, which uvicorn trusts as a proxy by
    default (and such connections are not capped per client): trust another address."""
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "192.0.2.1")


@pytest.fixture(params=[1, 2], ids=["1-worker", "2-workers"])
def quick(request: pytest.FixtureRequest, tmp_path: Path,
          untrusted_loopback: None) -> Iterator[LiveServer]:
    """A server whose connections have one second for their headers (both ways of
    serving: one process, and worker processes that read the settings themselves)."""
    with LiveServer(tmp_path / "quick.db", workers=request.param, header_timeout_s=1,
                    long_poll_max_s=5) as server:
        yield server


def test_headers_that_trickle_in_get_a_408_at_their_deadline(quick: LiveServer) -> None:
    """uvicorn alone waited for ever for a request's headers, so connections sending
    them a byte at a time held a file descriptor each for as long as they liked."""
    slow = _connect(quick)
    start = time.monotonic()
    stop = threading.Event()

    def trickle() -> None:
        for byte in b"GET /api/games HTTP/1.1\r\nHost: kaboom\r\nX-Slow: " + b"a" * 200:
            if stop.is_set():
                return
            try:
                slow.send(bytes([byte]))
            except OSError:  # closed by the server: what the test waits for
                return
            time.sleep(0.05)

    sender = threading.Thread(target=trickle)
    sender.start()
    try:
        with httpx.Client(base_url=quick.url, timeout=10) as http:
            for _ in range(5):  # others are served meanwhile
                assert http.get("/openapi.json").status_code == 200
        answer = _answer(slow)
        took = time.monotonic() - start
    finally:
        stop.set()
        sender.join()
        slow.close()
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer
    assert b"did not arrive within 1 s" in answer
    assert 0.9 <= took < 5, took
    assert _refused(quick, "headers_late") == 1  # whichever worker answers the scrape



def test_a_connection_that_sends_nothing_is_closed_silently(quick: LiveServer) -> None:
    idle = _connect(quick)
    start = time.monotonic()
    assert _answer(idle) == b""
    assert 0.9 <= time.monotonic() - start < 5
    assert _refused(quick, "idle") == 1


def test_the_deadline_covers_headers_only(quick: LiveServer) -> None:
    """A long poll, a keep-alive connection's second request and a slow body's request
    all outlast the headers' second without being cut."""
    with httpx.Client(base_url=quick.url, timeout=10) as http:
        game = new_game(http)
        start = time.monotonic()
        waited = http.get(f"/api/games/{game['id']}", params={"wait_moves": 0, "timeout": 2.5})
        assert waited.status_code == 200 and time.monotonic() - start >= 2.4
        time.sleep(1.5)  # idle on the kept-alive connection (uvicorn's own keep-alive: 5 s)
        assert http.get(f"/api/games/{game['id']}").status_code == 200

    sock = _connect(quick)
    body = b'{"width": 9, "height": 9, "mines": 10}'
    sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: kaboom\r\nContent-Type: application/json"
                 b"\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(body))
    time.sleep(1.5)  # the headers are in: the body has its own, longer deadline (10 s)
    sock.sendall(body)
    answer = _answer(sock)
    sock.close()
    assert answer.startswith(b"HTTP/1.1 201"), answer[:200]


def test_headers_pipelined_behind_a_long_poll_are_not_late_before_its_answer(
    quick: LiveServer,
) -> None:
    with httpx.Client(base_url=quick.url, timeout=10) as http:
        game = new_game(http)
    sock = _connect(quick)
    start = time.monotonic()
    sock.sendall(f"GET /api/games/{game['id']}?wait_moves=0&timeout=2.5 HTTP/1.1\r\n"
                 "Host: kaboom\r\n\r\nGET /api/games HTTP/1.1\r\nHost: kab".encode())
    answer = _answer(sock)
    took = time.monotonic() - start
    sock.close()
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n"), answer[:200]
    assert answer.count(b"HTTP/1.1 ") == 2 and b"HTTP/1.1 408 Request Timeout" in answer
    assert 2.4 <= took < 6, took


def test_a_client_holds_at_most_its_connections(tmp_path: Path,
                                                untrusted_loopback: None) -> None:
    with LiveServer(tmp_path / "cap.db", connections_per_client=4) as server, \
            ExitStack() as held:
        # LiveServer's own start-up request has come and gone
        time.sleep(0.3)
        socks = [held.enter_context(_connect(server)) for _ in range(4)]
        refused = _connect(server)
        answer = _answer(refused)
        refused.close()
        assert answer.startswith(b"HTTP/1.1 429 Too Many Requests\r\n"), answer
        assert b"at most 4 open connections a client" in answer
        time.sleep(0.3)  # the log line is written after the answer
        assert ("connections refused: 1 over a client's cap (429); most from 127.0.0.1 (1)"
                in server.stderr())
        socks.pop().close()
        time.sleep(0.3)
        assert httpx.get(f"{server.url}/openapi.json", timeout=10).status_code == 200
        assert _refused(server, "client_cap") == 1
        metrics = httpx.get(f"{server.url}/api/metrics", timeout=10).text.splitlines()
        assert "kaboom_connections_open 4.0" in metrics  # three held and the scrape


def _refusal_or_silence(sock: socket.socket) -> bytes:
    """What the server says at once on a new connection: a refusal, or nothing (b"")
    when it took the connection and waits for a request."""
    sock.settimeout(0.5)
    try:
        return sock.recv(4096)
    except TimeoutError:
        return b""
    finally:
        sock.settimeout(10)


def _one_by_one(server: LiveServer, n: int) -> tuple[list[socket.socket], list[bytes]]:
    """``n`` connections, each one's verdict awaited before the next is made: two workers
    taking connections at the same moment may each let in the cap's last one."""
    socks, answers = [], []
    for _ in range(n):
        socks.append(_connect(server))
        answers.append(_refusal_or_silence(socks[-1]))
    return socks, answers


def _worker_of(sock: socket.socket) -> int:
    """The process serving a connection (kept alive: it stays open and counted)."""
    sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: kaboom\r\n\r\n")
    data = b""
    while not data.endswith(b"}"):
        data += sock.recv(4096)
    worker: int = json.loads(data.partition(b"\r\n\r\n")[2])["worker"]
    return worker


def test_a_clients_cap_holds_over_every_worker(tmp_path: Path,
                                               untrusted_loopback: None) -> None:
    """The kernel spreads one client's connections over the workers (``SO_REUSEPORT``):
    counted in each process, one address could hold the cap once a worker.  A worker's
    counts go with it when it dies."""
    with LiveServer(tmp_path / "cap2.db", workers=2, connections_per_client=4) as server:
        for _ in range(10):  # until the kernel puts the held ones on both workers
            time.sleep(0.3)  # the connections before are closed
            socks, answers = _one_by_one(server, 8)
            refused = [a for a in answers if a]
            assert len(refused) == 4 and all(a.startswith(b"HTTP/1.1 429 ") for a in refused)
            held = [sock for sock, answer in zip(socks, answers, strict=True) if not answer]
            workers = {_worker_of(sock) for sock in held}
            for sock in socks:
                sock.close()
            if len(workers) == 2:
                break
        assert len(workers) == 2, "the four held were on one worker ten times running"

        # a worker dies holding connections: its successor does not inherit their counts
        held, answers = _one_by_one(server, 4)
        assert answers == [b""] * 4
        victim = _worker_of(held[0])
        os.kill(victim, signal.SIGKILL)
        for sock in held:
            sock.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # until the parent has started another
            time.sleep(0.2)
            pids = {httpx.get(f"{server.url}/api/health", timeout=10).json()["worker"]
                    for _ in range(12)}
            if len(pids) == 2 and victim not in pids:
                break
        time.sleep(0.3)  # the probes' connections are closed
        socks, answers = _one_by_one(server, 5)
        for sock in socks:
            sock.close()
        assert answers[:4] == [b""] * 4, answers
        assert answers[4].startswith(b"HTTP/1.1 429 "), answers


def test_clients_share_a_count_only_when_they_share_both_cells() -> None:
    counts = ClientCounts.alone()
    a = counts.cells("192.0.2.1")
    b = next(cells for n in range(2, 10) if not set(cells := counts.cells(f"192.0.2.{n}")) & set(a))
    counts.add(a, 5)
    assert counts.count(a) == 5 and counts.count(b) == 0
    collide = (a[0], b[1])  # shares one cell with each
    counts.add(collide, 3)
    assert counts.count(a) == 5 and counts.count(b) == 0
    counts.add(a, -5)
    counts.add(collide, -3)
    assert not counts.table.any()


def test_a_trusted_proxys_connections_are_not_capped_per_client(tmp_path: Path) -> None:
    """Behind a proxy every player shares its address; 127.0.0.1 is trusted unless
    ``FORWARDED_ALLOW_IPS`` says otherwise."""
    with LiveServer(tmp_path / "proxy.db", connections_per_client=2) as server, \
            ExitStack() as held:
        for _ in range(6):
            held.enter_context(_connect(server))
        assert httpx.get(f"{server.url}/openapi.json", timeout=10).status_code == 200


def test_a_process_holds_at_most_max_connections(tmp_path: Path) -> None:
    with LiveServer(tmp_path / "max.db", max_connections=3) as server, ExitStack() as held:
        time.sleep(0.3)
        for _ in range(3):
            held.enter_context(_connect(server))
        refused = _connect(server)
        answer = _answer(refused)
        refused.close()
        assert answer.startswith(b"HTTP/1.1 503 Service Unavailable\r\n"), answer
        assert b"retry-after: 1" in answer
        head, _, body = answer.partition(b"\r\n\r\n")
        assert json.loads(body) == {"detail": "the server has too many connections"}
        # the headers every answer carries, as the app's own (test_edge checks those)
        for name, value in SECURITY_HEADERS:
            assert name + b": " + value in head.split(b"\r\n")


def test_the_process_cap_follows_the_open_file_limit() -> None:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert connection_cap(Settings(db=":memory:", max_connections=7)) == 7
    derived = connection_cap(Settings(db=":memory:"))
    assert derived == (1_000_000 if soft == resource.RLIM_INFINITY else max(1, soft - 100))


@pytest.mark.parametrize(("spec", "host", "trusted"), [
    ("127.0.0.1", "127.0.0.1", True),
    ("127.0.0.1", "127.0.0.2", False),
    ("10.0.0.0/8, 192.0.2.1", "10.20.30.40", True),
    ("10.0.0.0/8, 192.0.2.1", "192.0.2.2", False),
    ("*", "2001:db8::1", True),
    (["::1", "unix:/run/kaboom.sock"], "::1", True),
    ("unix:/run/kaboom.sock", "not an address", False),
])
def test_forwarded_allow_ips_as_uvicorn_reads_it(spec: str | list[str], host: str,
                                                 trusted: bool) -> None:
    assert (host in Trusted(spec)) is trusted


def test_refusals_are_logged_at_once_then_at_most_once_a_period(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An operator learns of an attack from the log without the attack filling it."""
    refusals = _RefusalLog(every_s=0.5)
    with caplog.at_level(logging.WARNING, logger="uvicorn.error"):
        refusals.add(429, "203.0.113.7")
        for _ in range(40):
            refusals.add(408, "198.51.100.2")
        refusals.add(429, "203.0.113.7")
        assert [r.getMessage() for r in caplog.records] == [
            "connections refused: 1 over a client's cap (429); most from 203.0.113.7 (1)"]
        time.sleep(0.6)
        refusals.add(503, "192.0.2.9")
    assert caplog.records[-1].getMessage() == (
        "connections refused: 40 headers late (408), 1 over a client's cap (429),"
        " 1 over the process's cap (503); most from 198.51.100.2 (40), 203.0.113.7 (1),"
        " 192.0.2.9 (1)")
