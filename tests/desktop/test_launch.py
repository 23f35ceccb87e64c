"""A launched game ends with everything it started, even a helper that ignores SIGTERM."""

from __future__ import annotations

import time
from pathlib import Path
from typing import ClassVar

from bots.desktop import Profile


def _running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie waits for whoever adopted it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


class _Spawner(Profile):
    """A "game" that starts a stubborn helper process and then waits."""

    name = "spawner"
    window_pattern = r"^never$"
    palette: ClassVar[dict[str, tuple[int, int, int]]] = {}

    def __init__(self, pidfile: Path) -> None:
        super().__init__()
        self.pidfile = pidfile

    def command(self, game_id: str | None) -> list[str]:
        helper = "trap '' TERM; while :; do sleep 0.1; done"
        return ["sh", "-c", f"sh -c \"{helper}\" & echo $! > {self.pidfile}; exec sleep 60"]

    def mine_count(self, game_id: str | None, width: int, height: int) -> int:
        return 10


def test_stop_ends_the_game_and_its_helpers(tmp_path: Path) -> None:
    pidfile = tmp_path / "helper.pid"
    profile = _Spawner(pidfile)
    process = profile.launch(None, ":0")
    assert process is not None
    deadline = time.monotonic() + 10
    while not (pidfile.exists() and pidfile.read_text().strip()):
        assert time.monotonic() < deadline, "the helper never started"
        time.sleep(0.05)
    helper = int(pidfile.read_text())
    assert _running(process.pid) and _running(helper)
    started = time.monotonic()
    profile.stop(process)
    assert process.returncode is not None
    assert not _running(helper), "the helper outlived its game"
    assert time.monotonic() - started < 8  # the game ended at once; its helper is not waited for
