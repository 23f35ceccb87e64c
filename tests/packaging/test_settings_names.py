"""One name for each setting: docs/server.md's table names every server setting, by the
environment variable the server reads and the `kaboom serve` option that sets it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from kaboom.cli import parse_args
from kaboom.server.config import Settings

ROOT = Path(__file__).resolve().parents[2]


def table() -> list[tuple[str, str]]:
    """(option cell, environment cell) of each row of the settings table."""
    rows = []
    for line in (ROOT / "docs" / "server.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 4 and cells[0] not in ("setting", "---"):
            rows.append((cells[1], cells[2]))
    return rows


def test_the_table_names_every_setting_by_its_variable() -> None:
    documented = {v for _, env in table() for v in re.findall(r"KABOOM_[A-Z_]+", env)}
    assert documented == {f"KABOOM_{name.upper()}" for name in Settings.model_fields}


def test_every_option_in_the_table_exists(capsys: pytest.CaptureFixture[str]) -> None:
    options = {o for option, _ in table() for o in re.findall(r"--[a-z-]+", option)}
    assert {"--db", "--budget", "--durable", "--host", "--port"} <= options
    with pytest.raises(SystemExit):
        parse_args(["serve", "--help"])
    known = set(re.findall(r"--[a-z-]+", capsys.readouterr().out))
    assert options <= known


def test_no_file_uses_an_old_name() -> None:
    """Only the changelog names the old name: it says how to migrate from it."""
    old = re.compile(r"KABOOM_DB_PATH|\bdb_path\b")
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    files = [ROOT / n for n in names
             if not n.endswith((".png", ".json", ".jsonl")) and n != "CHANGELOG.md"]
    hits = [str(p) for p in files if p != Path(__file__) and p.is_file()
            and old.search(p.read_text(errors="replace"))]
    assert hits == []


@pytest.mark.parametrize(("port", "says"), [("99999", "99999 is not a port (0 to 65535"),
                                            ("-1", "-1 is not a port"),
                                            ("http", "'http' is not a port number")])
def test_serve_refuses_a_port_that_is_not_one(
    port: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """uvicorn took 99999 as 99999 mod 65536 while the banner said 99999."""
    with pytest.raises(SystemExit) as e:
        parse_args(["serve", "--port", port])
    assert e.value.code == 2
    assert says in capsys.readouterr().err
    assert parse_args(["serve", "--port", "65535"]).port == 65535


@pytest.mark.parametrize(("args", "says"), [
    (["--budget", "0"], "0 seconds: give more than 0"),
    (["--budget", "nan"], "nan seconds: give more than 0"),
    (["--budget", "soon"], "'soon' is not a number of seconds"),
    (["--log-level", "loud"], "invalid choice: 'loud'"),
])
def test_serve_refuses_a_budget_or_log_level_that_is_not_one(
    args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A budget of 0 started a server that answered every move with 503, and an unknown
    log level made several workers crash and restart forever."""
    with pytest.raises(SystemExit) as e:
        parse_args(["serve", *args])
    assert e.value.code == 2 and says in capsys.readouterr().err


def _serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os
    import sys

    return subprocess.run([sys.executable, "-m", "kaboom", "serve", *args], cwd=ROOT,
                          env={**os.environ, **(env or {})}, capture_output=True, text=True,
                          timeout=60)


def test_serve_names_a_setting_out_of_range_in_one_line() -> None:
    done = _serve("--db", ":memory:", env={"KABOOM_SOLVER_THREADS": "0",
                                           "KABOOM_MOVE_BUDGET_S": "inf"})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        "kaboom serve: KABOOM_MOVE_BUDGET_S=inf: Input should be a finite number",
        "kaboom serve: KABOOM_SOLVER_THREADS=0: Input should be greater than or equal to 1",
    ]


def test_serve_says_in_one_line_why_a_sqlite_file_cannot_be_its_store(tmp_path: Path) -> None:
    (tmp_path / "notes.db").write_text("not a database, " * 100)
    for db, says in [(tmp_path / "notes.db", "file is not a database"),
                     (tmp_path, "unable to open database file")]:
        done = _serve("--db", str(db))
        assert done.returncode == 2, done.stderr
        assert done.stderr == f"kaboom serve: cannot open the SQLite database {db}: {says}\n"


def test_serve_on_port_0_says_the_port_it_listens_on(tmp_path: Path) -> None:
    """``--port 0`` (any free port) said it listened on port 0."""
    import os
    import sys

    import httpx

    proc = subprocess.Popen(
        [sys.executable, "-m", "kaboom", "serve", "--port", "0", "--db", ":memory:"],
        cwd=ROOT, env=os.environ.copy(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.fullmatch(r"Kaboom on http://127\.0\.0\.1:(\d+)\n", line)
        assert found, line
        assert int(found[1]) > 0
        answer = httpx.get(f"http://127.0.0.1:{found[1]}/api/health", timeout=30)
        assert answer.json()["status"] == "ok"
    finally:
        proc.terminate()
        proc.wait(30)
