"""Running a ``bench/`` script from a test, as a user would: its own process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _command(script: str, *args: str) -> list[str]:
    return [sys.executable, str(BENCH / script), *args]


def run_bench(script: str, *args: str, timeout: float = 300) -> str:
    """Runs ``bench/<script>`` with ``args`` and returns its output; a failure raises
    (its errors are left on stderr, which pytest shows)."""
    return subprocess.run(_command(script, *args), check=True, timeout=timeout,
                          stdout=subprocess.PIPE, text=True).stdout


def bench_usage_error(script: str, *args: str, timeout: float = 60) -> str:
    """Runs ``bench/<script>`` with ``args``, which it must refuse as a usage error
    (exit status 2); returns the last line of its message."""
    done = subprocess.run(_command(script, *args), capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 2, done.stderr
    return done.stderr.strip().splitlines()[-1]


def bench_report(out: Path) -> dict[str, Any]:
    """A bench's JSON, which must record its machine: a figure is read against the CPU,
    the load and the yardstick."""
    report: dict[str, Any] = json.loads(out.read_text())
    where = report["machine"]
    assert where["cores"] >= 1 and where["yardstick_ms"] > 0 and where["load"] >= 0
    return report
