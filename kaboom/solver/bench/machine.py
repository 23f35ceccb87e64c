"""What a benchmark ran on, so that its milliseconds can be read on another day.

Our machines are shared and their speed varies from day to day (the same code took
12.5 ms a game on one machine and 24.4 ms on another of the same kind): a figure
without its machine cannot be compared.  The yardstick is the CPU time of a fixed
pure-Python loop, the same work on every machine, taken before the games start.
"""

from __future__ import annotations

import os
import platform
import time

__all__ = ["machine", "yardstick_ms"]


def yardstick_ms(rounds: int = 3) -> float:
    """CPU milliseconds of a fixed pure-Python loop (500,000 multiply-adds), the best
    of ``rounds``: the faster a machine runs Python, the smaller."""
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        total = 0
        for i in range(500_000):
            total += i * i
        best = min(best, time.process_time() - start)
    return round(1000 * best, 1)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, object]:
    """The CPU, its cores, the load average and the yardstick, for a benchmark's JSON."""
    return {"cpu": _cpu_model(), "cores": os.cpu_count(),
            "load": round(os.getloadavg()[0], 2), "python": platform.python_version(),
            "yardstick_ms": yardstick_ms()}
