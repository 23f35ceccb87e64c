"""The page's cookies as the server sets them (how they are read: :class:`~kaboom.server.
forms.Cookies`).

The player's token travels as an ``HttpOnly``, ``SameSite=Strict`` cookie whose path is the
game's own (``/games/{id}``): no script reads it, no other game's requests carry it, and a
request from another site never does.  The browser's id is an anonymous random string that
holds nothing else (its statistics are on the server).
"""

from __future__ import annotations

from fastapi import Response

from kaboom.server.application import Caller
from kaboom.server.forms import Cookies

__all__ = ["SETTINGS_COOKIE", "forget_note", "keep_browser", "keep_note", "keep_player"]

_YEAR = 365 * 24 * 3600
SETTINGS_COOKIE = "kaboom_settings"
"""The new-game form's fields as a query string: the page's script keeps it as the player
edits the form, so a new visit starts a game with them (not a secret: no HttpOnly)."""


def keep_player(response: Response, game_id: str, token: str) -> None:
    response.set_cookie("kaboom_player", token, max_age=_YEAR, path=f"/games/{game_id}",
                        httponly=True, samesite="strict", secure=False)


def keep_browser(response: Response, caller: Caller, cookies: Cookies) -> None:
    """Sets the browser's id when the request came without it."""
    if caller.browser is not None and cookies.kaboom_browser != caller.browser:
        response.set_cookie("kaboom_browser", caller.browser, max_age=_YEAR, path="/",
                            httponly=True, samesite="lax", secure=False)


def keep_note(response: Response, path: str, note: str) -> None:
    """A note the next page at ``path`` shows once (why a link opened another game)."""
    response.set_cookie("kaboom_note", note, max_age=60, path=path, samesite="strict")


def forget_note(response: Response, path: str) -> None:
    response.delete_cookie("kaboom_note", path=path)
