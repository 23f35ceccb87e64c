"""Reading sgt-mines boards with known layouts back, cell by cell, on a real Xvfb screen."""

from __future__ import annotations

import random

import pytest

from kaboom.bots.desktop.driver import DesktopSession
from kaboom.bots.desktop.profiles.sgt_mines import SgtMines, encode_layout
from kaboom.solver.position import Move
from tests.desktop.boards import expected_rows, opened_by, random_layout

pytestmark = pytest.mark.usefixtures("need_sgt_mines")


def _diff(got: list[str], want: list[str]) -> str:
    lines = zip(got, want, strict=True)
    return "\n".join(f"{g}   {w}   {'<-' if g != w else ''}" for g, w in lines)


# (width, height, mines, tile size): the three standard sizes, at three tile sizes
SIZES = [(9, 9, 10, 32), (16, 16, 40, 24), (30, 16, 99, 20)]


@pytest.mark.parametrize(("width", "height", "mines", "tile"), SIZES,
                         ids=[f"{w}x{h}" for w, h, _, _ in SIZES])
def test_known_layout_reads_back_exactly(xdisplay: str, width: int, height: int, mines: int,
                                         tile: int) -> None:
    rng = random.Random(f"{width}x{height}")
    layout, start = random_layout(rng, width, height, mines)
    game_id = encode_layout(width, height, layout, start)
    with DesktopSession(SgtMines(tile_size=tile), xdisplay, speed=0) as session:
        first = session.start(game_id)
        assert session.grid is not None
        assert (session.grid.cols, session.grid.rows) == (width, height)
        assert round(session.grid.pitch_x) == tile
        assert first.mines == mines
        opened = opened_by(layout, width, height, [start])
        want = expected_rows(layout, width, height, opened)
        assert list(first.rows) == want, _diff(list(first.rows), want)

        # open half of the remaining safe cells: covered cells, zeros and every digit
        safe = [(x, y) for y in range(height) for x in range(width)
                if (x, y) not in layout and (x, y) not in opened]
        rng.shuffle(safe)
        half = safe[: len(safe) // 2]
        for cell in half:
            session.click(Move.reveal(*cell))
        opened = opened_by(layout, width, height, [start, *half])
        want = expected_rows(layout, width, height, opened)
        got = session.read_until(want)
        assert got == want, _diff(got, want)

        # open the rest: the game is won and sgt-mines flags every mine itself
        rest = [c for c in safe if c not in opened]
        for cell in rest:
            session.click(Move.reveal(*cell))
        opened = opened_by(layout, width, height, [start, *half, *rest])
        want = expected_rows(layout, width, height, opened, won=True)
        got = session.read_until(want)
        assert got == want, _diff(got, want)
        assert session.profile.outcome(session.read()) == "won"


def test_flag_and_exploded_mine_read_back(xdisplay: str) -> None:
    rng = random.Random("boom")
    layout, start = random_layout(rng, 9, 9, 10)
    with DesktopSession(SgtMines(), xdisplay, speed=0) as session:
        session.start(encode_layout(9, 9, layout, start))
        opened = opened_by(layout, 9, 9, [start])
        base = expected_rows(layout, 9, 9, opened)
        flagged, stepped = sorted(layout)[:2]
        session.click(Move.flag(*flagged))
        want = [list(r) for r in base]
        want[flagged[1]][flagged[0]] = "F"
        rows = ["".join(r) for r in want]
        got = session.read_until(rows)
        assert got == rows, _diff(got, rows)
        session.click(Move.reveal(*stepped))
        want[stepped[1]][stepped[0]] = "X"
        rows = ["".join(r) for r in want]
        got = session.read_until(rows)
        assert got == rows, _diff(got, rows)
        assert session.profile.outcome(session.read()) == "lost"
