"""`bench/desktop_play.py` still plays the page as its player (results only, no timings).

Since player tokens came it had opened page games as a spectator, whose page ignores
clicks; the driver clicked on for hours and nothing noticed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.benchkit import bench_report, bench_usage_error, run_bench


@pytest.mark.usefixtures("need_chromium")
def test_desktop_play_wins_a_page_game_and_reads_it_right(tmp_path: Path) -> None:
    out = tmp_path / "play.json"
    run_bench("desktop_play.py", "--games", "0", "--kaboom", "1", "--json", str(out))
    [row] = bench_report(out)["results"]
    assert row["games"] == "kaboom page 16x16/40" and row["played"] == 1
    assert row["errors"] == 0 and row["won"] == 1  # a forced guess survives on Kaboom
    assert row["clicks"] > 0 and row["cells_read"] == row["cells_right"] == 256


@pytest.mark.usefixtures("need_sgt_mines")
def test_desktop_read_reads_known_layouts_back(tmp_path: Path) -> None:
    out = tmp_path / "read.json"
    run_bench("desktop_read.py", "--sizes", "9x9/10", "--tiles", "16", "24", "--layouts", "1",
              "--json", str(out))
    rows = bench_report(out)["results"]
    assert [(r["size"], r["tile"]) for r in rows] == [("9x9", 16), ("9x9", 24)]
    for row in rows:  # three readings of 81 cells: at the start, half way, won
        assert row["cells_read"] == 3 * 81 and row["cells_wrong"] == 0


def test_desktop_read_refuses_a_board_without_room_for_an_opening() -> None:
    """Every layout starts from a cell showing 0; on a board too crowded for one the
    draw would have looped for ever."""
    says = bench_usage_error("desktop_read.py", "--sizes", "9x9/10", "3x3/8")
    assert "no layout of 3x3/8 in 1,000 draws had a cell showing 0" in says


def test_desktop_click_counts_every_click_arriving(tmp_path: Path) -> None:
    out = tmp_path / "click.json"
    root = Path(__file__).resolve().parents[2]
    run_bench("desktop_click.py", "--clicks", "60", "--before", str(root), "--json", str(out))
    rows = bench_report(out)["results"]
    assert [r["checkout"] for r in rows] == ["before", "after"]
    assert all(r["clicks"] == r["received"] == 60 and r["clicks_per_second"] > 0 for r in rows)
