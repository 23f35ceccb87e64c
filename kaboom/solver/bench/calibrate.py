"""``kaboom calibrate``: predicted against observed mine rate per probability bucket.

Plays simulated games like ``kaboom bench``; at every guess it records the mine
probability the strategy gave the clicked cell (exact counting), seed 000's iterative
approximation for the same cell, and whether it was a mine.  A well-calibrated solver
has observed rates on the diagonal (seed 000's table).  Prints the table and, with
``--png``, draws the plot (matplotlib, imported only then).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass

from kaboom.solver.bench.args import writable
from kaboom.solver.bench.cli import board_arguments, board_size, progress_bar
from kaboom.solver.bench.runner import run_games, wilson

__all__ = ["Bucket", "add_arguments", "buckets", "run"]


@dataclass(frozen=True, slots=True)
class Bucket:
    """Guesses whose predicted probability fell in ``[low, high)``."""

    low: float
    high: float
    n: int
    mean_predicted: float
    observed: float
    observed_low: float
    observed_high: float


def buckets(pairs: list[tuple[float, bool]], width: float = 0.05) -> list[Bucket]:
    """Groups ``(predicted, was_mine)`` pairs into buckets of ``width``, which divides 1
    (the last bucket holds 1 itself)."""
    count = round(1 / width)
    groups: list[list[tuple[float, bool]]] = [[] for _ in range(count)]
    for p, mine in pairs:
        groups[min(count - 1, int(p / width))].append((p, mine))
    out = []
    for i, g in enumerate(groups):
        if not g:
            continue
        hits = sum(m for _, m in g)
        lo, hi = wilson(hits, len(g))
        out.append(Bucket(i / count, (i + 1) / count, len(g), sum(p for p, _ in g) / len(g),
                          hits / len(g), lo, hi))
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    board_arguments(parser)
    parser.add_argument("--bucket", type=_width, default=0.05,
                        help="bucket width: 1 divided by a whole number up to"
                             f" {_MOST_BUCKETS} (default 0.05)")
    parser.add_argument("--png", metavar="PATH", type=writable, help="draw the calibration plot")


_MOST_BUCKETS = 1000


def _width(text: str) -> float:
    """A bucket width that divides 1 (0.3 labelled its last bucket 60-90 % and put every
    guess up to 100 % in it; 1e-9 allocated a billion buckets)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{value} is not above 0 and at most 1")
    count = round(1 / value)
    if count > _MOST_BUCKETS or abs(count * value - 1) > 1e-9:
        raise argparse.ArgumentTypeError(
            f"{value} does not divide 1 into at most {_MOST_BUCKETS} buckets (0.05, 0.1, 0.2…)"
        )
    return value


def _table(title: str, rows: list[Bucket]) -> str:
    lines = [title, f"{'bucket':>13} {'guesses':>8} {'predicted':>10} {'observed':>9}  95 % CI"]
    for b in rows:
        lines.append(
            f"{100 * b.low:5.1f}-{100 * b.high:5.1f} % {b.n:8d} {100 * b.mean_predicted:9.1f}% "
            f"{100 * b.observed:8.1f}%  {100 * b.observed_low:.1f}-{100 * b.observed_high:.1f}"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        width, height, mines = board_size(args)
    except ValueError as e:
        print(f"kaboom calibrate: {e}", file=sys.stderr)
        return 2
    if args.png:  # before the games, not after them: the plot needs the 'plot' extra
        import matplotlib  # noqa: F401
    results = run_games(
        width, height, mines, args.rule, args.games, seed=args.seed, jobs=args.jobs,
        profile=args.profile, calibrate=True,
        progress=progress_bar(args, f"calibrate {width}x{height}/{mines} {args.rule}"),
    )
    exact = [(p, m) for r in results for p, _, m in r.predictions]
    rough = [(q, m) for r in results for _, q, m in r.predictions]
    tables = {"exact": buckets(exact, args.bucket), "approximation": buckets(rough, args.bucket)}
    print(f"board {width}x{height}/{mines}  rule {args.rule}  games {args.games}  "
          f"seed {args.seed}  guesses {len(exact)}")
    print(_table("exact probabilities (the strategy's)", tables["exact"]))
    print(_table("iterative approximation (seed 000), same cells", tables["approximation"]))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({k: [asdict(b) for b in v] for k, v in tables.items()}, fh, indent=2)
    if args.png:
        _plot(tables, args.png, f"{width}x{height}/{mines} {args.rule}, {len(exact)} guesses")
    return 0


def _plot(tables: dict[str, list[Bucket]], path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="perfect")
    for (name, rows), marker in zip(tables.items(), "os", strict=False):
        xs = [b.mean_predicted for b in rows]
        ys = [b.observed for b in rows]
        err = [[b.observed - b.observed_low for b in rows],
               [b.observed_high - b.observed for b in rows]]
        ax.errorbar(xs, ys, yerr=err, marker=marker, linestyle="", capsize=2, label=name)
    ax.set_xlabel("predicted mine probability of the clicked cell")
    ax.set_ylabel("observed mine rate")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
