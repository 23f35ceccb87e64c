"""The solver's ``bench/`` scripts still run and their figures add up.

Each runs as a user would run it (its own process), at its smallest settings; only what
the figures must satisfy whatever the machine is checked, never a timing. Every target
of issue #12 was decided with one of these scripts, so one that breaks quietly would
leave the docs quoting commands that no longer run.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from kaboom.solver.position import Position
from tests import oracle
from tests.benchkit import bench_report, bench_usage_error, run_bench


def test_solver_compare_pairs_the_same_boards(tmp_path: Path) -> None:
    out = tmp_path / "compare.json"
    run_bench("solver_compare.py", "--preset", "beginner", "--games", "60", "--jobs", "2",
              "--seed", "5", "--a", "strong", "--b", "strong", "--b", "fast",
              "--b", "strong,first_safe=4:4", "--json", str(out))
    result = bench_report(out)
    a = result["strong"]
    assert a["games"] == 60 and a["settings"]["seed"] == 5
    # the same profile on the same boards wins the same games
    assert result["discordant strong"] == {"a_only": 0, "b_only": 0, "z": 0.0, "p": 1.0,
                                           "difference": 0.0, "difference_low": 0.0,
                                           "difference_high": 0.0}
    for spec in ("fast", "strong,first_safe=4:4"):
        d = result[f"discordant {spec}"]
        assert result[spec]["settings"]["profile"] == spec
        assert result[spec]["wins"] == a["wins"] - d["a_only"] + d["b_only"]
    # a centre first click is a different game from the corner's
    moved = result["discordant strong,first_safe=4:4"]
    assert moved["a_only"] + moved["b_only"] > 0
    assert moved["difference"] == (moved["b_only"] - moved["a_only"]) / 60
    assert moved["difference_low"] < moved["difference"] < moved["difference_high"]


def test_deep_pilot_scores_the_switches_of_the_deep_rule(tmp_path: Path) -> None:
    out = tmp_path / "pilot.json"
    run_bench("deep_pilot.py", "--preset", "intermediate", "--games", "6", "--rollouts", "20",
              "--validate", "20", "--profile", "deep,deep_covered=none,deep_z=0", "--jobs",
              "2", "--json", str(out))
    report = bench_report(out)
    rows = report["challengers"]
    assert rows and all(r["se"] >= 0 for r in rows)
    switched = [r for r in rows if "validated_gain" in r]
    # one switch a search at most, each where the rule picked another cell than the choice
    assert len({(r["seed"], r["covered"]) for r in switched}) == len(switched)
    assert all(any(o["picked"] for o in rows if (o["seed"], o["covered"]) == (r["seed"],
               r["covered"])) for r in switched)
    if switched:
        summary = report["summary"]["switches"]
        assert summary["count"] == len(switched) and summary["per_game"] == len(switched) / 6
        assert summary["gain_mean"] == pytest.approx(
            100 * sum(r["validated_gain"] for r in switched) / len(switched))


def test_solver_compare_resumes_from_its_out_folder(tmp_path: Path) -> None:
    """A comparison cut short and continued with more games gives the figures of one
    run: each profile's file keeps its games, and only the missing seeds are played."""
    args = ("--preset", "beginner", "--jobs", "2", "--seed", "9", "--a", "fast",
            "--b", "strong,first_safe=4:4")
    whole, part, games = tmp_path / "whole.json", tmp_path / "part.json", tmp_path / "games"
    run_bench("solver_compare.py", *args, "--games", "30", "--json", str(whole))
    run_bench("solver_compare.py", *args, "--games", "12", "--out", str(games))
    files = sorted(p.name for p in games.iterdir())
    assert files == ["fast.jsonl", "strong_first_safe_4_4.jsonl"]
    assert all(len((games / f).read_text().splitlines()) == 12 for f in files)
    run_bench("solver_compare.py", *args, "--games", "30", "--out", str(games), "--json",
              str(part))
    assert all(len((games / f).read_text().splitlines()) == 30 for f in files)
    a, b = bench_report(whole), bench_report(part)
    for key in ("fast", "strong,first_safe=4:4"):
        assert (a[key]["wins"], a[key]["games"]) == (b[key]["wins"], b[key]["games"])
    assert a["discordant strong,first_safe=4:4"] == b["discordant strong,first_safe=4:4"]


@pytest.mark.parametrize(("spec", "says"), [
    ("strong,bogus=1", "unknown option 'bogus'"),
    ("strong,ratio=high", "ratio takes a number"),
    ("strong,living=maybe", "living takes yes or no"),
    ("slow", "unknown profile 'slow'"),
])
def test_solver_compare_refuses_a_bad_option_before_playing(spec: str, says: str) -> None:
    assert says in bench_usage_error("solver_compare.py", "--games", "1", "--b", spec)


def test_first_clicks_plays_every_candidate_on_the_same_boards(tmp_path: Path) -> None:
    out = tmp_path / "first.json"
    run_bench("first_clicks.py", "--preset", "beginner", "--first", "0,0", "--shows", "1",
              "--cells", "8,0", "8,0", "4,4", "--games", "150", "--jobs", "2", "--seed", "3",
              "--json", str(out))
    result = bench_report(out)
    assert 0 < result["boards"] < 150  # the corner shows 1 on some boards, not all
    reference, again, centre = (result["cells"][k] for k in ("(8, 0)", "(8, 0)", "(4, 4)"))
    assert reference == again and reference["a_only"] == reference["b_only"] == 0
    assert centre["won"] == reference["won"] - centre["a_only"] + centre["b_only"]
    assert 0 <= centre["won"] <= result["boards"]


def test_guess_regret_measures_guesses_consistently(tmp_path: Path) -> None:
    out = tmp_path / "regret.json"
    run_bench("guess_regret.py", "--preset", "beginner", "--games", "8", "--layouts", "8",
              "--candidates", "3", "--tolerance", "0.05", "--jobs", "2", "--seed", "5",
              "--json", str(out))
    result = bench_report(out)
    guesses = result["guesses"]
    assert guesses, "8 Beginner games with no measured guess"
    for g in guesses:
        assert 2 <= len(g["cells"]) <= 3 and len(set(map(tuple, g["cells"]))) == len(g["cells"])
        assert max(g["p"]) <= min(g["p"]) + 0.05 + 1e-9
        assert all(0 <= w <= 8 for w in g["won"]) and -1 <= g["gain"] <= 1
    stages = {k: v for k, v in result["summary"].items() if k != "per_game_gain"}
    assert sum(s["guesses"] for s in stages.values()) == len(guesses)
    chosen = sum(g["won"][0] for g in guesses) / 8 / len(guesses) * 100
    assert sum(s["chosen_win"] * s["guesses"] for s in stages.values()) / len(guesses) \
        == pytest.approx(chosen)
    safest = [g["won"][g["p"].index(min(g["p"]))] - g["won"][0] for g in guesses]
    assert sum(s["safest_gain"] * s["guesses"] for s in stages.values()) / len(guesses) \
        == pytest.approx(100 * sum(safest) / 8 / len(guesses))


def test_guess_regret_resumes_from_its_out_file(tmp_path: Path) -> None:
    """A run cut short and rerun with more games measures the same guesses as one run."""
    args = ("--preset", "beginner", "--layouts", "6", "--candidates", "2", "--tolerance",
            "0.05", "--seed", "9", "--jobs", "2")
    whole, part = tmp_path / "whole.json", tmp_path / "part.json"
    run_bench("guess_regret.py", *args, "--games", "6", "--json", str(whole))
    games = tmp_path / "games.jsonl"
    run_bench("guess_regret.py", *args, "--games", "3", "--out", str(games))
    with games.open("a") as fh:
        fh.write('{"seed": 1, "settings"')  # a line torn by a kill: played again
    run_bench("guess_regret.py", *args, "--games", "6", "--out", str(games), "--json", str(part))
    assert len(games.read_text().splitlines()) == 6  # the torn line is gone
    assert json.loads(part.read_text())["guesses"] == json.loads(whole.read_text())["guesses"]
    refused = bench_usage_error(
        "guess_regret.py", *args[:-2], "--layouts", "8", "--games", "6", "--out", str(games))
    assert '"layouts": 6' in refused and "use another --out file" in refused


def test_solver_table_runs_each_row_and_builds_the_table(tmp_path: Path) -> None:
    text = run_bench("solver_table.py", "--games-scale", "0.0002", "--jobs", "2",
                     "--out", str(tmp_path))
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 1 + 7  # the header and a row for each board, rule and profile
    written = sorted(p.name for p in tmp_path.glob("*.json"))
    assert len(written) == 7 and "expert_snr_strong.json" in written
    expert = json.loads((tmp_path / "expert_sfar_strong.json").read_text())
    assert expert["games"] == 40 and 0 <= expert["wins"] <= 40


def test_cluster_overhead_plays_the_same_games_on_the_cluster(tmp_path: Path) -> None:
    out = tmp_path / "overhead.json"
    run_bench("cluster_overhead.py", "--games", "20", "--workers", "2", "--rounds", "2",
              "--json", str(out))
    result = bench_report(out)
    assert result["same_results"] is True
    assert len(result["seconds"]["local"]) == len(result["seconds"]["cluster"]) == 2


def _perfect(width: int, height: int, mines: int) -> float:
    """Perfect play's win chance after a safe first click at (0, 0), by the oracle's
    plain recursion over every layout (no memo, no pruning)."""
    total, wins = 0, 0.0
    for n in range(4):
        rows = [str(n) + "#" * (width - 1)] + ["#" * width] * (height - 1)
        position = Position.from_rows(rows, mines)
        lays = list(oracle.layouts(position))
        if lays:
            total += len(lays)
            wins += len(lays) * oracle.win_chance(position, lays, list(position.covered()))
    return wins / total


def test_perfect_play_bounds_every_profile_on_every_layout(tmp_path: Path) -> None:
    out = tmp_path / "perfect.json"
    run_bench("perfect_play.py", "--boards", "3x3/2", "4x3/2", "--profiles", "strong",
              "fast,endgame_layouts=0,regions=0,lookahead=False", "--jobs", "2",
              "--json", str(out))
    rows = bench_report(out)["results"]
    assert [r["board"] for r in rows] == ["3x3/2", "4x3/2"]
    for row, (width, height, mines) in zip(rows, [(3, 3, 2), (4, 3, 2)], strict=True):
        best = row["optimal"]
        # every layout with (0, 0) free, played once by each profile
        assert best["layouts"] == math.comb(width * height - 1, mines)
        assert best["win"] == pytest.approx(_perfect(width, height, mines), abs=1e-12)
        for name, got in row["profiles"].items():
            assert got["games"] == best["layouts"], name
            assert got["win"] <= best["win"] + 1e-12, name  # no one beats perfect play
        # the exact search covers these boards whole: strong plays them perfectly
        assert row["profiles"]["strong"]["won"] == round(best["win"] * best["layouts"])


def test_perfect_play_finds_every_missing_win_at_the_guesses(tmp_path: Path) -> None:
    """The missing wins found position by position add up to the whole gap to perfect
    play: safe clicks and the exact search lose nothing, so every lost win is a guess's."""
    out = tmp_path / "shortfalls.json"
    weak = "fast,endgame_layouts=0,regions=0,lookahead=False"
    run_bench("perfect_play.py", "--boards", "4x4/4", "--profiles", weak, "strong",
              "--shortfalls", "2000", "--jobs", "2", "--json", str(out))
    (row,) = bench_report(out)["results"]
    perfect_wins = row["optimal"]["win"] * row["optimal"]["layouts"]
    got = row["profiles"][weak]
    found = got["shortfalls"]
    assert perfect_wins - got["won"] > 60  # a weak guess: many wins go missing
    assert found["missing_wins"] == pytest.approx(perfect_wins - got["won"], abs=1e-6)
    assert found["games_at_unsearched_guesses"] == 0
    for r in found["worst"]:
        assert r["games"] == r["layouts"]  # reached by exactly the layouts that fit it
        assert r["win"] > r["chosen_win"]
        assert r["missing_wins"] == pytest.approx(r["layouts"] * (r["win"] - r["chosen_win"]))
    # strong's exact search covers 4x4/4 whole: no guess of its own, nothing missing
    assert row["profiles"]["strong"]["won"] == round(perfect_wins)
    assert row["profiles"]["strong"]["shortfalls"]["guess_positions"] == 0


def test_perfect_play_from_positions_adds_up_to_the_whole_board(tmp_path: Path) -> None:
    """Started from each number the first click can show, perfect play and every profile
    give the board's own figures, weighted by the layouts that fit each position."""
    weak = "fast,endgame_layouts=0,regions=0,lookahead=False"
    paths = []
    for n in range(4):
        position = Position.from_rows([f"{n}###", "####", "####"], 3)
        if list(oracle.layouts(position)):
            paths.append(tmp_path / f"shows-{n}.txt")
            paths[-1].write_text(position.to_text())
    out = tmp_path / "positions.json"
    run_bench("perfect_play.py", "--boards", "4x3/3", "--positions", *map(str, paths),
              "--profiles", "strong", weak, "--jobs", "2", "--json", str(out))
    board, *positions = bench_report(out)["results"]
    assert [r["position"] for r in positions] == list(map(str, paths))
    assert sum(r["optimal"]["layouts"] for r in positions) == board["optimal"]["layouts"]
    wins = sum(r["optimal"]["win"] * r["optimal"]["layouts"] for r in positions)
    assert wins == pytest.approx(board["optimal"]["win"] * board["optimal"]["layouts"])
    for row, path in zip(positions, paths, strict=True):
        position = Position.from_text(path.read_text())
        assert row["rows"] == list(position.rows)
        lays = list(oracle.layouts(position))
        assert row["optimal"]["layouts"] == len(lays)
        assert row["optimal"]["win"] == pytest.approx(
            oracle.win_chance(position, lays, list(position.covered())), abs=1e-12)
    for name in ("strong", weak):
        won = sum(r["profiles"][name]["won"] for r in positions)
        assert won == board["profiles"][name]["won"], name
    assert board["profiles"][weak]["won"] < round(wins)  # the weak guess misses wins here


def test_perfect_play_refuses_a_position_no_layout_fits(tmp_path: Path) -> None:
    path = tmp_path / "impossible.txt"
    path.write_text("mines=1\n2#\n##\n")
    assert bench_usage_error("perfect_play.py", "--positions", str(path)).endswith(
        "no layout fits the position")


def test_perfect_play_refuses_a_board_too_large_to_search() -> None:
    message = bench_usage_error("perfect_play.py", "--boards", "4x4/3", "6x6/6")
    assert "6x6/6 has 1,623,160 layouts" in message


def test_pair_checkouts_plays_each_game_in_both(tmp_path: Path) -> None:
    """The repository against itself: every game played twice, the same outcomes."""
    repo = Path(__file__).resolve().parents[2]
    out = tmp_path / "pair.json"
    printed = run_bench("pair_checkouts.py", str(repo), str(repo), "--preset", "beginner",
                        "--games", "6", "--warmup", "1", "--block", "3", "--json", str(out))
    result = json.loads(out.read_text())
    assert result["games"] == 6 and result["outcomes_differ"] == 0
    assert result["old_commit"] == result["new_commit"]
    assert len(result["block_ratios"]) == 2 and result["ratio"] > 0
    assert result["machine_before"]["yardstick_ms"] > 0
    assert "games 4-6:" in printed


def test_pair_checkouts_refuses_a_checkout_without_its_environment(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parents[2]
    said = bench_usage_error("pair_checkouts.py", str(tmp_path), str(repo))
    assert f"{tmp_path} has no .venv" in said
