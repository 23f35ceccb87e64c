"""The one entry point every client uses: what to play now in a position.

``decide(position)`` returns a :class:`Decision`: the moves to play, whether they are
proven, which algorithm found them and why.  Deduction is complete: whenever any
covered cell is provably safe given every number and the total mine count, the
decision is a set of certain safe reveals.  Otherwise it is the best guess the chosen
profile can find.  See ``docs/solver.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypedDict

from kaboom.solver.budget import Budget
from kaboom.solver.deep import deepen
from kaboom.solver.position import FirstClick, Position
from kaboom.solver.profiles import find_profile
from kaboom.solver.strategy import Decision, choose

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["DecideOptions", "Decision", "decide", "decide_rows"]


def decide(
    position: Position,
    *,
    outside_guess: bool = True,
    probabilities: bool = False,
    flag_mines: bool = False,
    budget_s: float | None = None,
    profile: str = "strong",
    first_click: FirstClick | str = FirstClick.SAFE,
) -> Decision:
    """Chooses the moves to play in ``position``.

    ``outside_guess=False`` keeps guesses on the frontier unless the frontier is empty or
    all mines (Kaboom's default rule).  ``probabilities`` attaches the mine probability
    of every covered cell; ``flag_mines`` adds flags on proven, unflagged mines before
    the reveals; ``budget_s`` bounds the SAT fallback and ``deep``'s rollouts;
    ``profile`` is ``fast``, ``strong``, ``deep`` or a spec with overrides
    (``strong,ratio=0.85``, see :func:`~kaboom.solver.profiles.find_profile`);
    ``first_click`` (``safe``/``sfar`` or ``opening``/``snr``) picks the first cell for
    that first-click rule.  Raises ``InvalidPositionError`` when no layout fits the
    position, found whenever the decision counts layouts (a guess, probabilities); a
    certain move that the numbers alone prove is returned without checking the rest of
    the board.
    """
    chosen, budget = find_profile(profile), Budget(budget_s)
    decision = choose(
        position,
        chosen,
        outside_guess=outside_guess,
        want_probabilities=probabilities,
        flag_mines=flag_mines,
        budget=budget,
        first_click=first_click,
    )
    return deepen(position, decision, chosen, budget)


class DecideOptions(TypedDict, total=False):
    """:func:`decide`'s keyword options, so that :func:`decide_rows` passes them on typed."""

    outside_guess: bool
    """Whether a guess may go off the frontier (``False``, Kaboom's rule: only when the
    frontier is empty or all mines)."""
    probabilities: bool
    """Whether the decision carries every covered cell's mine probability."""
    flag_mines: bool
    """Whether proven, unflagged mines get flags before the reveals."""
    budget_s: float | None
    """Seconds the SAT fallback may take (``None``: no limit)."""
    profile: str
    """The strategy: a profile's name, or a spec with overrides (:func:`find_profile`)."""
    first_click: FirstClick | str
    """The first-click rule the first cell is picked for."""


def decide_rows(rows: Sequence[str], mines: int, **options: Unpack[DecideOptions]) -> Decision:
    """``decide`` for the API's board format: a list of row strings and the mine count."""
    return decide(Position.from_rows(rows, mines), **options)
