"""A launched game ends with everything it started, even a helper that ignores SIGTERM."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import ClassVar

import pytest

from kaboom.bots.desktop import Profile, find_profile


def _running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie waits for whoever adopted it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


class _Spawner(Profile):
    """A "game" that starts a stubborn helper process and then waits."""

    contract = 3
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


@pytest.mark.parametrize("name", ["gnome-mines", "kaboom-page", "sgt-mines"])
def test_asking_whether_a_game_can_be_launched_prepares_nothing(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The session asks before attaching to a running window: no settings file or
    browser profile may appear for a game that is then not launched."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    profile = find_profile(name)
    game_ids = {"gnome-mines": ["small", "big"], "kaboom-page": ["http://127.0.0.1:1/g/x"],
                "sgt-mines": ["9x9n10"]}[name]
    for game_id in game_ids:
        assert profile.can_launch(game_id)
    assert not list(tmp_path.iterdir())
    profile.command(game_ids[0])  # a launch prepares its files where tempfile says
    if name != "sgt-mines":
        assert list(tmp_path.iterdir())


def test_what_can_be_launched() -> None:
    assert not find_profile("kaboom-page").can_launch(None)  # the page needs its address
    with pytest.raises(ValueError, match="small, medium or big"):
        find_profile("gnome-mines").can_launch("huge")
    assert _Spawner(Path("unused")).can_launch(None)  # the default asks `command`
