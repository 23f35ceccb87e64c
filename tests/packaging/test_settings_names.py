"""One name for each setting: docs/server.md's table names every server setting, by the
environment variable the server reads and the `kaboom serve` option that sets it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from kaboom.cli import parse_args
from server.config import Settings

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
    old = re.compile(r"KABOOM_DB_PATH|\bdb_path\b")
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    files = [ROOT / n for n in names if not n.endswith((".png", ".json", ".jsonl"))]
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
