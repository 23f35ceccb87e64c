"""The screen driver plays real sgt-mines games to the end under Xvfb."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from kaboom.bots.desktop.driver import DesktopSession
from kaboom.bots.desktop.profiles.sgt_mines import SgtMines
from kaboom.bots.desktop.screen import Window
from kaboom.solver.position import Move

pytestmark = pytest.mark.usefixtures("need_sgt_mines")


def test_wins_a_no_guess_expert_board(xdisplay: str) -> None:
    with DesktopSession(SgtMines(), xdisplay, speed=0) as session:
        record = session.play("30x16n99#kaboom-expert")
    assert (record.width, record.height, record.mines) == (30, 16, 99)
    assert record.outcome == "won", "\n".join(record.final)
    assert record.guesses == 0  # sgt-mines boards never need a guess
    # won means every safe cell is open and sgt-mines flagged the 99 mines itself
    assert sum(row.count("F") for row in record.final) == 99
    assert not any("#" in row for row in record.final)


def test_twenty_seeded_games_play_to_the_end(
    xdisplay: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Intermediate boards with guessing allowed ('a'): the bot must finish every game,
    and may lose only on a guess (a loss on a proven move would mean a misread)."""
    records = []
    with DesktopSession(SgtMines(), xdisplay, speed=0) as session:
        for i in range(20):
            records.append(session.play("16x16n40a#kaboom", index=i))
    for r in records:
        assert r.outcome in ("won", "lost")
        if r.outcome == "lost":
            assert not r.last_certain, f"{r.game_id} lost on a proven move:\n" + "\n".join(r.final)
    assert len({r.game_id for r in records}) == 20
    wins = sum(r.outcome == "won" for r in records)
    clicks = sum(r.clicks for r in records)
    seconds = sum(r.seconds for r in records)
    (tmp_path / "games.jsonl").write_text("".join(json.dumps(r.to_json()) + "\n" for r in records))
    with capsys.disabled():
        print(f"\nsgt-mines 16x16n40a x20: won {wins}/20 ({5 * wins}%), "
              f"{clicks / seconds:.1f} clicks/s")


def test_a_lagging_screen_is_waited_for_not_clicked_blind(xdisplay: str) -> None:
    """Captures that show the screen as it was 0.4 s earlier: the driver must wait for its
    clicks to show rather than decide on a stale board and click cells twice."""
    lag = 0.4
    with DesktopSession(SgtMines(), xdisplay, speed=0) as session:
        real = session.screen.capture_window
        frames: list[tuple[float, np.ndarray]] = []

        def lagging(window: Window) -> np.ndarray:
            now = time.monotonic()
            frames.append((now, real(window)))
            old = [img for t, img in frames if t <= now - lag]
            return old[-1] if old else frames[0][1]

        session.screen.capture_window = lagging  # type: ignore[method-assign]
        clicked: list[tuple[int, int]] = []
        click = session.click

        def recording(move: Move, first: bool = True) -> None:
            clicked.append(move.cell)
            click(move, first)

        session.click = recording  # type: ignore[method-assign]
        record = session.play("16x16n40#lag")
    assert record.outcome == "won", "\n".join(record.final)
    assert len(clicked) == len(set(clicked)), "a cell was clicked twice"
