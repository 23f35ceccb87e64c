"""``kaboom bot desktop`` end to end: launch sgt-mines on Xvfb, play, report."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.desktop.cli import kaboom_desktop

pytestmark = pytest.mark.usefixtures("need_sgt_mines")


def test_cli_plays_seeded_games_and_writes_json(xdisplay: str, tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    proc = kaboom_desktop("--game", "sgt-mines", "--game-id", "9x9n10#cli", "--games", "2",
                          "--speed", "40", "--flag-mines", "--profile", "fast", "--json",
                          str(out), display=xdisplay)
    assert proc.returncode == 0, proc.stderr
    assert "won 2/2" in proc.stdout  # no-guess boards: a sound reader always wins
    games = [json.loads(line) for line in out.read_text().splitlines()]
    assert [g["game_id"] for g in games] == ["9x9n10#cli", "9x9n10#cli-1"]
    assert all(g["outcome"] == "won" and g["clicks"] > 0 for g in games)
    assert {g["profile"] for g in games} == {"fast"}


def test_cli_refuses_a_bad_solver_profile_before_starting() -> None:
    proc = kaboom_desktop("--game", "sgt-mines", "--xvfb", "--profile", "strong,ratio=high",
                          timeout=60)
    assert proc.returncode == 2
    assert "ratio takes a number" in proc.stderr


def test_cli_needs_a_display(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    proc = kaboom_desktop("--game", "sgt-mines", env=env, timeout=60)
    assert proc.returncode == 2
    assert "DISPLAY" in proc.stderr


def test_cli_rejects_an_unknown_game() -> None:
    proc = kaboom_desktop("--game", "nope", "--xvfb", timeout=60)
    assert proc.returncode == 2
    assert "known games: gnome-mines, kaboom-page, sgt-mines" in proc.stderr


def test_look_prints_every_reading_and_draws_them(tmp_path: Path) -> None:
    import random

    from kaboom.bots.desktop.profiles.sgt_mines import encode_layout
    from tests.desktop.boards import expected_rows, opened_by, random_layout

    mines, start = random_layout(random.Random("look"), 9, 9, 10)
    png = tmp_path / "look.png"
    proc = kaboom_desktop("look", "--xvfb", "--game", "sgt-mines", "--game-id",
                          encode_layout(9, 9, mines, start), "--png", str(png))
    assert proc.returncode == 0, proc.stderr
    assert "grid 9x9 cells" in proc.stdout
    board = expected_rows(mines, 9, 9, opened_by(mines, 9, 9, [start]))
    assert "#" in "".join(board)
    assert "\n".join(board) in proc.stdout
    from PIL import Image

    with Image.open(png) as picture:
        assert picture.size[0] > 9 * 16 and picture.size[1] > 9 * 16
