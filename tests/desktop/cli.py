"""``kaboom bot desktop`` run as a user runs it, for the tests of its command line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def kaboom_desktop(*args: str, display: str | None = None, env: dict[str, str] | None = None,
                   timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Runs the command from the checkout; ``display`` sets ``DISPLAY`` over ``env`` (by
    default this process's environment)."""
    env = dict(os.environ if env is None else env)
    if display is not None:
        env["DISPLAY"] = display
    return subprocess.run([sys.executable, "-m", "kaboom", "bot", "desktop", *args], env=env,
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
