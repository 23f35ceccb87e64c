"""Kaboom: a cruel-but-fair Minesweeper served over HTTP (:mod:`kaboom.server`), its
solver (:mod:`kaboom.solver`), and bots that play it and desktop games (:mod:`kaboom.bots`).

The ``kaboom`` command is :mod:`kaboom.cli`.  The distribution is ``kaboom-minesweeper``
(``kaboom`` on the package index is another project).
"""

from importlib.metadata import PackageNotFoundError, version

__all__ = ["DISTRIBUTION", "__version__"]

DISTRIBUTION = "kaboom-minesweeper"

try:
    __version__ = version(DISTRIBUTION)
    """The installed version: the API's, the health check's and the metrics'."""
except PackageNotFoundError:  # a checkout run without being installed
    __version__ = "0+unknown"
