"""Who may change a game: its player, who holds the token shown once at creation.

The store keeps only the token's hash; a bounded map of the hashes lets a move be
authorized before it queues for the game's solver turn, with no read of the store.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import threading
from collections import OrderedDict

from kaboom.server.errors import MissingTokenError, NotPlayerError
from kaboom.server.store import GameStore

__all__ = ["Players", "check_player", "token_hash"]

_KNOWN_PLAYERS = 100_000
"""Games whose player-token hash is kept in memory (about 150 bytes each)."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_player(player_hash: str, token: str | None) -> None:
    """Raises unless ``token`` is the player token whose hash is ``player_hash``."""
    if token is None:
        raise MissingTokenError("only the player may do this: send the player's token as"
                                " 'Authorization: Bearer <token>'")
    if not hmac.compare_digest(token_hash(token), player_hash):
        raise NotPlayerError("the token is not this game's player token")


class Players:
    """The player-token hashes of the games this process has seen (they never change)."""

    def __init__(self, store: GameStore) -> None:
        self.store = store
        self._hashes: OrderedDict[str, str] = OrderedDict()
        self._guard = threading.Lock()

    def knows(self, game_id: str) -> bool:
        """Whether :meth:`authorize` can answer from memory (no read of the store)."""
        return game_id in self._hashes

    def authorize(self, game_id: str, token: str | None) -> None:
        """Raises unless ``token`` is the game's player token: checked before a request
        queues for the game's solver turn, so that watchers cannot crowd the player out.
        A game's token hash is read from the store once; the move itself checks it again
        on the game it changes."""
        player_hash = self._hashes.get(game_id)
        if player_hash is None:
            player_hash = self.store.get(game_id).player_hash
            with self._guard:
                self._hashes[game_id] = player_hash
                if len(self._hashes) > _KNOWN_PLAYERS:
                    self._hashes.popitem(last=False)
        check_player(player_hash, token)

    async def admit(self, game_id: str, token: str | None) -> None:
        """:meth:`authorize` before a request queues for the game's turn, reading the
        store (off the event loop) only the first time this process sees the game."""
        if self.knows(game_id):
            self.authorize(game_id, token)
        else:
            await asyncio.to_thread(self.authorize, game_id, token)
