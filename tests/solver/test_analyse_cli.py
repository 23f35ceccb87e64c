"""``kaboom analyse FILE|-``: the analysis as text, from a file in any of its three
forms, with the exit status saying possible (0), impossible (1) or not a position (2)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kaboom.cli import main
from kaboom.solver.link import to_link
from kaboom.solver.position import Position
from tests.solver.test_winchance import BRANCHES
from tests.test_analysis import first_guess

POSITION = Position.from_text(
    """mines=3
    0 1 # #
    1 2 # #
    # # # #"""
)

REPORT = """\
4x3, 3 mines; link 4x3m3.abH2bcH6
1 safe, 0 mines, 7 unknown; settled; exact probabilities

status (s safe, m mine, u unknown, ? unsettled):
01uu
12uu
uusu

mine probability, percent (. open):
  .   .  50  33
  .   .  50  33
 50  50   0  33

recommended: reveal 2 2 (certain: groups)
  why: the 1 at (1, 0), the 1 at (0, 1) and the 2 at (1, 1) leave no room for a mine at (2, 2)
(3, 2): no proof: (3, 2) is not decided: the numbers and the count allow both
"""


@pytest.mark.parametrize("form", ["text", "link", "json"])
def test_a_file_in_any_form_prints_the_analysis(form: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    text = {"text": POSITION.to_text(), "link": to_link(POSITION),
            "json": json.dumps({"rows": list(POSITION.rows), "mines": 3})}[form]
    path = tmp_path / "position.txt"
    path.write_text(text + "\n")
    assert main(["analyse", str(path), "--cell", "3", "2"]) == 0
    assert capsys.readouterr().out == REPORT


def test_a_guess_prints_its_chance_to_win_and_the_next_best_guesses(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "guess.txt"
    path.write_text(BRANCHES.to_text() + "\n")
    assert main(["analyse", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-4:] == [
        "recommended: reveal 2 3 (endgame: win probability 0.820)",
        "  win chance: 82.0 % (exact, best play after)",
        "  or reveal 2 2: 73.1 %, -8.9 points",
        "  or reveal 3 2: 71.6 %, -10.4 points",
    ]
    path.write_text(first_guess(9, 9, 10, 4).to_text() + "\n")
    assert main(["analyse", str(path)]) == 0
    guess, chance, *others = capsys.readouterr().out.splitlines()[-4:]
    assert guess.startswith("recommended: reveal ") and len(others) == 2
    interval = r"\d+\.\d % \(95 %: \d+\.\d-\d+\.\d\)"
    assert re.fullmatch(rf"  win chance: {interval} \(1000 layouts, the same for each"
                        r" guess, fast playing on\)", chance), chance
    for line in others:
        assert re.fullmatch(rf"  or reveal \d \d: {interval}, [+-]\d+\.\d points \(95 %:"
                            r" [+-]\d+\.\d to [+-]\d+\.\d\)", line), line


def test_an_impossible_position_exits_1_with_its_reason(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    path = tmp_path / "impossible.txt"
    path.write_text("# 1 # # 1 #\n")
    assert main(["analyse", str(path), "--mines", "1"]) == 1
    assert capsys.readouterr().out.splitlines()[1] == (
        "impossible: no layout fits: with 1 mine in all, the 1 at (1, 0) and the 1 at (4, 0)"
        " cannot both hold")


@pytest.mark.parametrize(("text", "says"), [
    ("mines=1\n0 1 #\n1 Z #", "row 1, column 1: 'Z' is not a cell of a position in play"),
    ("mines=1\n0 1 #\n1 #", "row 1 has 2 cells where row 0 has 3"),
    ("0 1 #\n1 1 #", "no mine count: add a line 'mines=N' or pass --mines N"),
    ("3x1m1.Hz", "character 7 of the link, 'z', is not a cell letter"),
    ('{"rows": ["##"]}', "the JSON is not"),
])
def test_a_bad_file_exits_2_saying_where(text: str, says: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    assert main(["analyse", str(path)]) == 2
    err = capsys.readouterr().err
    assert says in err and str(path) in err


def test_the_command_reads_standard_input() -> None:
    done = subprocess.run([sys.executable, "-m", "kaboom", "analyse", "-", "--cell", "3", "2"],
                          input=POSITION.to_text(), capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == REPORT
    missing = subprocess.run([sys.executable, "-m", "kaboom", "analyse", "/no/such/file"],
                             capture_output=True, text=True, timeout=120, check=False)
    assert missing.returncode == 2 and "No such file" in missing.stderr


def test_the_command_never_loads_the_server() -> None:
    """The solver's command line stands without the web stack (style: a pure core)."""
    code = ("import sys\nfrom kaboom.cli import main\nmain(['analyse', '-'])\n"
            "loaded = [m for m in sys.modules if m.split('.')[0] in ('fastapi', 'starlette',"
            " 'httpx', 'uvicorn') or m.startswith('kaboom.server')]\n"
            "assert not loaded, loaded\n")
    done = subprocess.run([sys.executable, "-c", code], input=POSITION.to_text(),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
