"""Typed dependencies of the routes: the application, who calls (:class:`Caller`, from a
bearer token or the page's cookies), and the path's game id.

No ``from __future__ import annotations``: FastAPI reads a dependency's annotations
at run time, and :func:`_bearer_token`'s refer to a local."""

import secrets
from dataclasses import replace
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import Cookie, Depends, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from kaboom.server.application import Caller, Kaboom
from kaboom.server.edge import client_of
from kaboom.server.errors import NotPlayerError
from kaboom.server.forms import Cookies

__all__ = ["ApiCaller", "GameId", "KaboomDep", "MetricsToken", "PageCookies", "PagePlayer",
           "PageViewer", "Viewer"]


async def _kaboom(request: Request) -> Kaboom:
    # async: FastAPI runs a plain ``def`` dependency on a worker thread, a thread hop
    # per request for a lookup that cannot block
    kaboom: Kaboom = request.app.state.kaboom
    return kaboom


KaboomDep = Annotated[Kaboom, Depends(_kaboom)]

GameId = Annotated[
    str,
    Path(
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9_-]+$",
        description="the game's id, from its creation",
    ),
]


def _bearer_token(scheme: str, description: str) -> Any:
    """A dependency giving the bearer token a request sent, if any, under its own name in
    the OpenAPI security schemes."""
    bearer = HTTPBearer(auto_error=False, scheme_name=scheme, description=description)

    async def token(
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> str | None:
        return credentials.credentials if credentials else None

    return Depends(token)


PlayerToken = Annotated[
    str | None,
    _bearer_token("player token", "the `player_token` returned when the game was created"),
]
"""The bearer token sent with the request, if any."""

MetricsToken = Annotated[
    str | None,
    _bearer_token("metrics token", "`KABOOM_METRICS_TOKEN`, when the server sets one"),
]
"""The bearer token a scrape of the metrics sent, if any."""


async def _api_caller(request: Request, token: PlayerToken) -> Caller:
    return Caller(token, client_of(request))


ApiCaller = Annotated[Caller, Depends(_api_caller)]
"""An API request's caller: its bearer token and its client."""

PageCookies = Annotated[Cookies, Cookie()]


async def _viewer(request: Request, cookies: PageCookies) -> Caller:
    return Caller(cookies.kaboom_player, client_of(request), cookies.kaboom_browser)


Viewer = Annotated[Caller, Depends(_viewer)]
"""A page request's caller: the player token its game's cookie holds, its client, and its
browser's id (none until a whole page has set one)."""


async def _page_viewer(viewer: Viewer) -> Caller:
    return viewer if viewer.browser else replace(viewer, browser=secrets.token_urlsafe(16))


PageViewer = Annotated[Caller, Depends(_page_viewer)]
"""A whole page's caller: a viewer whose browser, when it came without an id, gets a new
one (:func:`kaboom.server.cookies.keep_browser` sets it on the page)."""


async def _page_player(request: Request, viewer: Viewer) -> Caller:
    """Refuses a request that changes a game when a browser says it comes from another
    site (the cookie's SameSite=Strict already keeps the token off it)."""
    site = request.headers.get("sec-fetch-site")
    origin = request.headers.get("origin")
    if site not in (None, "same-origin", "none") or (
        origin is not None and _netloc(origin) != request.headers.get("host")
    ):
        raise NotPlayerError("a request from another site cannot change a game")
    return viewer


def _netloc(url: str) -> str | None:
    try:
        return urlsplit(url).netloc
    except ValueError:  # not a URL (an IPv6 address left open): no site of ours
        return None


PagePlayer = Annotated[Caller, Depends(_page_player)]
"""A page request that changes something: a viewer, from this site only."""
