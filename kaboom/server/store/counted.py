"""The games each browser counted in its statistics, one row a game."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kaboom.server.store.faults import read_again

__all__ = ["CountedGames", "Tally"]


@dataclass(frozen=True, slots=True)
class Tally:
    """The games one browser counted on one preset, and what they hold of one game."""

    preset: str
    played: int
    won: int
    best_ms: int | None
    """The fastest win's time."""
    has_game: bool
    """Whether the game asked about is among them."""
    game_won_ms: int | None
    """Its time, when it counted as a win."""


class CountedGames:
    """The SQL of the ``counted_games`` table, over a backend's transactions."""

    def _tx(self, write: bool = True) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def count_game(self, browser: str, game_id: str, preset: str, won: bool,
                   elapsed_ms: int) -> bool:
        """Counts a finished game in ``browser``'s statistics, unless it counted already
        (for any browser); returns whether this call counted it.  The key decides, so
        two processes counting it at once count it once."""
        with self._tx() as cur:
            return cur.execute(
                "INSERT INTO counted_games (game_id, browser, preset, won, elapsed_ms)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id) DO NOTHING RETURNING 1",
                (game_id, browser, preset, int(won), elapsed_ms),
            ).fetchone() is not None

    @read_again
    def tallies(self, browser: str, game_id: str) -> list[Tally]:
        """``browser``'s statistics per preset it counted a game on, and whether (and as
        what) they hold ``game_id``: one query on the browser's index."""
        with self._tx(write=False) as cur:
            rows = cur.execute(
                "SELECT preset, count(*), sum(won), min(CASE WHEN won = 1 THEN elapsed_ms END),"
                " count(CASE WHEN game_id = ? THEN 1 END),"
                " min(CASE WHEN game_id = ? AND won = 1 THEN elapsed_ms END)"
                " FROM counted_games WHERE browser = ? GROUP BY preset",
                (game_id, game_id, browser),
            ).fetchall()
        return [Tally(r[0], int(r[1]), int(r[2]), None if r[3] is None else int(r[3]),
                      bool(r[4]), None if r[5] is None else int(r[5])) for r in rows]

    def forget_counted(self, browser: str) -> None:
        """Resets ``browser``'s statistics.  Its games stay known as counted, for no
        browser, so that reopening one does not count it again; each goes when its game
        expires."""
        with self._tx() as cur:
            cur.execute("UPDATE counted_games SET browser = NULL WHERE browser = ?", (browser,))
