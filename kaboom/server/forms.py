"""What the page sends, as typed models: its forms, its query strings and its cookies.

They hold the page to the API's rules (:mod:`kaboom.server.schemas`): a new game's form is
validated by :class:`~kaboom.server.schemas.NewGame` itself, numbers are whole ASCII
numbers in the API's ranges, and every refusal is a 4xx that says which field is wrong
(the page shows it in its message line), never a 5xx.  Form values arrive as text, so the
models read them in pydantic's lax mode (``"3"`` is 3, a checkbox sent as ``on`` is on).
A cookie that is not one the server makes (edited by hand, or left by an older page) is
taken as absent, so no cookie can lock a browser out of the game.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from kaboom.server.schemas import MAX_SIDE, NewGame

__all__ = [
    "AnalyserForm",
    "BoardQuery",
    "ChangeForm",
    "Cookies",
    "EventsQuery",
    "LinkProofQuery",
    "LinkQuery",
    "MoveForm",
    "NewGameForm",
    "OverlayQuery",
    "PlayerLinkForm",
    "ProofQuery",
    "ReplayQuery",
    "ResetForm",
    "errors_text",
]

_LINK_MAX = 200_000
"""Characters of a position's link (a 256x256 board with every cell distinct is far less)."""


def _whole(value: Any) -> Any:
    """A form's number: ASCII digits only (``isdigit`` takes ``²``, which ``int`` refuses)."""
    if isinstance(value, str):
        text = value.strip()
        if not (text.isascii() and text.isdigit()):
            raise PydanticCustomError("whole_number", "must be a whole number")
        return int(text)
    return value


def _blank_is_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


Whole = Annotated[int, BeforeValidator(_whole)]
Blank = BeforeValidator(_blank_is_none)
"""On an optional number: a blank field is none."""
Checkbox = Annotated[bool, BeforeValidator(lambda v: v or False)]
"""A checkbox: on when sent as ``on`` (or ``true``), off when absent or blank."""
Coordinate = Annotated[Whole, Field(ge=0, le=MAX_SIDE - 1)]
PageId = Annotated[str, Field(max_length=32, pattern=r"^[A-Za-z0-9_-]*$")]
"""The id the page was drawn with: what its request changes, its event stream skips."""


class _Form(BaseModel):
    """A form or query of the page: lax (values come as text), other fields ignored (a
    browser's form may send more than a route reads)."""

    model_config = ConfigDict(extra="ignore")


class ChangeForm(_Form):
    """What every change the page asks for carries: the version of the board it shows
    (its answer redraws the whole board when the game was at another) and its id."""

    version: Annotated[Annotated[Whole, Field(ge=0)] | None, Blank] = None
    page: PageId = ""


class MoveForm(ChangeForm):
    """A move on a cell; ``quiet``: a refusal by the rules changes nothing and says
    nothing (a click on a number chords only when its flags are satisfied)."""

    x: Coordinate
    y: Coordinate
    quiet: Checkbox = False


class PlayerLinkForm(_Form):
    token: Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")]


class ResetForm(_Form):
    back: Annotated[str, Field(max_length=200)] = ""
    """Where a reset without a script sends the browser back to (a game's page)."""


class ProofQuery(_Form):
    x: Coordinate
    y: Coordinate


class OverlayQuery(_Form):
    tries: Annotated[Whole, Field(ge=1, le=8)] = 1
    """The how-manieth ask: an analysis that ran out of time is asked again after 1, 2, 4,
    then 8 s, this often."""
    page: PageId = ""


class ReplayQuery(_Form):
    at: Annotated[Whole, Field(ge=0)]
    """The move whose board the page shows."""
    to: Annotated[Annotated[Whole, Field(ge=0)] | None, Blank] = None
    go: Literal["first", "back", "next", "last"] | None = None


class BoardQuery(_Form):
    moves: Annotated[Whole, Field(ge=0)]
    """The moves the game had when the page's unanswered move was sent."""


class EventsQuery(_Form):
    version: Annotated[Whole, Field(ge=0)]
    page: PageId = ""


class LinkQuery(_Form):
    p: Annotated[str, Field(max_length=_LINK_MAX)] = ""


class LinkProofQuery(LinkQuery):
    x: Coordinate
    y: Coordinate


class NewGameForm(NewGame):
    """The new-game form: the API's :class:`NewGame` read from text, where a checkbox is
    on when sent (and off when not, unlike the API's defaults) and a blank seed is none."""

    model_config = ConfigDict(strict=False, extra="ignore")

    width: Whole = Field(ge=2, le=MAX_SIDE)
    height: Whole = Field(ge=2, le=MAX_SIDE)
    mines: Whole = Field(ge=1, le=MAX_SIDE * MAX_SIDE - 1)
    seed: Annotated[Annotated[Whole, Field(ge=1, le=2**63 - 1)] | None, Blank] = None
    outside_guess: Checkbox = False
    question_marks: Checkbox = False
    debug: Checkbox = False

    @classmethod
    def of(cls, fields: dict[str, str]) -> NewGameForm:
        """The form's fields (raises :class:`ValidationError` naming the wrong ones)."""
        return cls.model_validate(fields)


AnalyserAction = Literal["", "analyse", "text", "blank", "beginner", "intermediate", "expert"]
AnalyserTool = Literal["cycle", "#", "F", "0", "1", "2", "3", "4", "5", "6", "7", "8", "why"]


class AnalyserForm(LinkQuery):
    """An edit of the analyser's position: ``p`` is the position shown; ``action`` a
    button (a preset, a blank board, the pasted text, the count); ``cell`` the cell
    clicked and ``tool`` what a click does; the numbers are the form's fields."""

    action: AnalyserAction = ""
    cell: Annotated[str, Field(pattern=r"^(\d{1,3},\d{1,3})?$")] = ""
    tool: AnalyserTool = "cycle"
    width: Annotated[Whole | None, Blank] = None
    height: Annotated[Whole | None, Blank] = None
    mines: Annotated[Whole | None, Blank] = None
    text: Annotated[str, Field(max_length=_LINK_MAX)] = ""


_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,128}")
_BROWSER = re.compile(r"[A-Za-z0-9_-]{22}")
"""A browser id as :func:`secrets.token_urlsafe` makes it (16 random bytes)."""


def _absent_unless(fits: Callable[[str], object]) -> Any:
    """A cookie's value, or none when it is not one the server makes."""

    def check(value: Any) -> str | None:
        return value if isinstance(value, str) and fits(value) else None

    return BeforeValidator(check)


class Cookies(BaseModel):
    """The page's cookies (others, such as another application's on the same host, are
    not read).  ``kaboom_player``: the player token of the game whose path it has;
    ``kaboom_browser``: this browser's anonymous id (its statistics); ``kaboom_settings``:
    the new-game form's fields as a query string, which the page's script keeps;
    ``kaboom_note``: a note the next page of a game shows once."""

    model_config = ConfigDict(extra="ignore")

    kaboom_player: Annotated[str | None, _absent_unless(_TOKEN.fullmatch)] = None
    kaboom_browser: Annotated[str | None, _absent_unless(_BROWSER.fullmatch)] = None
    kaboom_settings: Annotated[str | None, _absent_unless(lambda v: len(v) <= 4096)] = None
    kaboom_note: Annotated[str | None, _absent_unless(lambda v: len(v) <= 300)] = None


def errors_text(exc: ValidationError) -> str:
    """Pydantic's errors as "field: message", as a person reads them."""
    parts = []
    for error in exc.errors():
        field = ".".join(str(p) for p in error["loc"] if isinstance(p, str))
        parts.append(f"{field}: {error['msg']}" if field else str(error["msg"]))
    return "; ".join(parts)
