"""Clicks a second of the desktop driver's click alone, this checkout against another,
on one private Xvfb.

    python bench/desktop_click.py --before CHECKOUT [--clicks 2000] [--json PATH]

``--before`` is another checkout with its own ``.venv`` (a worktree of an older commit;
this one, to time it twice).

Each checkout's own ``DesktopSession.click`` clicks the cells of a 30x16 grid laid over
a plain window, as fast as it can (``speed=0``, not the first click of a batch): what a
click costs beyond reading the board, including whatever the driver asks the X server
first (where the window is, whether it holds the point).  The window counts the button
presses it receives, so every click is checked to have arrived.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORKER = r'''
import json, sys, time
from Xlib import X, display
try:
    from kaboom.bots.desktop.driver import DesktopSession
    from kaboom.bots.desktop.grid import Grid
    from kaboom.bots.desktop.profiles.sgt_mines import SgtMines
    from kaboom.solver.position import Move
except ImportError:  # the layout before the one namespace
    from bots.desktop.driver import DesktopSession
    from bots.desktop.grid import Grid
    from bots.desktop.profiles.sgt_mines import SgtMines
    from solver.position import Move

name, clicks = sys.argv[1], int(sys.argv[2])
xd = display.Display(name)
screen = xd.screen()
win = screen.root.create_window(100, 100, 640, 360, 0, screen.root_depth,
                                background_pixel=screen.white_pixel,
                                event_mask=X.ButtonPressMask)
win.set_wm_name("click target")
win.map()
xd.sync()
time.sleep(0.3)
with DesktopSession(SgtMines(), name, speed=0) as session:
    session.window = session.screen.find_window("^click target$", timeout=5)
    session.grid = Grid(8, 8, 20, 20, 30, 16)
    session.click(Move.reveal(0, 0), first=True)
    start = time.perf_counter()
    for i in range(clicks):
        session.click(Move.reveal(i % 30, (i // 30) % 16), first=False)
    seconds = time.perf_counter() - start
got = 0
xd.sync()
while xd.pending_events():
    got += xd.next_event().type == X.ButtonPress
print(json.dumps({"clicks": clicks, "seconds": seconds, "received": got - 1}))
'''


def _commit(tree: Path) -> str:
    """The checkout's commit, which the results name (a machine's paths mean nothing later)."""
    return subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()


def _run(tree: Path, display: str, clicks: int) -> dict[str, float]:
    python = Path(sys.executable) if tree.resolve() == ROOT else tree / ".venv" / "bin" / "python"
    out = subprocess.run([str(python), "-c", WORKER, display, str(clicks)], cwd=tree,
                         capture_output=True, text=True, check=True, timeout=600)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=2000)
    parser.add_argument("--before", type=Path, required=True,
                        help="another checkout, with its own .venv, to compare with")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from kaboom.bots.desktop.xvfb import virtual_display
    from kaboom.solver.bench.machine import machine

    where = machine()
    rows = []
    with virtual_display() as name:
        for label, tree in (("before", args.before), ("after", ROOT)):
            got = _run(tree, name, args.clicks)
            rate = got["clicks"] / got["seconds"]
            rows.append({"checkout": label, "commit": _commit(tree), **got,
                         "clicks_per_second": round(rate, 1)})
            print(f"{label} ({tree}): {got['clicks']:.0f} clicks in {got['seconds']:.2f}s = "
                  f"{rate:.0f} clicks/s, {got['received']:.0f} received by the window",
                  flush=True)
            time.sleep(0.5)
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": where, "results": rows}, indent=1)
                                   + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
