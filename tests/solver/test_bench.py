"""Bench plumbing: Wilson interval, paired seeds, the CLI's JSON."""

from __future__ import annotations

import json

import pytest

from kaboom.cli import main
from solver.bench.runner import play_game, run_games, summarise, wilson


def test_wilson_interval() -> None:
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(0, 0) == (0.0, 1.0)


def test_same_seed_same_result() -> None:
    a = play_game(9, 9, 10, "sfar", seed=11)
    b = play_game(9, 9, 10, "sfar", seed=11)
    assert (a.won, a.decisions, a.moves_by_algorithm) == (b.won, b.decisions, b.moves_by_algorithm)


def test_run_and_summarise() -> None:
    results = run_games(9, 9, 10, "snr", 6, seed=2, jobs=2)
    assert [r.seed for r in results] == sorted(r.seed for r in results)
    s = summarise(results)
    assert s.games == 6 and 0 <= s.wins <= 6
    assert s.moves_by_algorithm["first"] == 6


def test_cli_writes_json(tmp_path, capsys) -> None:
    out = tmp_path / "bench.json"
    code = main(["bench", "--preset", "beginner", "--games", "4", "--no-progress",
                 "--json", str(out)])
    assert code == 0
    data = json.loads(out.read_text())
    assert data["games"] == 4 and data["settings"]["rule"] == "sfar"
    assert "won" in capsys.readouterr().out
