"""The per-seed results file of ``kaboom bench --out``: JSON Lines, one game a line.

A run appends each game as it ends, so an interrupted run loses only the games still
being played, and a rerun of the same command skips the seeds already in the file.
Every line names its board, rule and profile, so files from several machines can be
concatenated and a file is never resumed with other settings by mistake. Nothing of
the file is trusted blindly: a torn last line (the process killed mid-write) is dropped
and replayed, a seed written twice counts once, any other bad line is an error.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from solver.bench.runner import GameResult, Setup

__all__ = ["ResultsFile", "ResultsFileError", "from_line", "to_line"]


class ResultsFileError(ValueError):
    """Raised when a results file holds another run's games, a bad line, or is in use."""


def to_line(result: GameResult, setup: Setup) -> str:
    """One game as a line of JSON (timings rounded to the microsecond)."""
    data: dict[str, Any] = {
        "seed": result.seed, "board": setup.board, "rule": setup.rule,
        "profile": setup.profile, "won": result.won, "decisions": result.decisions,
        "guesses": result.guesses, "moves_by_algorithm": result.moves_by_algorithm,
        "seconds": round(result.seconds, 6), "cpu_seconds": round(result.cpu_seconds, 6),
    }
    if result.predictions:
        data["predictions"] = result.predictions
    return json.dumps(data, separators=(",", ":")) + "\n"


def from_line(line: str) -> tuple[str, GameResult]:
    """Parses :func:`to_line`'s output: ``(setup label, result)``."""
    d = json.loads(line)
    label = f"{d['board']} {d['rule']} {d['profile']}"
    return label, GameResult(
        int(d["seed"]), bool(d["won"]), float(d["seconds"]), float(d["cpu_seconds"]),
        int(d["decisions"]), int(d["guesses"]),
        {str(k): int(v) for k, v in d["moves_by_algorithm"].items()},
        tuple((float(p), float(q), bool(m)) for p, q, m in d.get("predictions", ())),
    )


def _label(setup: Setup) -> str:
    return f"{setup.board} {setup.rule} {setup.profile}"


class ResultsFile:
    """An open results file of one setup: the seeds it holds, and appending new games.

    Opening takes an exclusive lock (two runs appending to one file would play the same
    seeds twice) and truncates a torn last line; use it as a context manager.
    """

    def __init__(self, path: str | os.PathLike[str], setup: Setup) -> None:
        self.path = Path(path)
        self.setup = setup
        self._fh: IO[bytes] = open(self.path, "a+b")  # noqa: SIM115 -- closed by close()
        try:
            fcntl.flock(self._fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._fh.close()
            raise ResultsFileError(f"{self.path} is in use by another run") from None
        try:
            self.seeds: set[int] = self._scan()
        except BaseException:
            self.close()
            raise

    def _scan(self) -> set[int]:
        """Reads every line's seed, checking the setup; truncates a torn last line."""
        seeds: set[int] = set()
        self._fh.seek(0)
        good = 0
        for number, raw in enumerate(self._fh, 1):
            if not raw.endswith(b"\n"):
                break  # torn by a kill mid-write: dropped below, its game replayed
            try:
                label, result = from_line(raw.decode())
            except (ValueError, KeyError, TypeError) as e:
                raise ResultsFileError(f"{self.path}:{number}: not a game result ({e})") from e
            if label != _label(self.setup):
                raise ResultsFileError(
                    f"{self.path} holds games of {label}, not {_label(self.setup)}: "
                    "use another --out file"
                )
            seeds.add(result.seed)
            good += len(raw)
        self._fh.truncate(good)
        return seeds

    def append(self, results: Iterable[GameResult]) -> Iterator[GameResult]:
        """Writes each game as it passes through (a line flushed per game), skipping
        seeds the file already holds."""
        for r in results:
            if r.seed not in self.seeds:
                self._fh.write(to_line(r, self.setup).encode())
                self._fh.flush()
                self.seeds.add(r.seed)
            yield r

    def read(self, seeds: Iterable[int] | None = None) -> Iterator[GameResult]:
        """The file's games (of ``seeds`` only, when given), each seed once."""
        wanted = None if seeds is None else set(seeds)
        seen: set[int] = set()
        self._fh.flush()
        with open(self.path, "rb") as fh:
            for raw in fh:
                result = from_line(raw.decode())[1]
                if result.seed in seen or (wanted is not None and result.seed not in wanted):
                    continue
                seen.add(result.seed)
                yield result

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()  # releases the lock

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
