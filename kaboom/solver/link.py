"""A position as a short URL-safe word, for links that reopen it (``/analyse?p=...``).

``to_link(position)`` writes ``{width}x{height}m{mines}.{cells}``: the cells row after
row, each as one letter (``a``-``i`` the open numbers 0-8, ``H`` covered, ``F`` flag,
``Q`` question mark, and ``X``, ``M``, ``W`` for a finished board's exploded mine, mine
and wrong flag), and a run of one letter written once with its length after it.  A
beginner board after its first click reads
``9x9m10.H15cb2H2c2dcba2H2ba6H2ba6H2ca6H2ca6b3a15`` (47 characters; its text has 90),
and a 256x256 board barely opened a few dozen.  Every character is unreserved in a
URL, so a link needs no escaping.  :func:`from_link` reads it back and names what is
wrong with a word that is not one.
"""

from __future__ import annotations

import re

from kaboom.solver.errors import InvalidPositionError
from kaboom.solver.position import Position

__all__ = ["from_link", "to_link"]

_LETTER = {
    **{str(n): chr(ord("a") + n) for n in range(9)},
    "#": "H",
    "F": "F",
    "?": "Q",
    "X": "X",
    "*": "M",
    "!": "W",
}
_CHAR = {letter: ch for ch, letter in _LETTER.items()}
_HEAD = re.compile(r"([1-9]\d{0,5})x([1-9]\d{0,5})m(\d{1,11})\.")
_RUN = re.compile(r"([a-iHFQXMW])(\d*)")


def to_link(position: Position) -> str:
    """The position as a URL-safe word that :func:`from_link` reads back."""
    runs = [
        letter + (str(len(run)) if len(run) > 1 else "")
        for run, letter in (
            (m.group(0), _LETTER[m.group(1)]) for m in re.finditer(r"(.)\1*", position.flat)
        )
    ]
    return f"{position.width}x{position.height}m{position.mines}." + "".join(runs)


def from_link(word: str) -> Position:
    """The position a :func:`to_link` word holds.  Raises :class:`InvalidPositionError`
    naming the first thing wrong: the head, a letter, a run longer than the board, or
    too few cells."""
    head = _HEAD.match(word)
    if head is None:
        raise InvalidPositionError(
            "a position link starts with WIDTHxHEIGHTmMINES. (as in 9x9m10.H81)")
    width, height, mines = (int(g) for g in head.groups())
    size = width * height
    parts: list[str] = []
    cells = 0
    at = head.end()
    while at < len(word):
        run = _RUN.match(word, at)
        if run is None:
            raise InvalidPositionError(
                f"character {at} of the link, {word[at]!r}, is not a cell letter"
                " (a-i open 0-8, H covered, F flag, Q question mark)")
        length = int(run.group(2) or 1)
        if run.group(2).startswith("0") or cells + length > size:
            raise InvalidPositionError(
                f"the run at character {at} of the link does not fit the {width}x{height}"
                f" board ({cells} cells before it)")
        parts.append(_CHAR[run.group(1)] * length)
        cells += length
        at = run.end()
    if cells != size:
        raise InvalidPositionError(
            f"the link holds {cells} cells; a {width}x{height} board has {size}")
    flat = "".join(parts)
    return Position(width, height, mines,
                    tuple(flat[y * width : (y + 1) * width] for y in range(height)))
