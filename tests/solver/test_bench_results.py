"""The per-seed results file: round trip, resume, torn lines, wrong settings, one writer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kaboom.cli import main
from kaboom.solver.bench.results import ResultsFile, ResultsFileError, from_record, to_line
from kaboom.solver.bench.runner import Setup, game_seed

BEGINNER = Setup(9, 9, 10, "sfar")


def test_line_round_trip() -> None:
    result = BEGINNER.play(5, calibrate=True)
    label, back = from_record(json.loads(to_line(result, BEGINNER)))
    assert label == "9x9/10 sfar strong"
    assert back.seed == 5 and back.won == result.won and back.guesses == result.guesses
    assert back.moves_by_algorithm == result.moves_by_algorithm
    assert back.predictions == pytest.approx(result.predictions)
    assert back.seconds == pytest.approx(result.seconds, abs=1e-6)


def test_append_skips_seeds_held_and_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    with ResultsFile(path, BEGINNER) as out:
        list(out.append(BEGINNER.play(s) for s in (1, 2, 3)))
    with ResultsFile(path, BEGINNER) as out:
        assert out.seeds == {1, 2, 3}
        list(out.append(BEGINNER.play(s) for s in (3, 4)))  # 3 is held: not written again
        assert [r.seed for r in out.read()] == [1, 2, 3, 4]
        assert [r.seed for r in out.read([4, 2, 9])] == [2, 4]
    assert len(path.read_text().splitlines()) == 4


def test_torn_last_line_is_dropped_and_replayed(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    with ResultsFile(path, BEGINNER) as out:
        list(out.append(BEGINNER.play(s) for s in (1, 2)))
    whole = path.read_bytes()
    path.write_bytes(whole + to_line(BEGINNER.play(3), BEGINNER).encode()[:25])  # killed mid-write
    with ResultsFile(path, BEGINNER) as out:
        assert out.seeds == {1, 2}
        assert path.read_bytes() == whole
        list(out.append([BEGINNER.play(3)]))
    assert [json.loads(line)["seed"] for line in path.read_text().splitlines()] == [1, 2, 3]


def test_other_settings_or_garbage_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    with ResultsFile(path, BEGINNER) as out:
        list(out.append([BEGINNER.play(1)]))
    with pytest.raises(ResultsFileError, match="holds game results of 9x9/10 sfar strong"):
        ResultsFile(path, Setup(9, 9, 10, "snr"))
    path.write_text(path.read_text() + "not json\n")
    with pytest.raises(ResultsFileError, match=r"r\.jsonl:2: not a game result"):
        ResultsFile(path, BEGINNER)


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    with ResultsFile(path, BEGINNER), pytest.raises(ResultsFileError, match="in use"):
        ResultsFile(path, BEGINNER)
    ResultsFile(path, BEGINNER).close()  # the lock went with the first


def test_cli_resumes_a_local_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    args = ["bench", "--preset", "beginner", "--seed", "4", "--no-progress", "--out", str(out)]
    assert main([*args, "--games", "5"]) == 0
    first = out.read_text()
    assert main([*args, "--games", "8", "--jobs", "2", "--json", str(summary)]) == 0
    assert "5 of 8 games already played; playing the other 3" in capsys.readouterr().err
    text = out.read_text()
    assert text.startswith(first)
    assert sorted(json.loads(line)["seed"] for line in text.splitlines()) == [
        game_seed(4, i) for i in range(8)
    ]
    resumed = json.loads(summary.read_text())
    assert resumed["games"] == 8 and resumed["settings"]["machine"]["yardstick_ms"] > 0
    # a smaller run reads its seeds from the file: nothing is played, so no machine is timed
    assert main([*args, "--games", "3", "--json", str(summary)]) == 0
    assert out.read_text() == text
    assert "won" in capsys.readouterr().out
    assert "machine" not in json.loads(summary.read_text())["settings"]
