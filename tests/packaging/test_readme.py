"""The README's commands work as written, and agree with the Dockerfile and pyproject.toml."""

from __future__ import annotations

import re
import shlex
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from kaboom.cli import EXTRA_MODULES, parse_args

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def commands() -> list[list[str]]:
    """Every command of the README: the lines of its bash blocks and the `./run.sh ...`,
    `kaboom ...` and `docker ...` spans of its prose, as argument lists."""
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", README, re.S):
        lines += block.splitlines()
    lines += re.findall(r"`((?:\./run\.sh|\./test\.sh|kaboom|docker) [^`]*)`", README)
    out = []
    for line in lines:
        for part in re.split(r"&&", line.split("  #")[0]):
            if part.strip():
                out.append(shlex.split(part, comments=True))
    return out


def test_the_readme_has_the_commands_it_should() -> None:
    cmds = commands()
    assert {"./run.sh", "./test.sh"} <= {c[0] for c in cmds}
    assert {("kaboom", "serve"), ("kaboom", "bot"), ("docker", "build"),
            ("docker", "run")} <= {tuple(c[:2]) for c in cmds}
    assert README.index("./run.sh") < README.index("## How to play")  # the two commands first


@pytest.mark.parametrize("cmd", [c for c in commands() if c[0] in ("kaboom", "./run.sh")],
                         ids=shlex.join)
def test_kaboom_commands_parse(cmd: list[str]) -> None:
    """`./run.sh ARGS` runs `kaboom serve ARGS`; a bad option or value exits 2. A command
    named without options (`kaboom bot desktop` in the prose) must at least exist."""
    argv = ["serve", *cmd[1:]] if cmd[0] == "./run.sh" else cmd[1:]
    if any(a.startswith("-") for a in argv) and "--help" not in argv:
        assert parse_args(argv)._module
    else:
        with pytest.raises(SystemExit) as done:
            parse_args([*dict.fromkeys([*argv, "--help"])])
        assert done.value.code == 0


@pytest.mark.parametrize("block", re.findall(r"```python\n(.*?)```", README, re.S))
def test_the_readmes_python_runs(block: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The README's library example imports what it shows (``from kaboom.solver import
    Position, Solver, decide``) and runs as written."""
    exec(compile(block, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip()  # it prints the decision


def test_docker_commands_agree_with_the_dockerfile() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    runs = [c for c in commands() if c[:2] == ["docker", "run"]]
    assert runs
    for cmd in runs:
        port = cmd[cmd.index("-p") + 1].split(":")[1]
        volume = cmd[cmd.index("-v") + 1].split(":")[1]
        assert re.search(rf"^EXPOSE {port}$", dockerfile, re.M)
        assert re.search(rf'^VOLUME \["{volume}"\]$', dockerfile, re.M)
        assert f"--port\", \"{port}\"" in dockerfile


def test_the_desktop_bots_help_needs_no_desktop_extra(tmp_path: Path) -> None:
    """``kaboom bot desktop --help`` printed "needs the 'desktop' extra" instead of the
    help in a base install; playing still says what to install."""
    import os
    import subprocess
    import sys

    (tmp_path / "sitecustomize.py").write_text(  # as in a base install
        "import sys\nfor m in ('Xlib', 'mss', 'PIL'):\n    sys.modules[m] = None\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), os.environ.get("PYTHONPATH", "")])}

    def kaboom(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "kaboom", "bot", "desktop", *args],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)

    helped = kaboom("--help")
    assert helped.returncode == 0 and "--game GAME" in helped.stdout, helped.stderr
    played = kaboom("--game", "sgt-mines")
    assert played.returncode == 2 and "this needs the 'desktop' extra" in played.stderr


def test_a_missing_extra_is_named_right() -> None:
    """`kaboom` names the extra to install when a module of one is missing."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    dists = packages_distributions()
    for module, extra in EXTRA_MODULES.items():
        names = {re.split(r"[<>=\[; ]", r)[0].lower() for r in extras[extra]}
        assert {d.lower() for d in dists[module]} & names, (module, extra)
