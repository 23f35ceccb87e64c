"""The solver gate's share of threads between clients (``kaboom/server/admission.py``), with real
threads and real time: which request gets a freed thread, not how fast it runs."""

from __future__ import annotations

import time

import anyio
import pytest

from kaboom.server.admission import Gate
from kaboom.solver.budget import Budget
from kaboom.solver.errors import BudgetExceededError


def _work(done: list[str], name: str, seconds: float = 0.3):  # type: ignore[no-untyped-def]
    def fn(budget: Budget) -> str:
        time.sleep(seconds)
        done.append(name)
        return name

    return fn


def test_a_freed_thread_goes_to_the_client_holding_fewest() -> None:
    """One client's four slow requests on four games queued before another client's
    one: first come, first served made the other wait for all four (an audit saw other
    players' moves go from 8 ms to 1.8 s under one client's analyses)."""
    done: list[str] = []

    async def main() -> None:
        gate = Gate(threads=1, per_game=10, total=100)
        async with anyio.create_task_group() as tg:
            for i in range(4):
                tg.start_soon(gate.run, f"a{i}", None, _work(done, f"a{i}"), "flood")
                await anyio.sleep(0.01)
            tg.start_soon(gate.run, "b0", None, _work(done, "b0"), "player")

    anyio.run(main)
    assert done == ["a0", "b0", "a1", "a2", "a3"]


def test_alone_a_client_gets_every_thread() -> None:
    spans: dict[str, tuple[float, float]] = {}

    def timed(name: str):  # type: ignore[no-untyped-def]
        def fn(budget: Budget) -> None:
            start = time.monotonic()
            time.sleep(0.3)
            spans[name] = (start, time.monotonic())

        return fn

    async def main() -> None:
        gate = Gate(threads=2, per_game=10, total=100)
        async with anyio.create_task_group() as tg:
            for name in ("g1", "g2"):
                tg.start_soon(gate.run, name, None, timed(name), "bot")

    anyio.run(main)
    assert spans["g2"][0] < spans["g1"][1] and spans["g1"][0] < spans["g2"][1]  # overlapped


def test_a_request_out_of_time_in_line_leaves_nothing_held() -> None:
    done: list[str] = []

    async def main() -> Gate:
        gate = Gate(threads=1, per_game=10, total=100)

        async def late() -> None:
            with pytest.raises(BudgetExceededError):
                await gate.run("b0", 0.1, _work(done, "b0"), "player")

        async with anyio.create_task_group() as tg:
            tg.start_soon(gate.run, "a0", None, _work(done, "a0", 0.5), "flood")
            await anyio.sleep(0.01)
            tg.start_soon(late)
        await gate.run("c0", None, _work(done, "c0", 0.0), "other")
        return gate

    gate = anyio.run(main)
    assert done == ["a0", "c0"]
    assert (gate._free, gate._held, gate._waiting, gate._served) == (1, {}, [], {})
