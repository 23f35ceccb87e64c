"""Bench plumbing: Wilson interval, paired seeds, the CLI's JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kaboom.cli import main
from kaboom.solver.bench.runner import play_game, run_games, summarise, wilson


def test_wilson_interval() -> None:
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)
    for n in range(1, 200):  # exact at the ends (no wins gave 2.8e-17 for 6 games)
        assert wilson(0, n)[0] == 0.0 and wilson(n, n)[1] == 1.0


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


def test_cli_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    code = main(["bench", "--preset", "beginner", "--games", "4", "--no-progress",
                 "--json", str(out)])
    assert code == 0
    data = json.loads(out.read_text())
    assert data["games"] == 4 and data["settings"]["rule"] == "sfar"
    printed = capsys.readouterr().out
    assert "won" in printed
    # the figures carry their machine: a yardstick to compare milliseconds across days
    machine = data["settings"]["machine"]
    assert machine["cores"] >= 1 and machine["yardstick_ms"] > 0 and machine["cpu"]
    assert f"yardstick {machine['yardstick_ms']} ms" in printed


def test_cli_plays_a_profile_spec_and_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """``--profile`` takes option overrides; the summary and every result line name the
    spec, so a results file cannot mix it with the plain profile."""
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    spec = "strong,first_safe=4:4"
    args = ["bench", "--preset", "beginner", "--games", "3", "--no-progress",
            "--out", str(out)]
    assert main([*args, "--profile", spec, "--json", str(summary)]) == 0
    assert json.loads(summary.read_text())["settings"]["profile"] == spec
    assert f"profile {spec}" in capsys.readouterr().out
    assert {json.loads(line)["profile"] for line in out.read_text().splitlines()} == {spec}
    assert main(args) == 2  # the same file, another profile: refused
    assert "strong" in capsys.readouterr().err


@pytest.mark.parametrize(("spec", "says"), [
    ("slow", "unknown profile 'slow'"),
    ("strong,ratio=high", "ratio takes a number"),
])
def test_cli_refuses_a_bad_profile_spec_before_playing(
    spec: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "r.jsonl"
    with pytest.raises(SystemExit) as e:
        main(["bench", "--games", "1", "--profile", spec, "--out", str(out)])
    assert e.value.code == 2
    assert says in capsys.readouterr().err
    assert not out.exists()


def test_calibration_buckets() -> None:
    from kaboom.solver.bench.calibrate import buckets

    pairs = [(0.12, False)] * 9 + [(0.12, True)] + [(0.51, True), (0.5, False)]
    rows = buckets(pairs, 0.1)
    assert [(b.low, b.n) for b in rows] == [(0.1, 10), (0.5, 2)]
    assert rows[0].observed == pytest.approx(0.1)
    assert rows[0].mean_predicted == pytest.approx(0.12)


def test_calibrate_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "cal.png"
    code = main(["calibrate", "--preset", "beginner", "--games", "6", "--no-progress",
                 "--png", str(png)])
    assert code == 0
    assert png.stat().st_size > 0
    assert "observed" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "says"), [
    (["--games", "-3"], "argument --games: -3 is less than 1"),
    (["--jobs", "0"], "argument --jobs: 0 is less than 1"),
    (["--width", "0"], "argument --width: 0 is less than 1"),
    (["--mines", "-1"], "argument --mines: -1 is less than 0"),
    (["--games", "many"], "'many' is not a whole number"),
    (["--games", "1000004"], "1000004 is more than 1,000,003 (another --seed's boards begin"),
    (["--json", "/no/such/folder/s.json"], "there is no folder /no/such/folder"),
    (["--out", "."], "argument --out: . is a folder"),
])
def test_cli_refuses_bad_numbers_and_paths_before_playing(
    args: list[str], says: str, capsys: pytest.CaptureFixture[str],
) -> None:
    """A bad count or a path that cannot be written is a usage error at once, not a
    traceback after every game was played (``--json``) or a silent preset (0 read as
    "not given")."""
    with pytest.raises(SystemExit) as e:
        main(["bench", "--preset", "beginner", "--no-progress", *args])
    assert e.value.code == 2
    assert says in capsys.readouterr().err


@pytest.mark.parametrize("command", ["bench", "calibrate"])
@pytest.mark.parametrize(("size", "says"), [
    (["--width", "5", "--height", "5", "--mines", "30"], "30 mines leave no safe first click"),
    (["--width", "1", "--height", "1", "--mines", "1"], "1 mines leave no safe first click"),
])
def test_cli_refuses_a_board_without_a_safe_first_click(
    command: str, size: list[str], says: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([command, "--games", "2", "--no-progress", *size]) == 2
    assert says in capsys.readouterr().err


def test_cli_takes_zero_mines_as_zero(capsys: pytest.CaptureFixture[str]) -> None:
    """``--mines 0`` is a board without mines (it played the preset's 10 mines)."""
    assert main(["bench", "--preset", "beginner", "--mines", "0", "--games", "3",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "board 9x9/0" in out and "won 3/3" in out


@pytest.mark.parametrize(("bucket", "says"), [
    ("0", "0.0 is not above 0"),
    ("2", "2.0 is not above 0 and at most 1"),
    ("0.3", "0.3 does not divide 1 into at most 1000 buckets"),
    ("0.7", "0.7 does not divide 1"),
    ("1e-7", "1e-07 does not divide 1 into at most 1000 buckets"),
])
def test_calibrate_refuses_a_bucket_width_outside_0_1(
    bucket: str, says: str, capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as e:
        main(["calibrate", "--games", "1", "--bucket", bucket])
    assert e.value.code == 2
    assert says in capsys.readouterr().err


def test_calibration_buckets_cover_0_to_1_exactly() -> None:
    from kaboom.solver.bench.calibrate import buckets

    rows = buckets([(0.95, True), (1.0, True), (0.05, False)], 0.2)
    assert [(b.low, b.high, b.n) for b in rows] == [(0.0, 0.2, 1), (0.8, 1.0, 2)]


def test_calibrate_without_matplotlib_says_so_before_playing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """``--png`` in a base install played every game, printed the tables, then failed."""
    import sys

    import kaboom.solver.bench.calibrate

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setattr(kaboom.solver.bench.calibrate, "run_games",
                        lambda *a, **k: pytest.fail("played the games first"))
    assert main(["calibrate", "--games", "2", "--no-progress", "--png", "cal.png"]) == 2
    assert "this needs the 'plot' extra" in capsys.readouterr().err


def test_calibrate_plots_a_bucket_without_mines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """A bucket that saw no mine has an error bar from 0 (it went below 0, and
    matplotlib refused the plot)."""
    png = tmp_path / "cal.png"
    assert main(["calibrate", "--preset", "intermediate", "--games", "20", "--jobs", "1",
                 "--no-progress", "--png", str(png)]) == 0
    assert png.stat().st_size > 0
    capsys.readouterr()
