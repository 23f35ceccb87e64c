"""A solver for one game: the same decisions as :func:`kaboom.solver.advisor.decide`, faster.

``decide(position)`` is stateless: each call reads the whole board again.  A game's
positions differ by a few opened cells, so a :class:`Solver` keeps what does not change
between them: the frontier (updated from the cells a move opened), the group method's
result for each component whose numbers did not change, and the counting tables (kept
by :mod:`kaboom.solver.counting` for every component it has seen).  None of it changes an
answer: ``Solver().decide(p) == decide(p)`` for every position of every game (tested
over random games).  Any position may be passed; one that does not follow from the
previous one (another game, an undo) just starts the frontier over.
"""

from __future__ import annotations

from kaboom.solver.budget import Budget
from kaboom.solver.deep import deepen
from kaboom.solver.frontier import FrontierTracker
from kaboom.solver.position import FirstClick, Position
from kaboom.solver.profiles import Profile, find_profile
from kaboom.solver.strategy import Decision, choose

__all__ = ["Solver"]


class Solver:
    """Decides the moves of one game's successive positions.

    ``profile`` (a name or spec, or a :class:`~kaboom.solver.profiles.Profile`), ``first_click`` and
    ``outside_guess`` are the game's settings, with :func:`kaboom.solver.advisor.decide`'s
    meaning.
    """

    def __init__(
        self,
        profile: str | Profile = "strong",
        *,
        first_click: FirstClick | str = FirstClick.SAFE,
        outside_guess: bool = True,
    ) -> None:
        self.profile = find_profile(profile) if isinstance(profile, str) else profile
        """The strategy the game is played with."""
        self.first_click = FirstClick(first_click)
        """The game's first-click rule."""
        self.outside_guess = outside_guess
        """Whether a guess may go off the frontier (as :func:`decide`'s option)."""
        self._frontier = FrontierTracker()

    def decide(
        self,
        position: Position,
        *,
        probabilities: bool = False,
        flag_mines: bool = False,
        budget_s: float | None = None,
    ) -> Decision:
        """The moves to play in ``position``; see :func:`kaboom.solver.advisor.decide`.

        Raises ``InvalidPositionError`` when no layout fits the position (as
        :func:`~kaboom.solver.advisor.decide` finds it).
        """
        budget = Budget(budget_s)
        decision = choose(
            position,
            self.profile,
            outside_guess=self.outside_guess,
            want_probabilities=probabilities,
            flag_mines=flag_mines,
            budget=budget,
            first_click=self.first_click,
            tracker=self._frontier,
        )
        return deepen(position, decision, self.profile, budget)
