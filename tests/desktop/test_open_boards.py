"""A board more than 80 % open is read right or refused ("unsure"), never misread.

The reader that matters here is a fresh one: a profile that has seen nothing of the game
calibrates on a mostly open board (``look`` on a game under way, or after a loss), where
the open cells far outnumber the covered ones, so the largest look-alike group is the
open surface.  Each shipped game is brought to such boards, and a fresh profile's reading
of the capture must equal the truth (the known layout, the API's board, or the reading of
the profile that watched the game from its start, itself checked by ``test_record.py``)
or be refused with :class:`UnsureError`.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from kaboom.bots.desktop import Profile, UnsureError
from kaboom.bots.desktop.driver import DesktopSession, UnsureReadError
from kaboom.bots.desktop.profiles.gnome_mines import GnomeMines
from kaboom.bots.desktop.profiles.kaboom_page import KaboomPage
from kaboom.bots.desktop.profiles.sgt_mines import SgtMines, encode_layout
from kaboom.bots.desktop.snapshot import UNREAD, take_snapshot
from kaboom.solver.advisor import decide
from kaboom.solver.position import Move, Position
from tests.apikit import new_game
from tests.desktop.boards import expected_rows, opened_by, random_layout
from tests.desktop.cli import kaboom_desktop


def _open_share(rows: list[str] | tuple[str, ...]) -> float:
    cells = "".join(rows)
    return sum(ch in "012345678" for ch in cells) / len(cells)


def _fresh_read(profile: Profile, image: np.ndarray) -> list[str] | None:
    """A new instance of the profile's class reads ``image``: its rows, or ``None`` when
    it refuses (unsure)."""
    fresh = type(profile)()
    try:
        return fresh.read(image, fresh.find_grid(image))
    except UnsureError:
        return None


def test_sgt_mines_open_boards(xdisplay: str, need_sgt_mines: None, tmp_path: Path) -> None:
    """Boards 80-100 % open, playing, won (every mine flagged) and lost (a mine stepped
    on), from known layouts; and ``look`` run on one in a process of its own."""
    rng = random.Random(50)
    outcome = {"right": 0, "refused": 0}
    for width, height, mines in ((16, 16, 20), (30, 16, 40), (9, 9, 6)):
        layout, start = random_layout(rng, width, height, mines)
        with DesktopSession(SgtMines(), xdisplay, speed=0) as session:
            session.start(encode_layout(width, height, layout, start))
            safe = [(x, y) for y in range(height) for x in range(width)
                    if (x, y) not in layout]
            rng.shuffle(safe)
            clicked = [start]
            for cell in safe:  # open all but a few safe cells: still playing
                opened = opened_by(layout, width, height, clicked)
                if cell in opened or len(opened_by(layout, width, height,
                                                   [*clicked, cell])) > len(safe) - 3:
                    continue
                clicked.append(cell)
                session.click(Move.reveal(*cell))
            def check(state: str, want: list[str]) -> None:
                got = session.read_until(want)
                assert got == want, state
                assert _open_share(want) > 0.8
                assert session.window is not None
                image = session.screen.capture_window(session.window)
                fresh = _fresh_read(session.profile, image)
                assert fresh is None or fresh == want, (state, "\n".join(fresh or []))
                outcome["right" if fresh else "refused"] += 1

            opened = opened_by(layout, width, height, clicked)
            check("playing", expected_rows(layout, width, height, opened))
            if width == 9:  # lose: step on a mine
                mine = sorted(layout)[0]
                session.click(Move.reveal(*mine))
                want = expected_rows(layout, width, height, opened)
                row = want[mine[1]]
                want[mine[1]] = row[:mine[0]] + "X" + row[mine[0] + 1:]
                check("lost", want)
            else:  # win: sgt-mines flags every mine
                for cell in safe:
                    if cell not in opened_by(layout, width, height, clicked):
                        clicked.append(cell)
                        session.click(Move.reveal(*cell))
                want = expected_rows(layout, width, height, set(safe), won=True)
                check("won", want)
            if width == 16:  # look, in a process of its own, attached to this window
                proc = kaboom_desktop("look", "--game", "sgt-mines", "--png",
                                      str(tmp_path / "look.png"), display=xdisplay)
                if proc.returncode == 0:
                    assert "\n".join(want) in proc.stdout
                else:
                    assert "unsure: " in proc.stdout, proc.stdout + proc.stderr
    print(f"sgt-mines open boards: {outcome}")
    assert outcome["right"] >= 4  # the reader is of use on them, not only cautious


def _page_truth(url: str, game: dict[str, Any]) -> list[str]:
    board: list[str] = httpx.get(f"{url}/api/games/{game['id']}", timeout=30).json()["board"]
    return board


def test_kaboom_page_open_boards(xdisplay: str, kaboom_url: str, need_chromium: None) -> None:
    game = new_game(kaboom_url, width=16, height=16, mines=12, seed=50, first_click="opening")
    url = f"{kaboom_url}/games/{game['id']}#player={game['player_token']}"
    seen = 0
    with DesktopSession(KaboomPage(), xdisplay, speed=0) as session:
        position = session.start(url)
        while session.profile.outcome(position) == "playing":
            decision = decide(position)
            for move in decision.moves:
                session.click(move)
            rows = session.read_until(_page_truth(kaboom_url, game), timeout=10)
            position = Position.from_rows(tuple(rows), game["mines"])
            if _open_share(position.rows) > 0.8:
                assert session.window is not None
                image = session.screen.capture_window(session.window)
                truth = _page_truth(kaboom_url, game)
                assert list(position.rows) == truth
                fresh = _fresh_read(session.profile, image)
                assert fresh is None or fresh == truth, "\n".join(fresh or [])
                seen += fresh is not None
    assert seen >= 1


def test_gnome_mines_open_boards(xdisplay: str) -> None:
    """GNOME Mines has no seeds: its own games are played, and every reading more than
    80 % open is read again by a fresh profile, which must agree or refuse."""
    checked = {"right": 0, "refused": 0}
    with DesktopSession(GnomeMines(), xdisplay, speed=0) as session:
        read = session.read

        def read_and_recheck(timeout: float = 3.0) -> Position:
            position = read(timeout)
            if _open_share(position.rows) > 0.8 and session.window is not None:
                image = session.screen.capture_window(session.window)
                assert session.grid is not None
                ref = session.profile.read(image, session.grid)
                fresh = _fresh_read(session.profile, image)
                assert fresh is None or fresh == ref, "\n".join(fresh or [])
                checked["right" if fresh else "refused"] += 1
            return position

        session.read = read_and_recheck  # type: ignore[method-assign]
        for i in range(8):
            session.play("small", index=i)
            if sum(checked.values()) >= 3:
                break
    print(f"gnome-mines open boards: {checked}")
    assert sum(checked.values()) >= 1, "no board more than 80 % open in 8 games"


class WrongCovered(SgtMines):
    """sgt-mines with a covered colour its board never shows: the reader cannot tell."""

    covered_colour = (0, 200, 0)


def test_an_unsure_reader_reads_nothing_and_plays_nothing(xdisplay: str,
                                                          need_sgt_mines: None) -> None:
    with DesktopSession(WrongCovered(), xdisplay, speed=0) as session:
        with pytest.raises(UnsureReadError, match=r"^unsure: .*declared covered colour"):
            session.play("9x9n10#unsure")
        assert session.window is not None
        snap = take_snapshot(session.profile, session.window,
                             session.screen.capture_window(session.window))
    assert snap.unsure is not None and set("".join(snap.rows)) == {UNREAD}
    assert "unsure: " in snap.report()
