"""Regenerates the reference screenshots in tests/data/screens/ (needs an X display).

    DISPLAY=:N KABOOM_URL=http://127.0.0.1:PORT python -m tests.desktop.make_screens

Each PNG is a window capture; the ``.txt`` next to it is the board it shows (from the
known layout for sgt-mines, from the API for the Kaboom page).  GNOME Mines has no
seeds and no API: its boards are what the reader read, checked by eye on the PNG
before they were committed, and test_gnome_mines.py checks every number of the
"playing" shot against the mines the "lost" shot of the same game shows.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import httpx
from PIL import Image

from kaboom.bots.desktop.driver import DesktopSession
from kaboom.bots.desktop.profile import find_profile
from kaboom.bots.desktop.profiles.kaboom_page import KaboomPage
from kaboom.bots.desktop.profiles.sgt_mines import SgtMines, encode_layout
from kaboom.solver.advisor import decide
from kaboom.solver.knowledge import classify
from kaboom.solver.position import Move, Position
from tests.desktop.boards import expected_rows, opened_by, random_layout

OUT = Path(__file__).resolve().parents[1] / "data" / "screens"


def _park(session: DesktopSession) -> None:
    """Moves the pointer off the board (onto the window's corner), out of the picture."""
    window = session.window
    assert window is not None
    session.pointer.move(window.x + 5, window.y + 5)


def _save(session: DesktopSession, folder: str, name: str, rows: list[str], mines: int) -> None:
    assert session.window is not None
    time.sleep(0.5)
    image = session.screen.capture_window(session.window)
    Image.fromarray(image).save(OUT / folder / f"{name}.png", optimize=True)
    (OUT / folder / f"{name}.txt").write_text(Position.from_rows(rows, mines).to_text() + "\n")


def sgt_mines(display: str) -> None:
    for w, h, m, tile, seed in [(9, 9, 10, 32, "ref-a"), (16, 16, 40, 16, "ref-b")]:
        rng = random.Random(seed)
        layout, start = random_layout(rng, w, h, m)
        with DesktopSession(SgtMines(tile_size=tile), display, speed=0) as session:
            session.start(encode_layout(w, h, layout, start))
            safe = [(x, y) for y in range(h) for x in range(w) if (x, y) not in layout]
            rng.shuffle(safe)
            clicks = safe[: len(safe) // 2]
            for c in clicks:
                session.click(Move.reveal(*c))
            flag = sorted(layout)[0]
            session.click(Move.flag(*flag))
            rows = [list(r) for r in expected_rows(layout, w, h, opened_by(layout, w, h,
                                                                            [start, *clicks]))]
            rows[flag[1]][flag[0]] = "F"
            boom = next(c for c in sorted(layout) if c != flag)
            session.click(Move.reveal(*boom))
            rows[boom[1]][boom[0]] = "X"
            _save(session, "sgt-mines", f"{w}x{h}-tile{tile}", ["".join(r) for r in rows], m)


def kaboom_page(display: str, url: str) -> None:
    game = httpx.post(f"{url}/api/games", json={"width": 16, "height": 16, "mines": 40,
                                                "seed": 4242, "first_click": "opening"}).json()
    gid = game["id"]
    with DesktopSession(KaboomPage(), display, speed=0) as session:
        position = session.start(f"{url}/games/{gid}#player={game['player_token']}")
        for _ in range(4):
            for move in decide(position, outside_guess=False).moves:
                session.click(move)
            time.sleep(1)
            position = Position.from_rows(httpx.get(f"{url}/api/games/{gid}").json()["board"], 40)
        _save(session, "kaboom-page", "16x16-playing", list(position.rows), 40)
        knowledge = classify(position)
        safe = [c for c in position.covered() if c in knowledge.safe]
        risky = [c for c in position.covered() if c not in knowledge.safe]
        session.click(Move.flag(*safe[0]))
        session.click(Move.flag(*risky[-1]))
        session.click(Move.flag(*risky[-1]))
        session.click(Move.reveal(*risky[0]))
        time.sleep(1)
        board = httpx.get(f"{url}/api/games/{gid}").json()["board"]
        _save(session, "kaboom-page", "16x16-lost", board, 40)


def gnome_mines(display: str) -> None:
    """A game played a few moves deep with a right and a wrong flag, then lost on purpose
    (on a proven mine): the "playing" and "lost" shots show the same layout."""
    for size in ("medium", "big"):
        with DesktopSession(find_profile("gnome-mines"), display, speed=0) as session:
            position = session.start(size)
            for _ in range(3):
                for move in decide(position).moves:
                    session.click(move)
                time.sleep(1)
                position = session.read()
            knowledge = classify(position)
            mines = sorted(c for c in position.covered() if c in knowledge.mines)
            unknown = sorted(c for c in position.covered() if c not in knowledge.mines)
            session.click(Move.flag(*mines[0]))
            session.click(Move.flag(*unknown[len(unknown) // 2]))
            _park(session)
            time.sleep(1)
            rows = list(session.read().rows)
            _save(session, "gnome-mines", f"{size}-playing", rows, position.mines)
            session.click(Move.reveal(*mines[-1]))
            _park(session)
            time.sleep(1)
            rows = list(session.read().rows)
            _save(session, "gnome-mines", f"{size}-lost", rows, position.mines)


if __name__ == "__main__":
    display = os.environ["DISPLAY"]
    if os.environ.get("ONLY") == "gnome-mines":
        gnome_mines(display)
        raise SystemExit(0)
    sgt_mines(display)
    gnome_mines(display)
    if os.environ.get("KABOOM_URL"):
        kaboom_page(display, os.environ["KABOOM_URL"])
