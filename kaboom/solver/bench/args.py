"""argparse types shared by the ``kaboom`` commands: a bad value is a usage error
before anything runs, with what the option takes."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable

__all__ = ["at_least", "seconds", "writable"]


def at_least(low: int, high: int | None = None, why: str = "") -> Callable[[str], int]:
    """An argparse type: a whole number no less than ``low`` (and, given ``high``, no
    more, for the reason ``why``)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is less than {low}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{value} is more than {high:,}{why}")
        return value

    return parse


def writable(path: str) -> str:
    """An argparse type: a file path this process may write, checked before any game is
    played rather than when the results are in."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise argparse.ArgumentTypeError(f"{path} is a folder")
    if not os.path.isdir(folder):
        raise argparse.ArgumentTypeError(f"there is no folder {folder}")
    if not os.access(path if os.path.exists(path) else folder, os.W_OK):
        raise argparse.ArgumentTypeError(f"{path} cannot be written")
    return path


def seconds(above: float | None) -> Callable[[str], float]:
    """An argparse type: seconds, more than ``above`` (or at least 0 when ``None``)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        if not math.isfinite(value) or value < 0 or (above is not None and value <= above):
            least = "at least 0" if above is None else f"more than {above:g}"
            raise argparse.ArgumentTypeError(f"{text} seconds: give {least}")
        return value

    return parse
