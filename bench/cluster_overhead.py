"""What a Dask cluster costs against local processes, on the same machine and seeds.

Usage: python bench/cluster_overhead.py --preset beginner --games 4000 --workers 2 --rounds 2

Starts a scheduler and ``--workers`` single-threaded workers on the loopback (the
commands docs/solver.md gives), then times whole ``kaboom bench`` commands: local with
``--jobs WORKERS`` and ``--cluster ADDRESS``, in ABBA order over the rounds so a drift
in the machine's load hits both alike. Checks that both wrote the same per-seed results,
prints the wall times and their ratio with the load average, and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kaboom.solver.bench.cluster import local_cluster
from kaboom.solver.bench.machine import machine


def _timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kaboom", *cmd], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _games(path: Path) -> dict[int, tuple[object, ...]]:
    out: dict[int, tuple[object, ...]] = {}
    for line in path.read_text().splitlines():
        g = json.loads(line)
        out[g["seed"]] = (g["won"], g["decisions"], g["guesses"], g["moves_by_algorithm"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="beginner")
    ap.add_argument("--rule", default="sfar")
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--json", default="bench/results/cluster_overhead.json")
    args = ap.parse_args()
    base = ["bench", "--preset", args.preset, "--rule", args.rule, "--games", str(args.games),
            "--seed", str(args.seed), "--no-progress"]
    times: dict[str, list[float]] = {"local": [], "cluster": []}
    ran_on = machine()
    load_before = os.getloadavg()
    with local_cluster(args.workers) as address, tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            order = ["local", "cluster"] if r % 2 == 0 else ["cluster", "local"]
            for kind in order:
                out = Path(tmp) / f"{kind}{r}.jsonl"
                where = ["--jobs", str(args.workers)] if kind == "local" else [
                    "--cluster", address]
                times[kind].append(_timed([*base, *where, "--out", str(out)]))
                print(f"round {r} {kind:7s} {times[kind][-1]:7.2f} s", flush=True)
        reference = _games(Path(tmp) / "local0.jsonl")
        same = all(_games(p) == reference for p in Path(tmp).glob("*.jsonl"))
    load_after = os.getloadavg()
    local, cluster = statistics.median(times["local"]), statistics.median(times["cluster"])
    print(f"{args.preset} {args.rule}, {args.games} games, {args.workers} workers: "
          f"local {local:.2f} s ({args.games / local:.1f} games/s), "
          f"cluster {cluster:.2f} s ({args.games / cluster:.1f} games/s), "
          f"cluster / local = {cluster / local:.3f}; same per-seed results: {same}")
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    result = {
        "preset": args.preset, "rule": args.rule, "games": args.games, "workers": args.workers,
        "seed": args.seed, "seconds": times, "local_median": local, "cluster_median": cluster,
        "ratio": cluster / local, "same_results": same,
        "machine": ran_on, "load_before": load_before, "load_after": load_after,
    }
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    with open(args.json, "w") as fh:
        json.dump(result, fh, indent=2)


if __name__ == "__main__":
    main()
