"""Plays a benchmark's games on the workers of a Dask cluster (``kaboom bench --cluster``).

Dask's ``distributed`` (why not Ray: docs/solver.md, "On a cluster") is imported here
only, inside the functions, so the solver never needs it; a task is a plain call of
:meth:`~solver.bench.runner.Setup.play` on a chunk of seeds.

Two chunks a worker thread are in flight at any time: a million-game run keeps the
scheduler's and this process's memory small, a worker that joins late gets work at
once, and an interrupted run loses only the chunks in flight. A chunk whose worker
dies is rerun elsewhere by the scheduler.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from solver.bench.runner import GameResult, Setup

__all__ = ["Cluster", "ClusterError", "chunk_size", "local_cluster"]


class ClusterError(RuntimeError):
    """Raised when the scheduler cannot be reached or no worker joins it."""


def chunk_size(games: int, threads: int) -> int:
    """Games a task: about eight tasks a worker thread, at most 100 games each (a few
    seconds of Expert), so the tasks' overhead (a millisecond or two) stays small."""
    return max(1, min(100, games // (8 * max(1, threads))))


def _play_chunk(setup: Setup, seeds: Sequence[int]) -> tuple[str, list[GameResult]]:
    """Runs on a worker: the chunk's games and the worker's address."""
    from distributed import get_worker

    return get_worker().address, [setup.play(s) for s in seeds]


def _close_failed_client(error: BaseException, client_type: type[Any]) -> None:
    """Closes the client that ``error`` left half started, at once.

    Left to the garbage collector, its ``__del__`` closes it whenever a collection
    happens, and if that is while another client starts, both want ``distributed``'s
    one lock for every event loop: the process hangs (the test suite did, after a
    malformed address).
    """
    tb = error.__traceback__
    while tb is not None:
        client = tb.tb_frame.f_locals.get("self")
        if isinstance(client, client_type):
            with contextlib.suppress(Exception):
                client.close()
            return
        tb = tb.tb_next


class Cluster:
    """A connection to a Dask scheduler that plays games on its workers."""

    def __init__(self, address: str, *, timeout: float = 30.0) -> None:
        try:
            from distributed import Client
        except ImportError as e:
            raise ClusterError(
                "--cluster needs Dask's distributed: pip install 'kaboom[cluster]'"
            ) from e
        try:
            self._client: Any = Client(address, timeout=timeout, set_as_default=False)
        except Exception as e:  # OSError when unreachable, others for a malformed address
            _close_failed_client(e, Client)
            raise ClusterError(
                f"cannot reach a Dask scheduler at {address}: {e or type(e).__name__}"
            ) from e
        self.address = address
        self.games_by_worker: Counter[str] = Counter()
        """Games each worker played (by its address), for the report."""

    def wait_for_workers(self, workers: int = 1, timeout: float = 60.0) -> int:
        """Waits until ``workers`` workers have joined; returns their threads."""
        try:
            self._client.wait_for_workers(workers, timeout=timeout)
        except TimeoutError:
            raise ClusterError(
                f"fewer than {workers} workers joined {self.address} within {timeout:.0f} s; "
                f"start some with `dask worker {self.address} --nthreads 1 --nworkers N`"
            ) from None
        return int(sum(self._client.nthreads().values()))

    def play(self, setup: Setup, seeds: Sequence[int]) -> Iterator[GameResult]:
        """Plays ``seeds`` on the workers, yielding each game as its chunk returns."""
        from distributed import as_completed

        threads = self.wait_for_workers()
        size = chunk_size(len(seeds), threads)
        chunks = (seeds[i:i + size] for i in range(0, len(seeds), size))
        running = as_completed(loop=self._client.loop)
        in_flight: set[Any] = set()

        def refill(threads: int) -> None:
            while len(in_flight) < 2 * threads and (chunk := next(chunks, None)):
                future = self._client.submit(_play_chunk, setup, chunk, pure=False)
                running.add(future)
                in_flight.add(future)

        refill(threads)
        try:
            for future in running:
                worker, results = future.result()
                in_flight.discard(future)
                future.release()
                self.games_by_worker[worker] += len(results)
                refill(max(1, sum(self._client.nthreads().values())))  # workers come and go
                yield from results
        finally:  # interrupted: the chunks still running are of no use to anyone
            if in_flight and self._client.status == "running":
                self._client.cancel(list(in_flight))

    def shutdown(self) -> None:
        """Stops the scheduler and its workers (for a cluster this process started)."""
        self._client.shutdown()

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def local_cluster(workers: int = 2, *, timeout: float = 90.0) -> Iterator[str]:
    """A scheduler and ``workers`` single-threaded worker processes on this machine's
    loopback, started with the commands docs/solver.md gives; yields its address.

    For the tests and ``bench/cluster_overhead.py``; logs are in the scheduler's
    temporary folder while it runs.
    """
    with tempfile.TemporaryDirectory(prefix="kaboom-dask-") as folder:
        tmp = Path(folder)
        info = tmp / "scheduler.json"
        stopping = 0.0
        procs = [_dask(tmp / "scheduler.log", "scheduler", "--host", "127.0.0.1", "--port",
                       "0", "--no-dashboard", "--scheduler-file", str(info))]
        try:
            deadline = time.monotonic() + timeout
            while not info.exists():
                if procs[0].poll() is not None or time.monotonic() > deadline:
                    raise ClusterError("dask scheduler did not start: "
                                       + (tmp / "scheduler.log").read_text()[-2000:])
                time.sleep(0.1)
            address = str(json.loads(info.read_text())["address"])
            procs.append(_dask(tmp / "worker.log", "worker", address, "--nworkers",
                               str(workers), "--nthreads", "1", "--no-dashboard"))
            with Cluster(address) as cluster:
                cluster.wait_for_workers(workers, timeout)
                try:
                    yield address
                finally:
                    cluster.shutdown()
                    stopping = 10.0  # the processes exit by themselves
        finally:
            for proc in procs:
                _stop(proc, stopping)


def _stop(proc: subprocess.Popen[bytes], grace: float) -> None:
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace)
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _dask(log: Path, *args: str) -> subprocess.Popen[bytes]:
    """One ``dask`` command, its scratch space in the log's folder (by default it
    leaves ``dask-scratch-space`` in the system's temporary folder)."""
    env = {**os.environ, "DASK_TEMPORARY_DIRECTORY": str(log.parent)}
    with open(log, "wb") as fh:
        return subprocess.Popen([sys.executable, "-m", "dask", *args], stdout=fh,
                                stderr=subprocess.STDOUT, env=env)
