"""``kaboom bot desktop``: play a desktop Minesweeper on an X display, or just look at one.

``kaboom bot desktop [play] --game NAME ...`` plays (``--record DIR`` keeps what it
read); ``kaboom bot desktop look --game NAME`` reads the screen once, prints the grid
and every cell's reading and writes a PNG with both drawn over the capture;
``kaboom bot desktop check DIR`` checks a recorded game's reads against its final
board.  Failures the user can fix (no display, no window, a window off the screen or
covered) are one line on stderr and a non-zero exit status.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable

from kaboom.solver import profile_spec
from kaboom.solver.bench.args import at_least

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", nargs="?", choices=["play", "look", "check"],
                        default="play",
                        help="play games (default); look: read the screen once and show "
                             "what the bot sees; check DIR: check recorded games' reads "
                             "against their final boards")
    parser.add_argument("folder", nargs="?", default=None, metavar="DIR",
                        help="check: the --record folder (or one game's folder in it)")
    parser.add_argument("--game", default=None,
                        help="game profile name (sgt-mines, kaboom-page, gnome-mines, or one "
                             "another package installs)")
    parser.add_argument("--game-id", default=None,
                        help="game id to launch (sgt-mines: '30x16n99#SEED' or "
                             "'9x9:0,0,u<hex>'; kaboom-page: the page URL; gnome-mines: "
                             "'small', 'medium', 'big' or 'WxHnM'); without it the bot "
                             "attaches to a running window or starts a default game")
    parser.add_argument("--games", type=at_least(1), default=1, help="games to play (default 1)")
    parser.add_argument("--speed", type=float, default=25.0,
                        help="clicks per second, 0 = as fast as the game keeps up (default 25)")
    parser.add_argument("--display", default=None, help="X display (default: $DISPLAY)")
    parser.add_argument("--xvfb", action="store_true",
                        help="play on a private virtual display (Xvfb) instead")
    parser.add_argument("--mines", type=int, default=None,
                        help="total mines, when the game profile cannot tell from the game id")
    parser.add_argument("--tile-size", type=int, default=None,
                        help="ask the game for this cell size in pixels, if it supports it")
    parser.add_argument("--flag-mines", action="store_true",
                        help="also flag proven mines (slower; the solver does not need flags)")
    parser.add_argument("--stall", type=int, default=5,
                        help="end a game as an error after this many batches of clicks in a "
                             "row leave the board unchanged (a page that ignores clicks, a "
                             "dialog in the way; default 5)")
    parser.add_argument("--profile", type=profile_spec, default="strong",
                        help="the solver's profile (--game names the game's): strong "
                             "(default), fast, or either with option=value overrides, as "
                             "'strong,ratio=0.85'")
    parser.add_argument("--json", default=None, metavar="PATH",
                        help="also write one JSON line per game to PATH")
    parser.add_argument("--record", default=None, metavar="DIR",
                        help="keep each game's record in DIR/game-NNN: every board read, "
                             "the first and last captures, the clicks (then: check DIR)")
    parser.add_argument("--png", default="kaboom-look.png", metavar="PATH",
                        help="look: where to write the annotated capture "
                             "(default kaboom-look.png)")
    parser.add_argument("--verbose", "-v", action="store_true")


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING)
    if args.action == "check":
        return _check(args.folder)
    if args.folder is not None:
        print(f"{args.action} takes no folder ({args.folder!r}); did you mean check?",
              file=sys.stderr)
        return 2
    if args.game is None:
        print("--game is required to play or look", file=sys.stderr)
        return 2
    from kaboom.bots.desktop.profile import find_profile

    try:
        profile = find_profile(args.game)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.tile_size and hasattr(profile, "tile_size"):
        profile.tile_size = args.tile_size
    action: Callable[[argparse.Namespace, object, str], int] = (
        _look if args.action == "look" else _play)
    if args.xvfb:
        from kaboom.bots.desktop.xvfb import virtual_display

        with virtual_display() as virtual:
            return _guarded(action, args, profile, virtual)
    display: str | None = args.display or os.environ.get("DISPLAY")
    if not display:
        print("no X display: set DISPLAY, pass --display or use --xvfb", file=sys.stderr)
        return 2
    return _guarded(action, args, profile, display)


def _guarded(action: Callable[[argparse.Namespace, object, str], int],
             args: argparse.Namespace, profile: object, display: str) -> int:
    """Runs ``action``, turning the failures a user can fix into one line on stderr."""
    from kaboom.bots.desktop.driver import ScreenReadError
    from kaboom.bots.desktop.grid import GridNotFoundError
    from kaboom.bots.desktop.screen import NoDisplayError, WindowNotFoundError

    try:
        return action(args, profile, display)
    except NoDisplayError as exc:
        print(f"kaboom bot desktop: {exc}", file=sys.stderr)
        return 2
    except (ScreenReadError, WindowNotFoundError, GridNotFoundError, ValueError) as exc:
        print(f"kaboom bot desktop: {args.game}: {exc}", file=sys.stderr)
        return 1


def _play(args: argparse.Namespace, profile: object, display: str) -> int:
    from kaboom.bots.desktop.driver import ERROR, DesktopSession
    from kaboom.bots.desktop.profile import WON, Profile

    assert isinstance(profile, Profile)
    won = clicks = errors = 0
    seconds = 0.0
    out = open(args.json, "a") if args.json else None  # noqa: SIM115
    try:
        with DesktopSession(profile, display, speed=args.speed, mines=args.mines,
                            flag_mines=args.flag_mines, stall=args.stall,
                            solver_profile=args.profile, record=args.record) as session:
            for i in range(args.games):
                record = session.play(args.game_id, index=i)
                won += record.outcome == WON
                errors += record.outcome == ERROR
                clicks += record.clicks
                seconds += record.seconds
                print(f"game {i + 1}/{args.games} {record.game_id or ''}: {record.outcome} "
                      f"{record.width}x{record.height}/{record.mines} in {record.clicks} clicks, "
                      f"{record.seconds:.1f}s ({record.moves_per_second:.1f} clicks/s, "
                      f"{record.guesses} guesses, {record.rereads} re-reads)"
                      + (f": {record.error}" if record.error else "")
                      + (f" ({record.note})" if record.note else ""), flush=True)
                if out:
                    out.write(json.dumps({"profile": args.profile, **record.to_json()}) + "\n")
                    out.flush()
    finally:
        if out:
            out.close()
    rate = clicks / seconds if seconds else 0.0
    print(f"won {won}/{args.games} ({100 * won / max(1, args.games):.1f}%), "
          f"{rate:.1f} clicks/s overall" + (f", {errors} ended in error" if errors else ""))
    return 1 if errors else 0


def _look(args: argparse.Namespace, profile: object, display: str) -> int:
    from kaboom.bots.desktop.profile import Profile
    from kaboom.bots.desktop.screen import Screen, WindowNotFoundError
    from kaboom.bots.desktop.snapshot import UNREAD, take_snapshot

    assert isinstance(profile, Profile)
    process = None
    with Screen(display) as screen:
        try:
            try:
                window = profile.find_window(screen, timeout=0)
            except WindowNotFoundError:
                process = profile.launch(args.game_id, display)
                if process is None:
                    raise
                window = profile.find_window(screen, timeout=15)
                import time

                time.sleep(1.0)  # let it paint
            snap = take_snapshot(profile, window, screen.capture_window(window), args.game_id)
        finally:
            if process is not None:
                profile.stop(process)
    print(snap.report())
    snap.save_png(args.png)
    print(f"wrote {args.png}")
    return 1 if snap.unsure or UNREAD in "".join(snap.rows) else 0


def _check(folder: str | None) -> int:
    """Checks every game recorded in ``folder``: 0 when every cell of every read agrees
    with its final board, 1 when one does not or a game cannot be checked, 2 for no
    record."""
    from kaboom.bots.desktop.record import check_game, game_folders

    if not folder:
        print("kaboom bot desktop check: which folder? (kaboom bot desktop check DIR, with "
              "DIR as given to play --record)", file=sys.stderr)
        return 2
    games = game_folders(folder)
    if not games:
        print(f"kaboom bot desktop check: no game record in {folder!r} (play --record DIR "
              "writes one)", file=sys.stderr)
        return 2
    checks = [check_game(game) for game in games]
    for check in checks:
        print(check.report())
    right = sum(c.right for c in checks)
    wrong = sum(len(c.wrong) for c in checks)
    print(f"{len(checks)} games: {right} cells read right, {wrong} wrong"
          + "".join(f", {n} not checked" for n in [sum(c.unchecked is not None
                                                       for c in checks)] if n))
    return 0 if all(c.ok for c in checks) else 1
