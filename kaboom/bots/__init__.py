"""Clients that play Kaboom: over the HTTP API (:mod:`kaboom.bots.http`) and on a desktop screen.

They share :mod:`kaboom.bots.base`: the game view, the ``GameClient`` protocol and the play loop.
Transport modules are imported only by whoever uses them.
"""

from kaboom.bots.base import (
    Choice,
    ClientError,
    GameClient,
    GameResult,
    GameSettings,
    GameView,
    Loss,
    choose,
    play_game,
)

__all__ = [
    "Choice",
    "ClientError",
    "GameClient",
    "GameResult",
    "GameSettings",
    "GameView",
    "Loss",
    "choose",
    "play_game",
]
