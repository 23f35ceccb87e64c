"""bench/layouts.py: the exported boards are the ones kaboom bench plays, and the
pairing counts discordant games."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from kaboom.solver.bench.runner import game_seed, play_game
from kaboom.solver.simulator import SimulatedGame
from tests.benchkit import run_bench


def test_exported_layouts_are_the_benchmark_boards() -> None:
    rows = [json.loads(line) for line in
            run_bench("layouts.py", "export", "--preset", "beginner", "--rule", "snr",
                      "--games", "4", "--seed", "7").splitlines()]
    assert [r["seed"] for r in rows] == [game_seed(7, i) for i in range(4)]
    for r in rows:
        game = SimulatedGame(9, 9, 10, rule="snr", seed=r["seed"])
        x, y = r["first"]
        game.reveal(x, y)
        assert game.layout is not None
        assert r["mines"] == sorted(cy * 9 + cx for cx, cy in game.layout)
        assert len(r["mines"]) == 10
        # an opening: the first click and its neighbours hold no mine
        assert not {(x + dx) + 9 * (y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)} \
            & set(r["mines"])


def test_pair_counts_discordant_games(tmp_path: Path) -> None:
    ours = [play_game(9, 9, 10, "sfar", game_seed(3, i)) for i in range(30)]
    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl.gz"
    a.write_text("".join(json.dumps({"seed": g.seed, "won": g.won}) + "\n" for g in ours))
    # the second "solver" loses the first two games it shares and wins one more
    flipped = [{"seed": g.seed, "won": False if i < 2 else (g.won or i == 29)}
               for i, g in enumerate(ours)]
    with gzip.open(b, "wt") as fh:  # a gzipped file reads the same
        fh.write("".join(json.dumps(r) + "\n" for r in flipped))
    out = run_bench("layouts.py", "pair", str(a), str(b), "--json", str(tmp_path / "p.json"))
    a_only = sum(g.won for g in ours[:2])
    b_only = int(not ours[29].won)
    assert f"only the first won {a_only}, only the second {b_only};" in out
    assert f"won {sum(g.won for g in ours)}/30" in out
    figures = json.loads((tmp_path / "p.json").read_text())
    assert (figures["games"], figures["a_only"], figures["b_only"]) == (30, a_only, b_only)
    assert figures["b"]["wins"] == figures["a"]["wins"] - a_only + b_only


@pytest.mark.parametrize(("rule", "wins"), [("snr", 108_730), ("sfar", 82_298)])
def test_the_committed_baseline_is_what_strong_plays(rule: str, wins: int) -> None:
    """The per-seed files behind docs/solver.md's Expert figures (54.37 % SNR, 41.15 %
    SFAR) still describe ``strong``: a sample of their boards, played again, ends the
    same way."""
    path = Path(__file__).parents[2] / f"bench/results/expert_{rule}_strong_200k_seeds.jsonl.gz"
    with gzip.open(path, "rt") as fh:
        won = {row["seed"]: row["won"] for row in map(json.loads, fh)}
    assert sorted(won) == [game_seed(2026, i) for i in range(200_000)]
    assert sum(won.values()) == wins
    for i in range(0, 200_000, 5_000):
        seed = game_seed(2026, i)
        assert play_game(30, 16, 99, rule, seed).won == won[seed], seed
