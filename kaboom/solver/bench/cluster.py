"""Plays a benchmark's games on the workers of a Dask cluster (``kaboom bench --cluster``).

Dask's ``distributed`` (why not Ray: docs/solver.md, "On a cluster") is imported here
only, inside the functions, so the solver never needs it; a task is a plain call of
:meth:`~kaboom.solver.bench.runner.Setup.play` on a chunk of seeds.

Two chunks a worker thread are in flight at any time: a million-game run keeps the
scheduler's and this process's memory small, a worker that joins late gets work at
once, and an interrupted run loses only the chunks in flight. A chunk whose worker
dies is rerun elsewhere by the scheduler.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from kaboom.solver.bench.runner import GameResult, Setup

__all__ = ["Cluster", "ClusterError", "chunk_size", "local_cluster"]


class ClusterError(RuntimeError):
    """Raised when the scheduler cannot be reached or is lost, when no worker joins it
    or every worker leaves, or when the workers cannot play (no solver there)."""


_PROBE = "__import__('kaboom.solver.bench.runner') and None"
"""What each worker evaluates before any game is sent: a worker without this package
fails to unpickle a chunk, and its games would never come back.  (``eval`` of a constant
is pickled by reference to a builtin, so the probe itself needs nothing on the worker.)"""
_STALL_S = 60.0
"""How long a run waits with chunks in flight and no worker left before it gives up."""


def chunk_size(games: int, threads: int) -> int:
    """Games a task: about eight tasks a worker thread, at most 100 games each (a few
    seconds of Expert), so the tasks' overhead (a millisecond or two) stays small."""
    return max(1, min(100, games // (8 * max(1, threads))))


def _play_chunk(setup: Setup, seeds: Sequence[int]) -> tuple[str, list[GameResult]]:
    """Runs on a worker: the chunk's games and the worker's address."""
    from distributed import get_worker

    return get_worker().address, [setup.play(s) for s in seeds]


def _line(error: BaseException) -> str:
    """An error in one line: its type and the first line of its message."""
    lines = str(error).splitlines()
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__


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
                "--cluster needs Dask's distributed: in a checkout,"
                " .venv/bin/pip install -e '.[cluster]'"
            ) from e
        # A scheduler that goes away closes the client's batched stream, which distributed
        # logs at INFO with a traceback: the run says what happened, in one line.
        logging.getLogger("distributed.batched").setLevel(logging.WARNING)
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
        return self._threads()

    def check_workers(self) -> None:
        """Raises :class:`ClusterError` unless every worker can import the solver."""
        answers = self._client.run(eval, _PROBE, on_error="return")
        failed = {w: a for w, a in answers.items() if isinstance(a, BaseException)}
        if failed:
            worker, error = sorted(failed.items())[0]
            raise ClusterError(
                f"{len(failed)} of {len(answers)} workers at {self.address} cannot play"
                f" ({worker}: {_line(error)}); install this checkout"
                " with the cluster extra on every worker (docs/solver.md, On a cluster)"
            )

    def play(self, setup: Setup, seeds: Sequence[int]) -> Iterator[GameResult]:
        """Plays ``seeds`` on the workers, yielding each game as its chunk returns.
        Raises :class:`ClusterError` when the scheduler is lost, when a chunk fails on
        a worker, or when no worker is left for :data:`_STALL_S` with games to play."""
        threads = self.wait_for_workers()
        self.check_workers()
        size = chunk_size(len(seeds), threads)
        chunks = (seeds[i:i + size] for i in range(0, len(seeds), size))
        in_flight: set[Any] = set()
        done: queue.SimpleQueue[Any] = queue.SimpleQueue()  # futures, as they finish

        def refill(threads: int) -> None:
            while len(in_flight) < 2 * threads and (chunk := next(chunks, None)):
                future = self._client.submit(_play_chunk, setup, chunk, pure=False)
                future.add_done_callback(done.put)
                in_flight.add(future)

        refill(threads)
        try:
            while in_flight:
                future = self._next_done(done)
                in_flight.discard(future)
                try:
                    worker, results = future.result()
                except Exception as e:
                    if future.status == "error":  # raised by the chunk, on a worker
                        raise ClusterError(
                            f"a chunk of games failed on the cluster: {_line(e)}"
                        ) from e
                    raise self._lost(e) from e  # cancelled: the scheduler went away
                future.release()
                self.games_by_worker[worker] += len(results)
                refill(max(1, self._threads()))  # workers come and go
                yield from results
        finally:  # interrupted: the chunks still running are of no use to anyone
            if in_flight and self._client.status == "running":
                self._client.cancel(list(in_flight))

    def _next_done(self, done: queue.SimpleQueue[Any]) -> Any:
        """The next chunk done; raises :class:`ClusterError` after :data:`_STALL_S`
        without a worker (a chunk waits for one as long as any comes)."""
        alone_since: float | None = None
        while True:
            try:
                return done.get(timeout=1.0)
            except queue.Empty:
                pass
            if self._threads():
                alone_since = None
            elif alone_since is None:
                alone_since = time.monotonic()
            elif time.monotonic() - alone_since > _STALL_S:
                raise ClusterError(
                    f"no worker left at {self.address} for {_STALL_S:.0f} s with games to play"
                )

    def _threads(self) -> int:
        try:
            return int(sum(self._client.nthreads().values()))
        except Exception as e:
            raise self._lost(e) from e

    def _lost(self, error: BaseException) -> ClusterError:
        return ClusterError(f"lost the Dask scheduler at {self.address} ({_line(error)})")

    def shutdown(self) -> None:
        """Stops the scheduler and its workers (for a cluster this process started),
        unless they are gone already."""
        if self._client.status == "running":
            self._client.shutdown()

    def close(self) -> None:
        if self._client.status != "running":
            # Lost: closing cuts the client's reconnection short, and distributed logs
            # that with a traceback (the run has said in one line what happened).
            logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
        self._client.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def local_cluster(
    workers: int = 2, *, timeout: float = 90.0, worker_args: Sequence[str] = ()
) -> Iterator[str]:
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
                               str(workers), "--nthreads", "1", "--no-dashboard",
                               *worker_args))
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
