"""GNOME Mines, the profile written against docs/desktop.md: stored shots and real games.

GNOME Mines has no seeds, so the truth comes from the game itself: a lost game draws
every mine, and each number read before the loss (and on the lost board) must count
the mines drawn around it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kaboom.bots.desktop import find_profile
from kaboom.bots.desktop.driver import DesktopSession, _may_complete
from kaboom.solver.position import Cell, Move, Position
from tests.oracle import number_at

SHOTS = Path(__file__).resolve().parents[1] / "data" / "screens" / "gnome-mines"


def _mines(board: Position) -> frozenset[Cell]:
    """The mines a lost board draws (a flag on a mine stays a flag; ``!`` is no mine)."""
    return frozenset((x, y) for y, row in enumerate(board.rows) for x, ch in enumerate(row)
                     if ch in "*XF")


def _wrong_numbers(board: Position, mines: frozenset[Cell]) -> list[Cell]:
    return [(x, y) for y, row in enumerate(board.rows) for x, ch in enumerate(row)
            if ch.isdigit() and number_at(mines, x, y) != int(ch)]


@pytest.mark.parametrize("size", ["medium", "big"])
def test_numbers_before_the_loss_count_the_mines_it_shows(size: str) -> None:
    playing = Position.from_text((SHOTS / f"{size}-playing.txt").read_text())
    lost = Position.from_text((SHOTS / f"{size}-lost.txt").read_text())
    mines = _mines(lost)
    assert "X" in "".join(lost.rows) and "!" in "".join(lost.rows)
    assert len(mines) == lost.mines  # every mine drawn: the flag that was wrong is no mine
    assert not _wrong_numbers(playing, mines)
    assert not _wrong_numbers(lost, mines)
    # the open cells stay open, and the loss only adds
    for y, row in enumerate(playing.rows):
        for x, ch in enumerate(row):
            if ch.isdigit():
                assert lost.char(x, y) == ch


@pytest.mark.skipif(shutil.which("gnome-mines") is None
                    and not Path("/usr/games/gnome-mines").exists(),
                    reason="gnome-mines is not installed")
def test_plays_real_games_to_the_end(xdisplay: str) -> None:
    records = []
    with DesktopSession(find_profile("gnome-mines"), xdisplay, speed=0) as session:
        for i in range(2):
            records.append(session.play("medium", index=i))
    for r in records:
        assert (r.width, r.height, r.mines) == (16, 16, 40)
        assert r.outcome in ("won", "lost"), r.error
        if r.outcome == "lost":
            final = Position.from_rows(list(r.final), r.mines)
            assert not r.last_certain, "lost on a proven move:\n" + "\n".join(r.final)
            assert not _wrong_numbers(final, _mines(final))


def test_a_win_by_the_games_own_flood_is_a_win() -> None:
    """GNOME Mines covers a won board with its "Congratulations!" dialog at once; when the
    last click was a 0 that the game flooded open, the clicks alone do not finish the
    board, but the cells the flood can reach do (CI once called such a win an error)."""
    board = Position.from_rows(["###", "###", "###"], 1)
    assert _may_complete(board, [Move.reveal(0, 0)], flood=True)
    assert not _may_complete(board, [Move.reveal(0, 0)], flood=False)
    # a flood stops at open cells: the covered cells beyond the 1 stay covered
    split = Position.from_rows(["##1##"], 1)
    assert not _may_complete(split, [Move.reveal(0, 0)], flood=True)
    assert _may_complete(split, [Move.reveal(0, 0), Move.reveal(1, 0), Move.reveal(3, 0)],
                         flood=False)
