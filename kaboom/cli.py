"""``kaboom`` command line: dispatches to the module that owns each subcommand.

Each subcommand module exposes ``add_arguments(parser)`` and ``run(args) -> int``; they
are imported only when their subcommand is used, so ``kaboom serve`` never loads the
screen-capture stack and ``kaboom bench`` never loads the web server.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

__all__ = ["main", "parse_args"]

# (words, module, help)
_COMMANDS: list[tuple[tuple[str, ...], str, str]] = [
    (("serve",), "kaboom.server.cli", "run the Kaboom game server"),
    (("backup",), "kaboom.server.backup",
     "copy a running server's store (SQLite; PostgreSQL: pg_dump)"),
    (("restore",), "kaboom.server.restore", "put a backup back as the store (the server stopped)"),
    (("bench",), "kaboom.solver.bench.cli", "play N simulated games and report the win rate"),
    (("calibrate",), "kaboom.solver.bench.calibrate", "predicted vs observed mine rate per bucket"),
    (("analyse",), "kaboom.solver.analyse_cli",
     "analyse a position from a file (- for standard input): statuses, odds, the move"),
    (("bot", "play"), "kaboom.bots.play_cli", "play Kaboom games over the HTTP API"),
    (("bot", "desktop"), "kaboom.bots.desktop.cli", "play a desktop Minesweeper on the screen"),
]


def _build(argv: Sequence[str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kaboom", description=__doc__.splitlines()[0])
    top = parser.add_subparsers(dest="command", required=True)
    groups: dict[str, argparse._SubParsersAction[argparse.ArgumentParser]] = {}
    wanted = list(argv[:2])
    for words, module, help_text in _COMMANDS:
        if len(words) == 2:
            if words[0] not in groups:
                grp = top.add_parser(words[0], help=f"{words[0]} commands")
                groups[words[0]] = grp.add_subparsers(dest="subcommand", required=True)
            sub = groups[words[0]].add_parser(words[1], help=help_text)
        else:
            sub = top.add_parser(words[0], help=help_text)
        sub.set_defaults(_module=module)
        # Only the chosen subcommand's module is imported (to learn its arguments).
        if list(words) == wanted[: len(words)]:
            importlib.import_module(module).add_arguments(sub)
    return parser


# Modules that come with an extra rather than the base install: name -> extra.
EXTRA_MODULES = {"mss": "desktop", "Xlib": "desktop", "PIL": "desktop", "matplotlib": "plot",
                 "psycopg": "postgres", "distributed": "cluster"}


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parses a ``kaboom`` command line without running it (exits 2 on a bad one)."""
    return _build(argv).parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the ``kaboom`` command; returns the process exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parse_args(argv)
        code = int(importlib.import_module(args._module).run(args) or 0)
        sys.stdout.flush()  # a reader that left shows here, not in the exit's own flush
        return code
    except BrokenPipeError:
        # The reader left (``| head``): no traceback, and none from the exit's own flush.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except ModuleNotFoundError as e:
        extra = EXTRA_MODULES.get((e.name or "").partition(".")[0])
        if extra is None:
            raise
        print(f"kaboom: this needs the {extra!r} extra ({e}): in a checkout, "
              f".venv/bin/pip install -e '.[{extra}]' (elsewhere, kaboom-minesweeper[{extra}])",
              file=sys.stderr)
        return 2
