"""The Dockerfile's steps, run outside Docker (Docker cannot run on the development machine).

The steps are read from the Dockerfile itself and run with its paths moved into a temporary
folder: the build context that .dockerignore lets in, the wheel built from it with
``python -m build``, that wheel installed with its declared dependencies into a fresh venv
outside the checkout, the server started by the image's CMD as a non-root user (uid 65534
when the tests run as root) in the data folder, and the HEALTHCHECK command. The installed
server must serve the whole game: the page, htmx and the API docs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Route

from kaboom.testing import free_port

ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534


@dataclass(frozen=True)
class Step:
    stage: int
    instruction: str
    args: str


def dockerfile_steps() -> list[Step]:
    """The Dockerfile's instructions, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    steps, stage = [], -1
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        instruction, _, args = line.partition(" ")
        stage += instruction == "FROM"
        steps.append(Step(stage, instruction, re.sub(r"\s+", " ", args.strip())))
    return steps


def exec_form(args: str) -> list[str]:
    """``CMD ["a", "b"]``: the exec form's JSON list (after options such as --interval)."""
    form: list[str] = json.loads(args[args.index("[") :])
    return form


def copy_context(dest: Path) -> None:
    """Copies what .dockerignore lets in; it is an allowlist (``*``, then ``!path`` lines)."""
    rules = [r for r in (ROOT / ".dockerignore").read_text().splitlines()
             if r.strip() and not r.startswith("#")]
    assert rules[0] == "*", ".dockerignore should start by excluding everything"
    excluded = [r for r in rules[1:] if not r.startswith("!")]
    assert all(r.startswith("**/") for r in excluded), excluded
    ignore = shutil.ignore_patterns(*(r.removeprefix("**/") for r in excluded))
    for name in (r[1:] for r in rules[1:] if r.startswith("!")):
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        else:
            shutil.copy2(src, dest / name)


@dataclass
class Image:
    root: Path
    context: Path
    dist: Path
    venv: Path
    data: Path
    url: str
    port: int
    env: dict[str, str]
    proc: subprocess.Popen[bytes]
    healthcheck: list[str]
    as_user: list[str]

    def wheel(self) -> Path:
        return next(self.dist.glob("kaboom_minesweeper-*.whl"))


def run_step(command: str, cwd: Path, env: dict[str, str], moves: dict[str, str]) -> None:
    command = re.sub(r"^(--mount=\S+\s+)+", "", command)
    for old, new in moves.items():
        command = command.replace(old, new)
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def image() -> Iterator[Image]:
    # Readable by the unprivileged user the server runs as (pytest's tmp is private to root).
    root = Path(tempfile.mkdtemp(prefix="kaboom-image-"))
    root.chmod(0o755)
    context, dist, venv, data = (root / n for n in ("src", "dist", "venv", "data"))
    port = free_port()
    moves = {"/src": str(context), "/dist": str(dist), "/data": str(data),
             "8000": str(port), "0.0.0.0": "127.0.0.1"}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    as_user = (["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
               if os.geteuid() == 0 else [])
    cwd, cmd, healthcheck = root, [], []
    for step in dockerfile_steps():
        args = step.args
        for old, new in moves.items():
            args = args.replace(old, new)
        if step.instruction == "FROM" and step.stage == 1:
            # The final stage: a fresh venv outside the checkout. Its `pip` is the tests' pip
            # aimed at it (--python), which spares the venv a copy of pip (seconds of CPU).
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)],
                           check=True, timeout=300)
            pip = venv / "bin" / "pip"
            pip.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pip --python '
                           f'"{venv / "bin" / "python"}" "$@"\n')
            pip.chmod(0o755)
            env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
        elif step.instruction == "WORKDIR":
            cwd = Path(args)
            cwd.mkdir(parents=True, exist_ok=True)
        elif step.instruction == "COPY":
            assert step.args == ". .", step.args
            copy_context(cwd)
        elif step.instruction == "RUN" and "useradd" in step.args:
            data.mkdir()  # the image's user owns /data and nothing else
            if as_user:
                os.chown(data, NOBODY, NOBODY)
        elif step.instruction == "RUN":
            run_step(step.args, cwd, env, moves)
        elif step.instruction == "ENV":
            key, _, value = args.partition("=")
            env[key] = value
        elif step.instruction == "HEALTHCHECK":
            healthcheck = exec_form(args)
        elif step.instruction == "CMD":
            cmd = exec_form(args)
    log = open(root / "server.log", "wb")  # noqa: SIM115 - open while the server runs
    proc = subprocess.Popen([*as_user, *cmd], cwd=cwd, env=env, stdout=log, stderr=log)
    img = Image(root, context, dist, venv, data, f"http://127.0.0.1:{port}", port, env, proc,
                healthcheck, as_user)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (root / "server.log").read_text()[-3000:]
            try:
                httpx.get(img.url, timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the installed server did not answer in 60 s"
                time.sleep(0.2)
        yield img
    finally:
        proc.terminate()
        try:
            proc.wait(2)  # a page's open long poll holds a graceful shutdown for 25 s
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()
        shutil.rmtree(root, ignore_errors=True)


def test_the_context_is_only_what_the_wheel_is_built_from(image: Image) -> None:
    names = {p.name for p in image.context.iterdir()}
    assert {"pyproject.toml", "README.md", "kaboom"} <= names
    assert not names & {".venv", ".git", "tests", "bench", "docs"}


def test_the_wheel_holds_the_whole_game(image: Image) -> None:
    names = set(zipfile.ZipFile(image.wheel()).namelist())
    for name in ("web/templates/page.html", "web/templates/_game.html", "web/kaboom.js",
                 "web/vendor/htmx.min.js", "web/vendor/sse.min.js",
                 "web/vendor/htmx.LICENSE", "web/api-docs.html", "web/api-docs.js",
                 "server/assets.py", "server/store/sqlite.py", "server/routes/page/play.py",
                 "solver/knowledge.py", "cli.py"):
        assert f"kaboom/{name}" in names, name
    assert not [n for n in names if n.startswith(("tests/", "bench/"))]
    # one compiled module for each kernel source (setup.py finds them by a glob)
    kernels = "kaboom/solver/_kernels/"
    compiled = {n.removeprefix(kernels).split(".")[0] for n in names
                if n.startswith(kernels) and n.endswith(".so")}
    assert compiled == {p.stem for p in (ROOT / kernels).glob("*.pyx")}, compiled


def test_the_wheel_installs_one_top_level_package(image: Image) -> None:
    """Everything imports as ``kaboom.…``: the wheel puts no other name into a user's
    environment (``solver``, ``server``, ``bots`` and ``web`` were top-level once)."""
    wheel = zipfile.ZipFile(image.wheel())
    tops = {n.split("/")[0] for n in wheel.namelist() if not n.split("/")[0].endswith(
        (".dist-info", ".data"))}
    assert tops == {"kaboom"}
    info = next(n for n in wheel.namelist() if n.endswith(".dist-info/top_level.txt"))
    assert wheel.read(info).decode().split() == ["kaboom"]
    assert image.wheel().name.startswith("kaboom_minesweeper-")


def test_the_installed_server_serves_the_game_offline(image: Image, browser: Browser) -> None:
    code = "import kaboom.server as s, kaboom.web as w; print(s.__file__, w.__file__)"
    where = subprocess.run([str(image.venv / "bin" / "python"), "-c", code],
                           cwd=image.root, env=image.env, capture_output=True, text=True,
                           check=True).stdout.split()
    assert all(Path(p).is_relative_to(image.venv) for p in where), where
    status = Path(f"/proc/{image.proc.pid}/status").read_text()
    found = re.search(r"^Uid:\s+(\d+)", status, re.M)
    assert found is not None, status
    uid = int(found.group(1))
    assert uid == (NOBODY if image.as_user else os.geteuid())

    record = json.loads((ROOT / "kaboom/web/vendor/vendored.json").read_text())["htmx.min.js"]
    with httpx.Client(base_url=image.url, timeout=30) as http:
        htmx = http.get("/static/vendor/htmx.min.js")
        assert hashlib.sha256(htmx.raise_for_status().content).hexdigest() == record["sha256"]
        assert 'id="swagger-ui"' in http.get("/docs").raise_for_status().text
        http.get("/docs-assets/swagger-ui-bundle.js").raise_for_status()

    context = browser.new_context(base_url=image.url)
    outside: list[str] = []

    def block(route: Route) -> None:
        outside.append(route.request.url)
        route.abort()

    context.route(re.compile(r"^(?!http://127\.0\.0\.1[:/])"), block)
    page = context.new_page()
    try:
        page.goto("/")
        page.wait_for_selector("#board[data-game-id] .c")
        assert page.evaluate("window.htmx.version") == record["version"]
    finally:
        context.close()
    assert outside == []
    assert (image.data / "kaboom.db").exists()  # KABOOM_DB, in the image's volume


def test_the_healthcheck_passes_and_can_fail(image: Image) -> None:
    ok = subprocess.run([*image.as_user, *image.healthcheck], cwd=image.data, env=image.env,
                        capture_output=True, timeout=30)
    assert ok.returncode == 0, ok.stderr
    wrong = [a.replace(str(image.port), str(free_port())) for a in image.healthcheck]
    down = subprocess.run(wrong, env=image.env, capture_output=True, timeout=30)
    assert down.returncode != 0
