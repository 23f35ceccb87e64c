"""The per-seed results file of ``kaboom bench --out``: JSON Lines, one game a line.

A run appends each game as it ends, so an interrupted run loses only the games still
being played, and a rerun of the same command skips the seeds already in the file.
Every line names its board, rule and profile, so files from several machines can be
concatenated and a file is never resumed with other settings by mistake. Nothing of
the file is trusted blindly: a torn last line (the process killed mid-write) is dropped
and replayed, a seed written twice counts once, any other bad line is an error.
:class:`SeedLog` is that file for any kind of per-seed record (``bench/guess_regret.py``
keeps its measured guesses in one); :class:`ResultsFile` holds games.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, Self

from kaboom.solver.bench.runner import GameResult, Setup

__all__ = ["ResultsFile", "ResultsFileError", "SeedLog", "from_record", "to_line"]


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


def from_record(d: dict[str, Any]) -> tuple[str, GameResult]:
    """Reads back a line of :func:`to_line`, parsed: ``(setup label, result)``."""
    return _label(str(d["board"]), str(d["rule"]), str(d["profile"])), GameResult(
        int(d["seed"]), bool(d["won"]), float(d["seconds"]), float(d["cpu_seconds"]),
        int(d["decisions"]), int(d["guesses"]),
        {str(k): int(v) for k, v in d["moves_by_algorithm"].items()},
        tuple((float(p), float(q), bool(m)) for p, q, m in d.get("predictions", ())),
    )


def _label(board: str, rule: str, profile: str) -> str:
    """A run's name in error messages, and what a resumed file must match."""
    return f"{board} {rule} {profile}"


class SeedLog:
    """A resumable run's JSON Lines file: one record a seed, every record of one run.

    Opening takes an exclusive lock (two runs appending to one file would play the same
    seeds twice), reads every line's seed and checks its run with ``label_of`` (which
    raises ``ValueError``, ``KeyError`` or ``TypeError`` on a line that is not such a
    record), and truncates a torn last line; use it as a context manager.  Only the seeds
    stay in memory: a file of a million games is read again when asked for.
    """

    what = "record"
    """What a line holds, for error messages."""

    def __init__(self, path: str | os.PathLike[str], label: str,
                 label_of: Callable[[dict[str, Any]], str]) -> None:
        self.path = Path(path)
        self.label = label
        self._label_of = label_of
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
        seeds: set[int] = set()
        self._fh.seek(0)
        good = 0
        for number, raw in enumerate(self._fh, 1):
            if not raw.endswith(b"\n"):
                break  # torn by a kill mid-write: dropped below, its seed played again
            try:
                record = json.loads(raw)
                label = self._label_of(record)
                seeds.add(int(record["seed"]))
            except (ValueError, KeyError, TypeError) as e:
                raise ResultsFileError(f"{self.path}:{number}: not a {self.what} ({e})") from e
            if label != self.label:
                raise ResultsFileError(
                    f"{self.path} holds {self.what}s of {label}, not {self.label}: "
                    "use another --out file"
                )
            good += len(raw)
        self._fh.truncate(good)
        return seeds

    def write(self, seed: int, line: str) -> None:
        """Appends ``line`` (one record, newline-terminated) and flushes it, unless the
        file already holds ``seed``."""
        if seed not in self.seeds:
            self._fh.write(line.encode())
            self._fh.flush()
            self.seeds.add(seed)

    def records(self) -> Iterator[dict[str, Any]]:
        """The file's records, each seed once (its first line)."""
        seen: set[int] = set()
        self._fh.flush()
        with open(self.path, "rb") as fh:
            for raw in fh:
                record = json.loads(raw)
                if record["seed"] not in seen:
                    seen.add(record["seed"])
                    yield record

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()  # releases the lock

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ResultsFile(SeedLog):
    """``kaboom bench --out``: the games of one setup."""

    what = "game result"

    def __init__(self, path: str | os.PathLike[str], setup: Setup) -> None:
        self.setup = setup
        label = _label(setup.board, setup.rule, setup.profile)
        super().__init__(path, label, lambda d: from_record(d)[0])

    def append(self, results: Iterable[GameResult]) -> Iterator[GameResult]:
        """Writes each game as it passes through (a line flushed per game), skipping
        seeds the file already holds."""
        for r in results:
            self.write(r.seed, to_line(r, self.setup))
            yield r

    def read(self, seeds: Iterable[int] | None = None) -> Iterator[GameResult]:
        """The file's games (of ``seeds`` only, when given), each seed once."""
        wanted = None if seeds is None else set(seeds)
        for record in self.records():
            if wanted is None or record["seed"] in wanted:
                yield from_record(record)[1]
