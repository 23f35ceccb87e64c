"""Statistics per preset, kept by the server for each browser: which games count, and the
table a browser's page shows.

A browser is an anonymous random id (the page's ``kaboom_browser`` cookie).  A finished,
unassisted preset game counts once, for the browser that played it as its player: when the
move that ends it is answered, and whenever its page (or its event stream) is drawn for
its player, so a game finished elsewhere counts too.  Counting is idempotent, keyed by the
game's id (:meth:`~kaboom.server.store.GameStore.count_game`), so a reload, a reopened link
or two processes at once count it once.  A browser adds rows only for games it finished as
their player, and creating games is rate-limited.
"""

from __future__ import annotations

from dataclasses import dataclass

from kaboom.server.store import GameStore, Tally
from kaboom.server.views import PRESET_LABELS, GameView
from kaboom.solver.position import GameStatus

__all__ = ["PresetStats", "Statistics", "counts", "tally"]


@dataclass(frozen=True, slots=True)
class PresetStats:
    """One row of the table: a preset's games this browser counted."""

    preset: str
    label: str
    played: int = 0
    won: int = 0
    best_ms: int | None = None

    @property
    def rate(self) -> str:
        return f"{round(100 * self.won / self.played)} %" if self.played else "–"

    @property
    def best(self) -> str:
        return "–" if self.best_ms is None else f"{self.best_ms / 1000:.1f} s"


@dataclass(frozen=True, slots=True)
class Statistics:
    """A browser's table, and whether the game it was drawn for is its best time."""

    rows: list[PresetStats]
    best: bool = False


EMPTY = Statistics([PresetStats(name, label) for name, label in PRESET_LABELS.items()])
"""The table of a browser that counted nothing."""


def counts(view: GameView) -> bool:
    """Whether the game counts in its viewer's statistics: finished, unassisted, a preset,
    and the viewer its player."""
    return (view.role == "player" and not view.playing and not view.game.assisted
            and view.preset is not None)


def tally(store: GameStore, browser: str, view: GameView | None) -> Statistics:
    """The browser's table, once ``view``'s game is counted if it counts; and whether that
    game is the fastest win it counted on its preset."""
    counted = view if view is not None and counts(view) else None
    game_id = counted.game.id if counted is not None else ""
    tallies = store.tallies(browser, game_id)
    if counted is not None and not any(t.has_game for t in tallies) and store.count_game(
            browser, game_id, str(counted.preset), counted.game.status is GameStatus.WON,
            counted.game.elapsed_ms()):
        tallies = store.tallies(browser, game_id)
    best = counted is not None and any(
        t.game_won_ms is not None and t.game_won_ms == t.best_ms for t in tallies)
    return Statistics(_rows(tallies), best)


def _rows(tallies: list[Tally]) -> list[PresetStats]:
    of = {t.preset: t for t in tallies}
    return [PresetStats(name, label) if name not in of else
            PresetStats(name, label, of[name].played, of[name].won, of[name].best_ms)
            for name, label in PRESET_LABELS.items()]
