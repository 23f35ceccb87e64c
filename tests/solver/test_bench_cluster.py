"""``kaboom bench --cluster`` on a real Dask scheduler and two worker processes.

The cluster is started with the commands docs/solver.md gives (``dask scheduler``,
``dask worker``), on the loopback interface only.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kaboom.cli import main
from kaboom.solver.bench.cluster import Cluster, ClusterError, local_cluster
from kaboom.solver.bench.runner import game_seed


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a scheduler with two single-threaded worker processes."""
    with local_cluster(workers=2) as address:
        yield address


def _games(path: Path) -> dict[int, dict[str, Any]]:
    """Per-seed results without the timings (which differ from run to run)."""
    out = {}
    for line in path.read_text().splitlines():
        game = json.loads(line)
        del game["seconds"], game["cpu_seconds"]
        out[game["seed"]] = game
    return out


def test_cluster_and_local_runs_agree_seed_by_seed(scheduler: str, tmp_path: Path) -> None:
    """With a profile spec, which each worker process parses for itself."""
    args = ["bench", "--preset", "expert", "--games", "8", "--seed", "12", "--no-progress",
            "--profile", "strong,first_safe=29:15"]
    assert main([*args, "--out", str(tmp_path / "local.jsonl")]) == 0
    assert main([*args, "--cluster", scheduler, "--out", str(tmp_path / "cluster.jsonl"),
                 "--json", str(tmp_path / "summary.json")]) == 0
    local, cluster = _games(tmp_path / "local.jsonl"), _games(tmp_path / "cluster.jsonl")
    assert sorted(local) == [game_seed(12, i) for i in range(8)]
    assert cluster == local
    assert {g["profile"] for g in cluster.values()} == {"strong,first_safe=29:15"}
    by_worker = json.loads((tmp_path / "summary.json").read_text())["settings"]["games_by_worker"]
    assert len(by_worker) == 2 and sum(by_worker.values()) == 8  # both workers played


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_interrupted_cluster_run_resumes(
    scheduler: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    out, summary = tmp_path / "r.jsonl", tmp_path / "s.json"
    games = 40  # 3 games a chunk: the first lines come long before the last
    args = ["bench", "--cluster", scheduler, "--preset", "expert", "--games", str(games),
            "--seed", "9", "--no-progress", "--out", str(out)]
    # Ctrl-C as in a terminal: a suite started in the background inherits SIGINT ignored
    # (POSIX shells ignore it for background jobs), and the run would finish undisturbed
    run = subprocess.Popen([sys.executable, "-m", "kaboom", *args], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, preexec_fn=_sigint_default)
    deadline = time.monotonic() + 120
    while run.poll() is None and time.monotonic() < deadline:
        if out.exists() and out.stat().st_size > 0:
            break
        time.sleep(0.01)
    run.send_signal(signal.SIGINT)  # Ctrl-C, once the first games are in
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert "interrupted; the games played are in" in err
    before = out.read_text()
    played = len(before.splitlines())
    assert 0 < played < games

    assert main([*args, "--json", str(summary)]) == 0
    assert (f"{played} of {games} games already played; playing the other {games - played}"
            in capsys.readouterr().err)
    after = out.read_text()
    assert after.startswith(before)  # appended, nothing rewritten
    seeds = [json.loads(line)["seed"] for line in after.splitlines()]
    assert sorted(seeds) == [game_seed(9, i) for i in range(games)]  # each seed once
    s = json.loads(summary.read_text())
    assert s["games"] == games
    assert sum(s["settings"]["games_by_worker"].values()) == games - played  # none replayed


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:9", "no-port", "http://127.0.0.1:9"])
def test_unreachable_or_malformed_address_is_a_clear_error(address: str) -> None:
    with pytest.raises(ClusterError, match=f"cannot reach a Dask scheduler at {address}"):
        Cluster(address, timeout=1)


_COLLECT_WHILE_A_CLIENT_STARTS = """
import gc
import distributed.utils
from kaboom.solver.bench.cluster import Cluster, ClusterError

start_thread = distributed.utils._CollectErrorThread.__init__

def collecting(self, *args, **kwargs):
    gc.collect()  # the garbage collector runs just as the next client starts its loop
    start_thread(self, *args, **kwargs)

distributed.utils._CollectErrorThread.__init__ = collecting
gc.disable()
for address in ["no-port", "http://127.0.0.1:9", "no-port", "tcp://127.0.0.1:9"]:
    try:
        Cluster(address, timeout=1)
    except ClusterError:
        pass
print("all refused")
"""


def test_a_failed_connection_leaves_nothing_that_hangs_the_next() -> None:
    """A client that failed to connect is closed at once. Left to the garbage collector,
    it was closed whenever a collection came; if that was while the next client started,
    both waited on ``distributed``'s one lock for event loops, and the process hung (the
    test suite did, after the malformed address)."""
    try:
        run = subprocess.run([sys.executable, "-c", _COLLECT_WHILE_A_CLIENT_STARTS],
                             capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the next connection hung on the failed client's cleanup")
    assert run.returncode == 0, run.stderr
    assert "all refused" in run.stdout


def test_local_cluster_leaves_nothing_in_the_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its logs and Dask's scratch space live in one folder, removed when it stops."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with local_cluster(workers=1) as address:
        assert address.startswith("tcp://127.0.0.1:")
        (folder,) = tmp_path.iterdir()
        assert (folder / "scheduler.log").exists()
    assert list(tmp_path.iterdir()) == []


def test_workers_that_cannot_import_the_solver_are_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """A worker without this package failed to unpickle every chunk and left the run
    waiting forever; now each worker is asked first, and the run stops with one line."""
    hide = tmp_path / "without_solver.py"  # as if the package were not installed there
    hide.write_text("import sys\nsys.modules['kaboom.solver'] = None\n")
    with local_cluster(workers=1, worker_args=("--preload", str(hide))) as address:
        start = time.monotonic()
        code = main(["bench", "--cluster", address, "--preset", "beginner", "--games", "10",
                     "--no-progress", "--out", str(tmp_path / "r.jsonl")])
        took = time.monotonic() - start
    err = capsys.readouterr().err
    assert code == 2 and took < 30, (code, took, err)
    assert "1 of 1 workers at" in err and "cannot play" in err
    assert "ModuleNotFoundError" in err and "Traceback" not in err
    assert not (tmp_path / "r.jsonl").read_text()


def test_a_scheduler_lost_mid_run_is_one_line_and_the_games_stay(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    with local_cluster(workers=2) as address:
        run = subprocess.Popen(
            [sys.executable, "-m", "kaboom", "bench", "--cluster", address, "--preset",
             "expert", "--games", "400", "--seed", "4", "--no-progress", "--out", str(out)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while run.poll() is None and time.monotonic() < deadline:
            if out.exists() and out.stat().st_size > 0:
                break
            time.sleep(0.01)
        with Cluster(address) as cluster:
            cluster.shutdown()  # the scheduler and its workers stop
        _, err = run.communicate(timeout=120)
    assert run.returncode == 2, err
    assert "kaboom bench: lost the Dask scheduler at" in err, err
    assert f"the games played are in {out}, rerun to resume" in err
    assert "Traceback" not in err, err
    seeds = [json.loads(line)["seed"] for line in out.read_text().splitlines()]
    assert 0 < len(seeds) < 400 and len(set(seeds)) == len(seeds)
