"""Kaboom's pure core: read a Minesweeper position, know what is certain, decide a move.

The public API in one place::

    from kaboom.solver import Position, decide
    d = decide(Position.from_rows(["01##", "12##", "####"], mines=3))
    d.moves, d.certain, d.reason
    solver = Solver("strong")          # one game's positions, one after the other:
    solver.decide(position)            # the same moves, without re-reading the board
    analyse(position, Budget(3.0))     # statuses, odds, the move and its proof, or why
                                       # no layout fits (to_link/from_link: a URL word)
    probabilities(position)            # every covered cell's exact mine probability
    draws = sampler(position)          # counted once: then any number of layouts,
    draws.sample(random.Random(1))     # each as likely as any other consistent one
    win_chances(position, [(3, 0), (3, 2)])  # each move's chance to win the game: exact
                                       # when few layouts are left, else rollouts on
                                       # the same layouts, with intervals

Everything a function here takes, returns or raises is exported here too.  The rest of
Kaboom imports the solver through this module, or through one of three submodules, each
for what it alone holds:

* :mod:`kaboom.solver.position`: the board model in full (the geometry helpers
  ``neighbours`` and ``row_major``, ``COVERED_CHARS``), beside its types exported here;
* :mod:`kaboom.solver.endgame`: the exact win-probability search over listed layouts,
  which ``bench/perfect_play.py`` runs on its own;
* :mod:`kaboom.solver.bench`: the benchmark harness behind ``kaboom bench`` and the
  ``bench/`` scripts.

(``kaboom analyse`` runs ``kaboom.solver.analyse_cli``, named in ``kaboom/cli.py``'s
table of commands, as ``kaboom bench`` runs ``kaboom.solver.bench.cli``.)

It never imports a web, HTTP or screen library; the server and the bots build on it.
"""

from kaboom.solver.advisor import DecideOptions, Decision, decide, decide_rows
from kaboom.solver.analysis import Analysis, Recommendation, analysable, analyse, easiest_proof
from kaboom.solver.budget import Budget
from kaboom.solver.cache import CachePool
from kaboom.solver.cnf import CountEncoding
from kaboom.solver.contradiction import Contradiction, why_impossible
from kaboom.solver.counting import (
    Combination,
    LayoutCounter,
    Listing,
    Probabilities,
    Table,
    TooBig,
    probabilities,
)
from kaboom.solver.errors import (
    BudgetExceededError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    KaboomError,
    NoProofError,
)
from kaboom.solver.frontier import Constraint, Frontier
from kaboom.solver.knowledge import Knowledge, KnowledgeEngine, Status, classify
from kaboom.solver.link import from_link, to_link
from kaboom.solver.position import (
    Cell,
    CellState,
    FirstClick,
    GameStatus,
    Loss,
    LossReason,
    Move,
    MoveKind,
    Position,
)
from kaboom.solver.profiles import Profile, find_profile, profile_spec
from kaboom.solver.proof import Proof, prove
from kaboom.solver.sampling import (
    DrawOptions,
    Layout,
    LayoutSampler,
    draw_layout,
    random_layout,
    sample_layout,
    sampler,
)
from kaboom.solver.session import Solver
from kaboom.solver.simulator import PRESETS, SimulatedGame, parse_board, preset
from kaboom.solver.strategy import first_cell
from kaboom.solver.winchance import Difference, WinChance, WinChances, win_chances

__all__ = [
    "PRESETS",
    "Analysis",
    "Budget",
    "BudgetExceededError",
    "CachePool",
    "Cell",
    "CellState",
    "Combination",
    "Constraint",
    "Contradiction",
    "CountEncoding",
    "DecideOptions",
    "Decision",
    "Difference",
    "DrawOptions",
    "FirstClick",
    "Frontier",
    "GameStatus",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "KaboomError",
    "Knowledge",
    "KnowledgeEngine",
    "Layout",
    "LayoutCounter",
    "LayoutSampler",
    "Listing",
    "Loss",
    "LossReason",
    "Move",
    "MoveKind",
    "NoProofError",
    "Position",
    "Probabilities",
    "Profile",
    "Proof",
    "Recommendation",
    "SimulatedGame",
    "Solver",
    "Status",
    "Table",
    "TooBig",
    "WinChance",
    "WinChances",
    "analysable",
    "analyse",
    "classify",
    "decide",
    "decide_rows",
    "draw_layout",
    "easiest_proof",
    "find_profile",
    "first_cell",
    "from_link",
    "parse_board",
    "preset",
    "probabilities",
    "profile_spec",
    "prove",
    "random_layout",
    "sample_layout",
    "sampler",
    "to_link",
    "why_impossible",
    "win_chances",
]
