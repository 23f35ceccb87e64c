"""Kaboom's pure core: read a Minesweeper position, know what is certain, decide a move.

The public API in one place::

    from kaboom.solver import Position, decide
    d = decide(Position.from_rows(["01##", "12##", "####"], mines=3))
    d.moves, d.certain, d.reason
    solver = Solver("strong")          # one game's positions, one after the other:
    solver.decide(position)            # the same moves, without re-reading the board
    analyse(position)                  # statuses, odds, the move and its proof, or why
                                       # no layout fits (to_link/from_link: a URL word)

It never imports a web, HTTP or screen library; the server and the bots build on it.
"""

from kaboom.solver.advisor import Decision, decide, decide_rows
from kaboom.solver.analysis import Analysis, analyse
from kaboom.solver.cnf import CountEncoding
from kaboom.solver.contradiction import Contradiction, why_impossible
from kaboom.solver.counting import Probabilities, probabilities
from kaboom.solver.errors import (
    BudgetExceededError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    KaboomError,
)
from kaboom.solver.knowledge import Knowledge, KnowledgeEngine, Status, classify
from kaboom.solver.link import from_link, to_link
from kaboom.solver.position import Cell, CellState, Move, MoveKind, Position
from kaboom.solver.proof import Proof, prove
from kaboom.solver.sampling import sample_layout
from kaboom.solver.session import Solver
from kaboom.solver.simulator import PRESETS, SimulatedGame

__all__ = [
    "PRESETS",
    "Analysis",
    "BudgetExceededError",
    "Cell",
    "CellState",
    "Contradiction",
    "CountEncoding",
    "Decision",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "KaboomError",
    "Knowledge",
    "KnowledgeEngine",
    "Move",
    "MoveKind",
    "Position",
    "Probabilities",
    "Proof",
    "SimulatedGame",
    "Solver",
    "Status",
    "analyse",
    "classify",
    "decide",
    "decide_rows",
    "from_link",
    "probabilities",
    "prove",
    "sample_layout",
    "to_link",
    "why_impossible",
]
