"""The project's own Kaboom page, in a headed Chromium app window.

Read from pixels like any other game (the page's DOM is not used): covered cells are
raised tiles (``--covered`` with light top-left and dark bottom-right insets), open
cells flat ``--open`` squares in a 1-pixel grid, digits in the page's CSS colours, the
exploded mine on red, other mines on the open colour, wrong flags on pink, and after a
loss the provably safe cell on green.  Kaboom has question marks too (``?`` on a
covered tile).

Game id: the page URL (``http://HOST:PORT/`` starts a new game from the page's form,
``http://HOST:PORT/games/ID`` opens that game).  The next game is started with the
page's ``N`` key.  Kaboom's default rules punish a guess outside the frontier while a
frontier cell is not a certain mine, so this profile tells the solver to keep guesses
on the frontier.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

import numpy as np

from kaboom.bots.desktop.calibration import Calibration
from kaboom.bots.desktop.grid import Grid
from kaboom.bots.desktop.input import Pointer
from kaboom.bots.desktop.look import RGB, CellLook, colour_distance
from kaboom.bots.desktop.profile import Profile
from kaboom.bots.desktop.screen import Window
from kaboom.solver import PRESETS

__all__ = ["KaboomPage"]

_PRESETS = {(width, height): mines for width, height, mines in PRESETS.values()}


def _hex(code: str) -> RGB:
    code = code.lstrip("#")
    if len(code) == 3:
        code = "".join(c * 2 for c in code)
    return int(code[0:2], 16), int(code[2:4], 16), int(code[4:6], 16)


class KaboomPage(Profile):
    """Kaboom's web page (``kaboom/web/``) in ``chromium --app``."""

    contract = 3
    name = "kaboom-page"
    window_pattern = r"^Kaboom\b"
    outside_guess = False
    raised_tiles = True
    palette: ClassVar[Mapping[str, RGB]] = {
        "1": _hex("#1d4ed8"), "2": _hex("#15803d"), "3": _hex("#dc2626"),
        "4": _hex("#1e1b7a"), "5": _hex("#8a1c1c"), "6": _hex("#0e7490"),
        "7": _hex("#111111"), "8": _hex("#6b7280"), "?": _hex("#243b6b"),
        "flag": _hex("#e0112b"), "white": (255, 255, 255),
    }
    _EXPLODED = _hex("#ef2b2b")
    exploded = _EXPLODED
    _WRONG_FLAG = _hex("#ffd7d7")
    _PROOF = _hex("#bfe8c9")

    def __init__(self, width: int = 1280, height: int = 1000) -> None:
        super().__init__()
        self.window_size = (width, height)
        self._profile_dir: tempfile.TemporaryDirectory[str] | None = None

    def command(self, game_id: str | None) -> list[str] | None:
        if not game_id:
            return None
        exe = shutil.which("chromium") or shutil.which("chromium-browser") or "chromium"
        w, h = self.window_size
        return [exe, "--no-sandbox", "--test-type", f"--app={game_id}",
                f"--user-data-dir={self._profile()}", f"--window-size={w},{h}",
                "--window-position=0,0", "--force-device-scale-factor=1", "--no-first-run",
                "--no-default-browser-check", "--disable-gpu", "--disable-extensions",
                "--disable-features=Translate", "--password-store=basic", "--noerrdialogs",
                "--disable-session-crashed-bubble", "--disable-dev-shm-usage"]

    def can_launch(self, game_id: str | None) -> bool:
        return bool(game_id)  # the page's address; there is nothing to attach to without

    def environment(self) -> dict[str, str]:
        # Chromium keeps its singleton socket in a fresh directory under TMPDIR and does
        # not remove it when terminated: inside the profile, it goes with the profile.
        return {"TMPDIR": self._profile()}

    def stop(self, process: subprocess.Popen[bytes]) -> None:
        super().stop(process)
        if self._profile_dir is not None:
            self._profile_dir.cleanup()
            self._profile_dir = None

    @property
    def profile_dir(self) -> Path | None:
        """The running (or next) launch's Chromium profile, removed when it stops."""
        return None if self._profile_dir is None else Path(self._profile_dir.name)

    def _profile(self) -> str:
        """A fresh, empty Chromium profile for the next launch (one per launch)."""
        if self._profile_dir is None:
            self._profile_dir = tempfile.TemporaryDirectory(prefix="kaboom-chromium-",
                                                            ignore_cleanup_errors=True)
        return self._profile_dir.name

    def next_game_id(self, game_id: str | None, index: int) -> str | None:
        return game_id if index == 0 else None  # later games: the page's own N key

    def new_game(self, pointer: Pointer, window: Window, image: np.ndarray,
                 grid: Grid | None) -> None:
        pointer.key("n")
        # The key leaves the board focused in keyboard mode, which outlines a cursor
        # cell; a click on the page margin takes the focus away again.
        pointer.click(window, 6, 6)

    def mine_count(self, game_id: str | None, width: int, height: int) -> int:
        match = re.match(r"(https?://[^/]+)/games/([^/?#]+)", game_id or "")
        if match:  # the page shows the total in its header; the API says it exactly
            url = f"{match.group(1)}/api/games/{match.group(2)}"
            try:
                with urllib.request.urlopen(url, timeout=10) as reply:
                    return int(json.load(reply)["mines"])
            except urllib.error.HTTPError as exc:  # 404: no such game (or it expired)
                raise ValueError(f"{url} answered HTTP {exc.code}: is the game link right?"
                                 ) from None
            except (OSError, ValueError, KeyError) as exc:
                raise ValueError(f"cannot read the mine count from {url}: {exc}") from None
        if (width, height) in _PRESETS:
            return _PRESETS[width, height]
        raise ValueError(f"cannot tell the mine count of a {width}x{height} Kaboom board; "
                         "pass --mines or a /games/ID URL")

    def classify(self, look: CellLook, cal: Calibration) -> str | None:
        if colour_distance(look.surface, self._EXPLODED) < 50 or (
                look.ink.get("3", 0) + look.ink.get("flag", 0) > 0.2 and max(look.surface) < 60):
            return "X"
        if colour_distance(look.surface, self._WRONG_FLAG) < 30:
            return "!"
        if colour_distance(look.surface, self._PROOF) < 30:
            # the provably safe cell, shown after a loss: covered (a check mark) or a
            # wrong flag (flag and cross)
            reds = sum(look.ink.get(k, 0.0) for k in ("flag", "3", "5"))
            return "!" if reds > 0.05 else "#"
        if look.relief >= 0.5 * cal.relief and self.near(look.surface, cal.covered):
            if look.ink_share < 0.05:
                return "#"
            if look.dominant_ink() == "?":
                return "?"
            return "F"
        if cal.open is not None and not self.near(look.surface, cal.open):
            return None
        return look.number(mine_share=0.3)
