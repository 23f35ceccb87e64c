"""``play --record DIR`` then ``check DIR`` on a won and a lost game of each shipped game,
and a loss without a mine reader said as exactly that."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from PIL import Image

from kaboom.bots.desktop import Calibration, CellLook
from kaboom.bots.desktop.driver import DesktopSession
from kaboom.bots.desktop.profiles.gnome_mines import GnomeMines
from kaboom.bots.desktop.profiles.kaboom_page import KaboomPage
from kaboom.bots.desktop.profiles.sgt_mines import SgtMines
from kaboom.bots.desktop.record import check_game, game_folders
from tests.apikit import new_game
from tests.desktop.cli import kaboom_desktop


def _outcomes(folder: Path) -> list[str]:
    return [json.loads((g / "game.json").read_text())["outcome"] for g in game_folders(folder)]


def _check_every_game(folder: Path) -> None:
    """``kaboom bot desktop check DIR``: every cell of every read right."""
    proc = kaboom_desktop("check", str(folder))
    print(proc.stdout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ", 0 wrong" in proc.stdout.splitlines()[-1], proc.stdout
    for game in game_folders(folder):
        assert (game / "first.png").stat().st_size and (game / "last.png").stat().st_size
        assert (game / "clicks.txt").read_text()
        # the grid each reading was made in, in the captures' coordinates
        meta = json.loads((game / "game.json").read_text())
        assert meta["grids"][0]["from_read"] == 1
        width, height = Image.open(game / "first.png").size
        for entry in meta["grids"]:
            grid = entry["grid"]
            assert (grid["cols"], grid["rows"]) == (meta["width"], meta["height"])
            assert len(grid["x"]) == grid["cols"] + 1 and len(grid["y"]) == grid["rows"] + 1
            assert 0 <= grid["x"][0] < grid["x"][-1] <= width
            assert 0 <= grid["y"][0] < grid["y"][-1] <= height


def test_sgt_mines_record_and_check(xdisplay: str, need_sgt_mines: None,
                                    tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    proc = kaboom_desktop("--game", "sgt-mines", "--game-id", "16x16n40a#rec", "--games", "4",
                          "--speed", "0", "--record", str(rec), display=xdisplay)
    assert proc.returncode == 0, proc.stderr
    outcomes = _outcomes(rec)
    assert "won" in outcomes and "lost" in outcomes, outcomes
    _check_every_game(rec)
    # a lost sgt-mines game hides its mines: checked against its final board
    lost = game_folders(rec)[outcomes.index("lost")]
    assert not check_game(lost).layout_shown and check_game(lost).right > 0


def test_gnome_mines_record_and_check(xdisplay: str, tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    with DesktopSession(GnomeMines(), xdisplay, speed=0, record=rec) as session:
        # no seeds: a Medium game (nearly always won), then Expert games (won about
        # half the time) until one is lost
        for i, size in enumerate(["medium"] + ["big"] * 10):
            session.play(size, index=i)
            if {"won", "lost"} <= set(_outcomes(rec)):
                break
    outcomes = _outcomes(rec)
    assert "won" in outcomes and "lost" in outcomes, outcomes
    _check_every_game(rec)


def test_kaboom_page_record_and_check(xdisplay: str, kaboom_url: str, need_chromium: None,
                                      tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    games = [new_game(kaboom_url, width=16, height=16, mines=40, seed=47)]  # default rules
    # fair forced guesses on a crowded board: guesses that can lose
    games += [new_game(kaboom_url, width=16, height=16, mines=55, seed=s,
                       forced_guess="fair") for s in range(1, 9)]
    with DesktopSession(KaboomPage(), xdisplay, speed=0, record=rec) as session:
        for game in games:
            session.play(f"{kaboom_url}/games/{game['id']}#player={game['player_token']}")
            if {"won", "lost"} <= set(_outcomes(rec)):
                break
    outcomes = _outcomes(rec)
    assert "won" in outcomes and "lost" in outcomes, outcomes
    _check_every_game(rec)


class NoMineReader(SgtMines):
    """sgt-mines read by a profile that was never taught its mines."""

    def classify(self, look: CellLook, cal: Calibration) -> str | None:
        got = super().classify(look, cal)
        return None if got in ("X", "*") else got


@pytest.mark.usefixtures("need_sgt_mines")
def test_a_loss_without_a_mine_reader_is_said_as_such(xdisplay: str) -> None:
    with DesktopSession(NoMineReader(), xdisplay, speed=0) as session:
        for i in range(4):  # the same series as above: it has a lost game
            started = time.monotonic()
            record = session.play("16x16n40a#rec", index=i)
            if record.outcome != "won":
                break
    assert record.outcome == "lost", record
    assert record.error is None
    assert record.note is not None and "teach it the game's mines" in record.note
    assert "shows the exploded colour" in record.note
    assert time.monotonic() - started < 12  # one read's time, not a settle and a relocate


def _write_record(folder: Path, outcome: str, reads: list[list[str]], mines: int) -> None:
    folder.mkdir(parents=True)
    (folder / "reads.txt").write_text("".join(
        f"read {n} at {n / 10:.3f} s\n" + "\n".join(rows) + "\n\n"
        for n, rows in enumerate(reads, 1)))
    (folder / "clicks.txt").write_text("0.050 s reveal 0 0\n")
    (folder / "game.json").write_text(json.dumps({"outcome": outcome, "mines": mines}))


def test_check_finds_a_cell_read_wrong(tmp_path: Path) -> None:
    final = ["02F", "02F", "011"]  # won: the covered (here flagged) cells are the mines
    _write_record(tmp_path / "game-001", "won", [["###", "###", "###"],
                                                 ["02#", "01#", "011"], final], 2)
    _write_record(tmp_path / "game-002", "lost", [["###", "###", "###"],
                                                  ["2##", "###", "###"], ["2X#", "#*#", "###"]], 2)
    _write_record(tmp_path / "game-003", "error", [["###", "###", "###"]], 2)
    checks = [check_game(g) for g in game_folders(tmp_path)]
    assert checks[0].wrong == ["read 2, cell 1,1: read '1', is '2'"]
    assert checks[1].ok and checks[1].right == 27  # the 2 counts the X and the *
    assert checks[2].unchecked is not None and "error" in checks[2].unchecked
    proc = kaboom_desktop("check", str(tmp_path))
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == "3 games: 53 cells read right, 1 wrong, 1 not checked"
    assert kaboom_desktop("check", str(tmp_path / "nothing")).returncode == 2
