"""``kaboom analyse FILE|-``: a position's analysis as text, for positions kept in files.

The file holds the board as rows (``#`` covered, ``F`` flag, ``?`` question mark, ``0``-``8``
open; spaces inside a row are ignored) and a line ``mines=N`` (or ``--mines N``), as
``Position.to_text`` writes it; or a position link (``9x9m10.H15cb2...``); or the JSON
``{"rows": [...], "mines": N}`` that ``POST /api/analyse`` takes.  It prints what the API
answers (:func:`kaboom.solver.analysis.analyse`): the statuses, the probabilities, the
move to play with its proof (a guess with its chance to win the game and the next best
guesses'), or why no layout fits.  Exit status: 0 analysed, 1 no layout
fits, 2 the input is not a position (the message names the row and column).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from kaboom.solver.analysis import Analysis, analysable, analyse
from kaboom.solver.budget import Budget
from kaboom.solver.errors import InvalidPositionError, KaboomError
from kaboom.solver.link import from_link, to_link
from kaboom.solver.position import Cell, Position
from kaboom.solver.proof import prove
from kaboom.solver.reasons import mines_text
from kaboom.solver.winchance import WinChance, WinChances

__all__ = ["add_arguments", "read_position", "report", "run"]

_MINES = re.compile(r"mines\s*=\s*(\d+)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the position's file, or - for standard input")
    parser.add_argument("--mines", type=int, help="the board's mines (when the file has no"
                        " 'mines=N' line)")
    parser.add_argument("--cell", nargs=2, type=int, action="append", default=[],
                        metavar=("X", "Y"), help="also print this cell's proof (repeatable)")
    parser.add_argument("--budget", type=float, default=30.0, metavar="SECONDS",
                        help="time for the analysis (default 30); what it does not reach"
                        " is printed as unsettled")


def read_position(text: str, mines: int | None = None) -> Position:
    """The position in ``text``: JSON, a link, or rows with a ``mines=N`` line (``mines``
    stands in for a missing one, and overrides it).  Raises
    :class:`InvalidPositionError` saying what is wrong, with the row and column of a bad
    cell."""
    text = text.strip()
    if text.startswith("{"):
        try:
            body = json.loads(text)
            rows, count = body["rows"], body["mines"] if mines is None else mines
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidPositionError(f"the JSON is not {{\"rows\": [...], \"mines\": N}}: {exc}"
                                       ) from None
        if not (isinstance(rows, list) and all(isinstance(r, str) for r in rows)
                and isinstance(count, int)):
            raise InvalidPositionError("the JSON's rows must be strings and mines a number")
        return analysable(rows, count)
    if re.match(r"\d+x\d+m", text):
        position = from_link(text)
        return analysable(list(position.rows), position.mines if mines is None else mines)
    rows = []
    for line in text.splitlines():
        line = line.strip()
        found = _MINES.fullmatch(line)
        if found:
            mines = int(found.group(1)) if mines is None else mines
        elif line:
            rows.append(line.replace(" ", ""))
    if mines is None:
        raise InvalidPositionError("no mine count: add a line 'mines=N' or pass --mines N")
    return analysable(rows, mines)


def report(analysis: Analysis, proofs: list[tuple[Cell, str]] | None = None) -> str:
    """The analysis as text: a summary, the board of statuses, the probabilities in
    percent, the move to play; ``proofs`` are extra cells' proofs (or why none)."""
    position = analysis.position
    lines = [f"{position.width}x{position.height}, {mines_text(position.mines)};"
             f" link {to_link(position)}"]
    if analysis.impossible:
        reason = analysis.contradiction
        lines.append("impossible: no layout fits"
                     + (f": {reason.text}" if reason else " (no reason found in time)"))
        return "\n".join(lines) + "\n"
    status = analysis.status_rows()
    count = {ch: sum(row.count(ch) for row in status) for ch in "smu?"}
    state = "settled" if analysis.complete else f"{count['?']} unsettled (out of time)"
    odds = "exact probabilities" if analysis.exact else "no probabilities (out of time)"
    lines.append(f"{count['s']} safe, {count['m']} mines, {count['u']} unknown; {state};"
                 f" {odds}")
    lines += ["", "status (s safe, m mine, u unknown, ? unsettled):", *status]
    rows = analysis.probability_rows()
    if analysis.exact:
        lines += ["", "mine probability, percent (. open):"]
        for row in rows:
            assert row is not None
            lines.append(" ".join("  ." if p is None else f"{_percent(p):>3}" for p in row))
    found = analysis.recommendation
    lines.append("")
    if found is None:
        lines.append("recommended: none within the time (some cells are unsettled)")
    else:
        moves = ", ".join(map(str, found.moves)) or "nothing to play"
        lines.append(f"recommended: {moves} ({found.reason})")
        if found.proof is not None:
            lines.append(f"  why: {found.proof.text}")
        if found.chances is not None:
            lines += _chances(found.chances)
        elif found.no_chances:
            lines.append(f"  win chance: not given ({found.no_chances})")
    for cell, text in proofs or []:
        lines.append(f"({cell[0]}, {cell[1]}): {text}")
    return "\n".join(lines) + "\n"


def _chances(odds: WinChances) -> list[str]:
    """The guess's chance to win and the next best guesses', each against it."""
    how = ("exact, best play after" if odds.exact else
           f"{odds.rollouts} layouts, the same for each guess, {odds.policy} playing on")
    first = odds.chances[0]
    lines = [f"  win chance: {_chance(first, odds.exact)} ({how})"]
    for c in odds.chances[1:]:
        d = odds.difference(c.cell, first.cell)
        paired = "" if odds.exact else (f" (95 %: {100 * d.low:+.1f} to"
                                        f" {100 * d.high:+.1f})")
        lines.append(f"  or reveal {c.cell[0]} {c.cell[1]}: {_chance(c, odds.exact)},"
                     f" {100 * d.estimate:+.1f} points{paired}")
    return lines


def _chance(c: WinChance, exact: bool) -> str:
    if exact:
        return f"{100 * c.chance:.1f} %"
    return f"{100 * c.chance:.1f} % (95 %: {100 * c.low:.1f}-{100 * c.high:.1f})"


def _percent(p: float) -> str:
    """Whole percent, never 0 or 100 unless the cell is certain."""
    if p <= 0.0 or p >= 1.0:
        return str(round(p * 100))
    return str(min(99, max(1, round(p * 100))))


def run(args: argparse.Namespace) -> int:
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
    except OSError as exc:
        print(f"kaboom analyse: {exc}", file=sys.stderr)
        return 2
    try:
        position = read_position(text, args.mines)
    except InvalidPositionError as exc:
        print(f"kaboom analyse: {args.file}: {exc}", file=sys.stderr)
        return 2
    budget = Budget(args.budget)
    analysis = analyse(position, budget, chances=True)
    proofs = []
    for x, y in args.cell:
        try:
            proofs.append(((x, y), prove(position, (x, y), budget).text))
        except KaboomError as exc:
            proofs.append(((x, y), f"no proof: {exc}"))
    sys.stdout.write(report(analysis, proofs))
    return 1 if analysis.impossible else 0
