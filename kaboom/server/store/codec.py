"""How a game and its undo records are written in the store: JSON, field by field."""

from __future__ import annotations

import json
from typing import Any

from kaboom.server.game import Game, Rules, Step
from kaboom.solver.position import GameStatus, Loss, LossReason

__all__ = ["game_from_dict", "game_from_json", "game_to_dict", "same_game", "state",
           "step_from_json", "step_to_json"]


def game_to_dict(game: Game) -> dict[str, Any]:
    # Field by field rather than dataclasses.asdict: asdict deep-copies every row
    # string, which was a tenth of an Expert reveal's time.
    loss = game.loss
    return {
        "id": game.id,
        "rules": {f: getattr(game.rules, f) for f in Rules.__dataclass_fields__},
        "rows": list(game.rows),
        "status": game.status.value,
        "moves": game.moves,
        "forced_guesses": game.forced_guesses,
        "assisted": game.assisted,
        "started_at": game.started_at,
        "elapsed_final_ms": game.elapsed_final_ms,
        "loss": None
        if loss is None
        else {"x": loss.x, "y": loss.y, "reason": loss.reason, "safe_cell": loss.safe_cell},
        "created_at": game.created_at,
        "version": game.version,
        "undos": game.undos,
        "player_hash": game.player_hash,
    }


def game_from_dict(data: dict[str, Any]) -> Game:
    loss = data.get("loss")
    safe = loss.get("safe_cell") if loss else None
    return Game(
        id=data["id"],
        rules=Rules(**data["rules"]),
        rows=tuple(data["rows"]),
        status=GameStatus(data["status"]),
        moves=data["moves"],
        forced_guesses=data["forced_guesses"],
        assisted=data["assisted"],
        started_at=data["started_at"],
        elapsed_final_ms=data["elapsed_final_ms"],
        loss=Loss(loss["x"], loss["y"], LossReason(loss["reason"]), tuple(safe) if safe else None)
        if loss
        else None,
        created_at=data["created_at"],
        version=data.get("version", 0),
        undos=data.get("undos", 0),
        player_hash=data.get("player_hash", ""),
    )


def game_from_json(text: str) -> Game:
    return game_from_dict(json.loads(text))


def step_to_json(step: Step) -> str:
    before = game_to_dict(step.before)
    before["rows"] = []  # the changed cells restore the board
    record: dict[str, Any] = {"move": step.move, "cells": step.cells, "before": before}
    if step.after is not None:
        record["after"] = step.after
    return json.dumps(record)


def step_from_json(text: str) -> Step:
    data = json.loads(text)
    before = game_from_dict(data["before"])
    return Step(data["move"], tuple(tuple(c) for c in data["cells"]), before, data.get("after"))


def state(game: Game) -> str:
    return json.dumps(game_to_dict(game), separators=(",", ":"))


def same_game(a: Game, b: Game) -> bool:
    """Whether the two are one stored state (as the store would write them)."""
    return state(a) == state(b)
