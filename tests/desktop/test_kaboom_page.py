"""The screen driver on the project's own page: Chromium on Xvfb, read from pixels only.

The API's ``board`` is the ground truth the pixel reading is checked against, cell by cell,
after every batch of clicks; the page's DOM is never looked at.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from kaboom.bots.desktop.driver import DesktopSession
from kaboom.bots.desktop.profiles.kaboom_page import KaboomPage
from kaboom.solver.advisor import decide
from kaboom.solver.knowledge import classify
from kaboom.solver.position import Move, Position
from tests.apikit import new_game
from tests.desktop.cli import kaboom_desktop

pytestmark = pytest.mark.usefixtures("need_chromium")


def _player_url(url: str, game: dict[str, Any]) -> str:
    """The page of a game with its player's token, so the page (and the bot) may move."""
    return f"{url}/games/{game['id']}#player={game['player_token']}"


def _truth(url: str, game_id: str) -> dict[str, Any]:
    game: dict[str, Any] = httpx.get(f"{url}/api/games/{game_id}", timeout=30).json()
    return game


def _read_matching(session: DesktopSession, url: str, game_id: str,
                   timeout: float = 10.0) -> tuple[list[str], list[str]]:
    """Reads until the screen shows what the API says (the page lags a round trip)."""
    deadline = time.monotonic() + timeout
    while True:
        truth = _truth(url, game_id)["board"]
        seen = list(session.read().rows)
        if seen == truth or time.monotonic() > deadline:
            return seen, truth
        time.sleep(0.1)


def _show(seen: list[str], truth: list[str]) -> str:
    return "\n".join(f"{s}   {t}   {'<-' if s != t else ''}"
                     for s, t in zip(seen, truth, strict=True))


def test_page_read_cell_by_cell_through_a_won_game(xdisplay: str, kaboom_url: str) -> None:
    game = new_game(kaboom_url, width=16, height=16, mines=40, seed=20261122)
    page = _player_url(kaboom_url, game)
    profile = KaboomPage()
    with DesktopSession(profile, xdisplay, speed=0) as session:
        position = session.start(page)
        home = profile.profile_dir
        assert home is not None
        # Chromium's singleton socket lives in the profile, so it goes with it
        assert Path(os.readlink(home / "SingletonSocket")).is_relative_to(home)
        assert session.grid is not None and session.grid.size == (16, 16)
        assert position.mines == 40
        assert list(position.rows) == game["board"]
        checks = 0
        while _truth(kaboom_url, game["id"])["status"] == "playing":
            moves = decide(position, outside_guess=False).moves
            assert moves
            for move in moves:
                session.click(move)
            seen, truth = _read_matching(session, kaboom_url, game["id"])
            assert seen == truth, _show(seen, truth)
            checks += 1
            position = Position.from_rows(seen, 40)
        final = _truth(kaboom_url, game["id"])
        assert final["status"] == "won"
        assert session.profile.outcome(position) == "won"
        assert checks >= 2
    assert not home.exists() and profile.profile_dir is None


def test_page_marks_and_a_loss_read_back(xdisplay: str, kaboom_url: str) -> None:
    game = new_game(kaboom_url, width=9, height=9, mines=10, seed=7, first_click="opening")
    gid = game["id"]
    with DesktopSession(KaboomPage(), xdisplay, speed=0) as session:
        position = session.start(_player_url(kaboom_url, game))
        session.click(decide(position).moves[0])
        seen, truth = _read_matching(session, kaboom_url, gid)
        assert seen == truth, _show(seen, truth)
        position = Position.from_rows(seen, 10)
        knowledge = classify(position)
        covered = [c for c in position.covered()]
        safe = [c for c in covered if c in knowledge.safe]
        risky = [c for c in covered if c not in knowledge.safe]
        assert safe and len(risky) >= 3
        # a flag on a safe cell (shown as a wrong flag after the loss), a question mark
        session.click(Move.flag(*safe[0]))
        marked = risky[-1]
        session.click(Move.flag(*marked))
        session.click(Move.flag(*marked))
        seen, truth = _read_matching(session, kaboom_url, gid)
        assert seen == truth, _show(seen, truth)
        assert "F" in "".join(seen) and "?" in "".join(seen)
        # guessing while a safe cell exists loses: exploded mine, other mines, wrong flag
        session.click(Move.reveal(*risky[0]))
        seen, truth = _read_matching(session, kaboom_url, gid)
        assert _truth(kaboom_url, gid)["status"] == "lost"
        assert seen == truth, _show(seen, truth)
        board = "".join(seen)
        assert "X" in board and "*" in board and "!" in board
        assert session.profile.outcome(Position.from_rows(seen, 10)) == "lost"


def test_driver_wins_page_games(xdisplay: str, kaboom_url: str) -> None:
    game = new_game(kaboom_url, width=16, height=16, mines=40, seed=99)
    with DesktopSession(KaboomPage(), xdisplay, speed=0) as session:
        record = session.play(_player_url(kaboom_url, game))
        # the next game through the page's own N key, with the page's new-game settings
        second = session.play(_player_url(kaboom_url, game), index=1)
    assert record.outcome == "won", "\n".join(record.final)
    assert _truth(kaboom_url, game["id"])["status"] == "won"
    assert list(record.final) == _truth(kaboom_url, game["id"])["board"]
    assert second.outcome == "won", "\n".join(second.final)
    assert second.clicks > 0


def test_driver_gives_up_on_a_page_it_may_not_move(xdisplay: str, kaboom_url: str) -> None:
    """A spectator's page (no player token) ignores clicks: the game ends as an error
    after ``stall`` unchanged batches, instead of being clicked for hours."""
    game = new_game(kaboom_url, width=9, height=9, mines=10, seed=5)
    with DesktopSession(KaboomPage(), xdisplay, speed=0, settle=0.5, stall=3) as session:
        record = session.play(f"{kaboom_url}/games/{game['id']}")
    assert record.outcome == "error"
    assert record.error is not None and "unchanged" in record.error
    assert record.turns == 3 and record.rereads == 3
    assert _truth(kaboom_url, game["id"])["moves"] == 0  # the server saw no move


def test_cli_stall_ends_a_game_that_takes_no_clicks(xdisplay: str, kaboom_url: str,
                                                    tmp_path: Path) -> None:
    """``kaboom bot desktop --stall N``: the command line sets the same limit."""
    game = new_game(kaboom_url, width=9, height=9, mines=10, seed=6)
    out = tmp_path / "games.jsonl"
    proc = kaboom_desktop("--game", "kaboom-page", "--game-id",
                          f"{kaboom_url}/games/{game['id']}", "--speed", "0", "--stall", "2",
                          "--json", str(out), display=xdisplay, timeout=180)
    assert proc.returncode == 1, proc.stderr
    record = json.loads(out.read_text())
    assert record["outcome"] == "error" and "2 batches" in record["error"]
    assert record["turns"] == 2
    assert _truth(kaboom_url, game["id"])["moves"] == 0


def test_the_mine_count_of_a_game_link_or_why_not(kaboom_url: str) -> None:
    """The profile reads a linked game's mine count from the API; a link to no game (or
    to no server) is the one-line error ``kaboom bot desktop`` prints, not a traceback
    from urllib."""
    game = new_game(kaboom_url, width=12, height=7, mines=11)
    page = KaboomPage()
    assert page.mine_count(_player_url(kaboom_url, game), 12, 7) == 11
    with pytest.raises(ValueError, match="HTTP 404: is the game link right"):
        page.mine_count(f"{kaboom_url}/games/nosuchgame", 9, 9)
    with pytest.raises(ValueError, match="cannot read the mine count"):
        page.mine_count("http://127.0.0.1:9/games/abc", 9, 9)
