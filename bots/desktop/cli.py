"""``kaboom bot desktop``: play a desktop Minesweeper on the current X display."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True,
                        help="game profile name (sgt-mines, kaboom-page)")
    parser.add_argument("--game-id", default=None,
                        help="game id to launch (sgt-mines: '30x16n99#SEED' or "
                             "'9x9:0,0,u<hex>'; kaboom-page: the page URL); without it the "
                             "bot attaches to a running window or starts a default game")
    parser.add_argument("--games", type=int, default=1, help="games to play (default 1)")
    parser.add_argument("--speed", type=float, default=25.0,
                        help="clicks per second, 0 = as fast as the game keeps up (default 25)")
    parser.add_argument("--display", default=None, help="X display (default: $DISPLAY)")
    parser.add_argument("--xvfb", action="store_true",
                        help="play on a private virtual display (Xvfb) instead")
    parser.add_argument("--mines", type=int, default=None,
                        help="total mines, when the profile cannot tell from the game id")
    parser.add_argument("--tile-size", type=int, default=None,
                        help="ask the game for this cell size in pixels, if it supports it")
    parser.add_argument("--flag-mines", action="store_true",
                        help="also flag proven mines (slower; the solver does not need flags)")
    parser.add_argument("--json", default=None, metavar="PATH",
                        help="also write one JSON line per game to PATH")
    parser.add_argument("--verbose", "-v", action="store_true")


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING)
    if args.xvfb:
        from bots.desktop.xvfb import virtual_display

        with virtual_display() as display:
            return _play(args, display)
    display = args.display or os.environ.get("DISPLAY")
    if not display:
        print("no X display: set DISPLAY, pass --display or use --xvfb", file=sys.stderr)
        return 2
    return _play(args, display)


def _play(args: argparse.Namespace, display: str) -> int:
    from bots.desktop.driver import DesktopSession, ScreenReadError
    from bots.desktop.profile import WON, find_profile
    from bots.desktop.screen import WindowNotFoundError

    try:
        profile = find_profile(args.game)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.tile_size and hasattr(profile, "tile_size"):
        profile.tile_size = args.tile_size
    won = clicks = 0
    seconds = 0.0
    out = open(args.json, "a") if args.json else None  # noqa: SIM115
    try:
        with DesktopSession(profile, display, speed=args.speed, mines=args.mines,
                            flag_mines=args.flag_mines) as session:
            for i in range(args.games):
                record = session.play(args.game_id, index=i)
                won += record.outcome == WON
                clicks += record.clicks
                seconds += record.seconds
                print(f"game {i + 1}/{args.games} {record.game_id or ''}: {record.outcome} "
                      f"{record.width}x{record.height}/{record.mines} in {record.clicks} clicks, "
                      f"{record.seconds:.1f}s ({record.moves_per_second:.1f} clicks/s, "
                      f"{record.guesses} guesses, {record.rereads} re-reads)", flush=True)
                if out:
                    out.write(json.dumps(record.to_json()) + "\n")
                    out.flush()
    except (ScreenReadError, WindowNotFoundError, ValueError) as exc:
        print(f"{args.game}: {exc}", file=sys.stderr)
        return 1
    finally:
        if out:
            out.close()
    rate = clicks / seconds if seconds else 0.0
    print(f"won {won}/{args.games} ({100 * won / max(1, args.games):.1f}%), "
          f"{rate:.1f} clicks/s overall")
    return 0
