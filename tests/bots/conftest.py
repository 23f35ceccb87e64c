"""A live ``kaboom serve`` on a free local port, which the tests may crash and restart."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from kaboom.testing import LiveServer

ROOT = Path(__file__).resolve().parents[2]


def subprocess_env() -> dict[str, str]:
    """The environment for a ``python -m kaboom`` child: this checkout first on the path."""
    path = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path_factory.mktemp("kaboom") / "kaboom.db").start()
    try:
        yield server
    finally:
        server.stop()
