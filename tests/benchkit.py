"""Running a ``bench/`` script from a test, as a user would: its own process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"


def run_bench(script: str, *args: str, timeout: float = 300) -> str:
    """Runs ``bench/<script>`` with ``args`` and returns its output; a failure raises
    (its errors are left on stderr, which pytest shows)."""
    return subprocess.run([sys.executable, str(BENCH / script), *args], check=True,
                          timeout=timeout, stdout=subprocess.PIPE, text=True).stdout
