"""Win rate, read accuracy and clicks a second of the screen driver on real games under a
private Xvfb.

    python bench/desktop_play.py --games 10 [--kaboom 10] [--gnome 10] [--speed 0] [--json PATH]

Plays seeded sgt-mines Expert boards (30x16/99), both no-guess ('30x16n99#...') and with
guessing allowed ('30x16n99a#...'), and optionally Kaboom page games (16x16/40, Chromium
on a ``kaboom serve`` started here) and GNOME Mines Expert games (``big``, 30x16/99).
Clicks a second counts every click from the first read to the end of the game,
including reading and verifying the screen.

Read accuracy, where the truth is known independently of the reader: for the Kaboom
page, the final board read from the screen against the API's ``board``, cell by cell;
for GNOME Mines, every number read on the final board of a lost game against the count
of mines around it in the layout that board shows (after a loss every mine is drawn; a
won game ends under a dialog).  sgt-mines' accuracy comes from
``bench/desktop_read.py`` (exact layouts).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from kaboom.bots.desktop.driver import ERROR, DesktopSession, GameRecord, ScreenReadError
from kaboom.bots.desktop.profile import find_profile
from kaboom.bots.desktop.profiles.kaboom_page import KaboomPage
from kaboom.bots.desktop.profiles.sgt_mines import SgtMines
from kaboom.bots.desktop.xvfb import virtual_display
from kaboom.solver.bench.machine import machine
from kaboom.solver.position import neighbours
from kaboom.testing import NO_CREATION_LIMITS, LiveServer


def _drawn_mines(rows: tuple[str, ...]) -> frozenset[tuple[int, int]]:
    """The layout a lost board shows: after a loss GNOME Mines draws every mine and
    leaves the other covered cells covered, so it is the drawn mines (and flags), never
    a covered cell."""
    return frozenset((x, y) for y, row in enumerate(rows) for x, ch in enumerate(row)
                     if ch in "F*X")


def _numbers_right(rows: tuple[str, ...]) -> tuple[int, int]:
    """(numbers read, numbers that match the layout the final board shows)."""
    mines = _drawn_mines(rows)
    read = right = 0
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch.isdigit():
                read += 1
                around = neighbours(x, y, len(row), len(rows))
                right += sum(n in mines for n in around) == int(ch)
    return read, right


def _failed(game_id: str, why: str) -> GameRecord:
    return GameRecord(game_id, ERROR, 0, 0, 0, 0, 0, 0, 0, 0.0, error=why)


def _summary(label: str, records: list[GameRecord],
             accuracy: tuple[int, int] | None = None) -> dict[str, object]:
    wins = sum(r.outcome == "won" for r in records)
    clicks = sum(r.clicks for r in records)
    seconds = sum(r.seconds for r in records)
    row = {"games": label, "played": len(records), "won": wins,
           "win_rate": round(wins / len(records), 3), "clicks": clicks,
           "seconds": round(seconds, 2),
           "clicks_per_second": round(clicks / seconds, 1) if seconds else 0.0,
           "rereads": sum(r.rereads for r in records),
           "lost_on_proven_move": sum(r.outcome == "lost" and r.last_certain for r in records),
           "errors": sum(r.outcome == "error" for r in records)}
    extra = ""
    if accuracy is not None:
        row["cells_read"], row["cells_right"] = accuracy
        extra = f", read {accuracy[1]}/{accuracy[0]} cells right"
    print(f"{label}: won {wins}/{len(records)} ({100 * wins / len(records):.0f}%), "
          f"{clicks} clicks in {seconds:.1f}s = {row['clicks_per_second']} clicks/s, "
          f"{row['rereads']} re-reads, {row['lost_on_proven_move']} losses on a proven move, "
          f"{row['errors']} errors{extra}", flush=True)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per sgt-mines series")
    parser.add_argument("--kaboom", type=int, default=0, help="Kaboom page games (16x16/40)")
    parser.add_argument("--gnome", type=int, default=0, help="GNOME Mines games (30x16/99)")
    parser.add_argument("--speed", type=float, default=0.0, help="clicks/s cap (0 = none)")
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    where = machine()  # before the display and the games start
    rows = []
    with virtual_display() as display:
        series = [("sgt-mines expert no-guess", "30x16n99"),
                  ("sgt-mines expert with guessing", "30x16n99a")]
        for label, params in series if args.games else []:
            with DesktopSession(SgtMines(), display, speed=args.speed) as session:
                records = [session.play(f"{params}#{args.seed}", index=i)
                           for i in range(args.games)]
            rows.append(_summary(label, records))
        if args.kaboom:
            import httpx

            with tempfile.TemporaryDirectory() as tmp, LiveServer(
                    Path(tmp) / "k.db", **NO_CREATION_LIMITS) as server:  # many games, one client
                url = server.url
                records = []
                read = right = 0
                with DesktopSession(KaboomPage(), display, speed=args.speed) as session:
                    for i in range(args.kaboom):
                        game = httpx.post(f"{url}/api/games", json={
                            "width": 16, "height": 16, "mines": 40, "seed": 1000 + i}).json()
                        try:
                            record = session.play(  # as its player: may move
                                f"{url}/games/{game['id']}#player={game['player_token']}")
                        except ScreenReadError as exc:  # the page never showed a board
                            print(f"game {i}: {exc}", flush=True)
                            record = _failed(game["id"], str(exc))
                        records.append(record)
                        truth = httpx.get(f"{url}/api/games/{game['id']}").json()["board"]
                        if not record.final:
                            continue
                        for seen, want in zip(record.final, truth, strict=True):
                            read += len(want)
                            right += sum(a == b for a, b in zip(seen, want, strict=True))
                rows.append(_summary("kaboom page 16x16/40", records, (read, right)))
        if args.gnome:
            records = []
            read = right = lost = whole = 0
            with DesktopSession(find_profile("gnome-mines"), display,
                                speed=args.speed) as session:
                for i in range(args.gnome):
                    record = session.play("big", index=i)
                    records.append(record)
                    if record.outcome == "lost":  # every mine is drawn, once it settles
                        time.sleep(1)
                        final = session.read().rows
                        n, ok = _numbers_right(final)
                        read, right = read + n, right + ok
                        lost += 1
                        whole += len(_drawn_mines(final)) == record.mines
            row = _summary("gnome-mines 30x16/99", records, (read, right))
            row["lost_boards_showing_every_mine"] = f"{whole}/{lost}"
            print(f"  lost boards read with every mine drawn: {whole}/{lost}", flush=True)
            rows.append(row)
    if args.json:
        Path(args.json).write_text(
            json.dumps({"machine": where, "results": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
