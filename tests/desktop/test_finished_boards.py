"""``look`` tells a board it cannot read from a finished one, and a loss from a misread.

The stored shots of lost games are read whole, or, by a profile without a mine reader,
refused with a reason that says the board is lost and its mines unread; a message the
game draws over a lost board is named as such, not as missing mines.  A real sgt-mines
board with every cell open (one mine, won at the first click) and a won one are looked
at under Xvfb.  The default ``classify`` reads a flag in the palette's flag colour and
nothing else on a covered tile: letters drawn over the board are unreadable, not flags.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from kaboom.bots.desktop import (
    RGB,
    Calibration,
    CellLook,
    Profile,
    UnreadableCellError,
    Window,
)
from kaboom.bots.desktop.profiles.gnome_mines import GnomeMines
from kaboom.bots.desktop.profiles.kaboom_page import KaboomPage
from kaboom.bots.desktop.profiles.sgt_mines import SgtMines, encode_layout
from kaboom.bots.desktop.snapshot import UNREAD, Snapshot, take_snapshot
from kaboom.solver.position import Position
from tests.desktop.boards import random_layout
from tests.desktop.cli import kaboom_desktop

SCREENS = Path(__file__).resolve().parents[1] / "data" / "screens"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def _shot(name: str) -> tuple[np.ndarray, Position]:
    shot = SCREENS / name
    return (np.asarray(Image.open(shot).convert("RGB")),
            Position.from_text(shot.with_suffix(".txt").read_text()))


def _look(profile: Profile, image: np.ndarray, game_id: str | None = None) -> Snapshot:
    window = Window(1, "shot", (), 0, 0, image.shape[1], image.shape[0])
    return take_snapshot(profile, window, image, game_id)


class GnomeWithoutMines(GnomeMines):
    """GNOME Mines read by a profile never taught its mines."""

    def classify(self, look: CellLook, cal: Calibration) -> str | None:
        got = super().classify(look, cal)
        return None if got in ("*", "X") else got


def _message(image: np.ndarray, box: tuple[int, int, int, int], text: str,
             band: bool = True) -> np.ndarray:
    """``image`` with ``text`` drawn across ``box`` in large black letters (on a white
    band), as games draw "You have lost" over their board."""
    picture = Image.fromarray(image.copy())
    draw = ImageDraw.Draw(picture)
    if band:
        draw.rectangle(box, fill=(255, 255, 255))
    draw.text((box[0] + 6, box[1] + 2), text, fill=(0, 0, 0),
              font=ImageFont.truetype(FONT, box[3] - box[1] - 6))
    return np.asarray(picture)


@pytest.mark.parametrize("name", ["gnome-mines/medium-lost.png", "gnome-mines/big-lost.png",
                                  "kaboom-page/16x16-lost.png"])
def test_a_lost_board_with_its_mines_shown_is_read_whole(name: str) -> None:
    image, truth = _shot(name)
    profile: Profile = GnomeMines() if name.startswith("gnome") else KaboomPage()
    snap = _look(profile, image)
    assert snap.rows == list(truth.rows)
    assert snap.board.startswith("lost ("), snap.board
    assert snap.finished and "board: lost (" in snap.report()


def test_a_lost_board_whose_mines_are_not_read_says_so() -> None:
    image, truth = _shot("gnome-mines/medium-lost.png")
    snap = _look(GnomeWithoutMines(), image)
    mines = sum(row.count("*") + row.count("X") for row in truth.rows)
    assert "".join(snap.rows).count(UNREAD) == mines
    assert snap.board.startswith("lost (cell ")
    assert "no cell as a mine: teach it the game's mines" in snap.board


def test_a_message_over_a_lost_board_is_named_not_blamed_on_the_mines() -> None:
    image, _ = _shot("gnome-mines/medium-lost.png")
    profile = GnomeMines()
    grid = profile.find_grid(image)
    x0, y0, _, _ = grid.rect(2, 9)
    _, _, x1, y1 = grid.rect(9, 9)
    snap = _look(GnomeMines(), _message(image, (x0, y0, x1, y1), "You lost", band=False))
    assert snap.grid == grid
    assert UNREAD in "".join(snap.rows)
    assert "the profile reads the game's mines" in snap.board
    assert "something else is drawn at" in snap.board and "teach it" not in snap.board


def test_letters_on_covered_tiles_are_no_flags() -> None:
    """sgt-mines read with the default rules and its flag colour declared: its real flags
    read F; black letters over covered tiles are unreadable, never flags (the default
    read any ink on a covered tile as one)."""

    class Defaults(Profile):
        contract = 3
        name = "defaults"
        window_pattern = "^$"
        palette: ClassVar[Mapping[str, RGB]] = {**SgtMines.palette, "flag": (255, 0, 0)}

        def mine_count(self, game_id: str | None, width: int, height: int) -> int:
            return 10

    image, truth = _shot("sgt-mines/9x9-tile32.png")
    profile = Defaults()
    grid = profile.find_grid(image)
    rows = [row.replace("X", "~") for row in truth.rows]
    read = _look(Defaults(), image).rows
    assert [r.replace("X", "~") for r in read] == rows  # (no mine reader: the X is ~)
    assert read[0][0] == "F"
    covered = [c for c in grid.cells() if truth.rows[c[1]][c[0]] == "#"]
    x0, y0, _, _ = grid.rect(*min(covered, key=lambda c: (c[1], c[0])))
    lettered = _message(image, (x0, y0 + 6, x0 + 64, y0 + 28), "Boom", band=False)
    with pytest.raises(UnreadableCellError):
        profile.read(lettered, grid)
    assert "F" not in "".join(_look(Defaults(), lettered).rows[1:])


def _one_mine_layout() -> str:
    """A 9x9 layout of one mine whose start cell opens every other cell: won at once, the
    game flags the mine, and every other cell is open."""
    return encode_layout(9, 9, {(8, 8)}, (0, 0))


def test_look_at_a_board_with_no_covered_tile_says_it_is_finished(xdisplay: str,
                                                                   need_sgt_mines: None,
                                                                   tmp_path: Path) -> None:
    proc = kaboom_desktop("look", "--game", "sgt-mines", "--game-id", _one_mine_layout(),
                          "--png", str(tmp_path / "look.png"), display=xdisplay)
    assert proc.returncode == 1, proc.stderr
    board = next(line for line in proc.stdout.splitlines() if line.startswith("board: "))
    assert board.startswith("board: finished: no covered tile is left"), proc.stdout
    assert "unsure: no covered tile" in proc.stdout


def test_look_at_a_won_board_says_it_is_won(xdisplay: str, need_sgt_mines: None,
                                            tmp_path: Path) -> None:
    layout, start = random_layout(random.Random(58), 9, 9, 6)
    game_id = encode_layout(9, 9, layout, start)
    from kaboom.bots.desktop.driver import DesktopSession

    with DesktopSession(SgtMines(), xdisplay, speed=0) as session:
        record = session.play(game_id)
        assert record.outcome == "won"
        assert session.window is not None
        image = session.screen.capture_window(session.window)
    snap = _look(SgtMines(), image, game_id)
    assert snap.board == "won (the cells still covered are the 6 mines)"
    assert snap.finished
