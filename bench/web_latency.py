"""Page latency: from a click on a cell to the updated board on screen, in headless Chromium.

Starts ``kaboom serve`` on a free port (or uses ``--url``), opens the page with Playwright,
and plays games by clicking provably safe cells (found with the solver in this process, so
the page does no extra work), guessing only when no safe cell exists. For every reveal it
records, inside the page, in ms from the click event's timestamp:

* ``click→frame``: to the first frame after the board changed (requestAnimationFrame, then
  a message task: the frame has been produced);
* ``server``: the reveal request's time to first byte (Resource Timing), and ``app``: the
  server's own time for it, from its ``Server-Timing`` header (the rest is loopback and
  the machine's other work);
* ``answered``: the answer's last byte; ``1st frame``: the first frame after the click;
  ``patched``: the board's DOM patched; ``shown in frame``: which frame after the click
  showed the change (1: the first).

Chromium holds the tasks that are not rendering (an answer's among them) until the first
frame after a discrete input has been produced, so an answer that comes before that frame
is applied after it and shows in the second.  ``--chromium-arg
--disable-features=DeferRendererTasksAfterInput`` measures without that hold.

    python bench/web_latency.py                          # Expert and 100x100, 200 clicks each
    python bench/web_latency.py --sizes 30x16/99 --clicks 100 --json bench/results/web.json
    python bench/web_latency.py --before ../before        # that checkout too, paired seeds

``bytes`` is the body of each reveal's answer (Resource Timing's ``encodedBodySize``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, sync_playwright

from kaboom.solver import KnowledgeEngine, Position, parse_board
from kaboom.solver.bench.machine import machine
from kaboom.testing import CHROMIUM_ARGS, NO_CREATION_LIMITS, LiveServer

from proof_time import percentile

# Installed in the page: one sample per click that changed the board.
PROBE = """() => {
  const board = document.querySelector('#board');
  performance.setResourceTimingBufferSize(100000);
  window.__samples = [];
  window.__t0 = null;
  board.addEventListener('click', e => {
    const t0 = window.__t0 = e.timeStamp;
    window.__first = null;
    requestAnimationFrame(ts => { window.__first = ts - t0; });  // the first frame after the input
  }, true);
  new MutationObserver(() => {
    if (window.__t0 === null) return;
    const t0 = window.__t0;
    const patched = performance.now() - t0;
    window.__t0 = null;
    requestAnimationFrame(frame => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        const entries = performance.getEntriesByType('resource')
          .filter(e => e.name.endsWith('/reveal'));
        const last = entries[entries.length - 1];
        const app = last?.serverTiming?.find(t => t.name === 'app');
        window.__samples.push({
          total: performance.now() - t0,
          server: last ? last.responseStart - last.requestStart : null,
          app: app ? app.duration : null,
          response_end: last ? last.responseEnd - t0 : null,
          request_start: last ? last.startTime - t0 : null,
          bytes: last ? last.encodedBodySize : null,
          first_frame: window.__first,
          shown_frame: frame - t0,
          patched,
        });
        performance.clearResourceTimings();
      };
      channel.port2.postMessage(0);
    });
  }).observe(board, {attributes: true, attributeFilter: ['data-moves']});
}"""
FRAME_MS = 1000 / 60


def summary(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "p50": statistics.median(values), "p99": percentile(values, 0.99),
            "max": max(values)}


def choose(engine: KnowledgeEngine, game: dict[str, Any], rng: random.Random
           ) -> list[tuple[int, int]]:
    """Provably safe covered cells, else one guess among the undecided ones."""
    position = Position.from_rows(tuple(game["board"]), game["mines"])
    if position.is_start:
        return [(game["width"] // 2, game["height"] // 2)]
    knowledge = engine.classify(position)
    safe = sorted(c for c in knowledge.safe if position.char(*c) == "#")
    if safe:
        rng.shuffle(safe)
        return safe
    unknown = sorted(c for c in knowledge.unknown if position.char(*c) == "#")
    return [rng.choice(unknown)]


def new_game(page: Page, width: int, height: int, mines: int, seed: int) -> str:
    old = page.eval_on_selector("#board", "b => b.dataset.gameId || ''")
    page.select_option("#preset", "custom")
    page.fill("#width", str(width))
    page.fill("#height", str(height))
    page.fill("#mines", str(mines))
    page.set_checked("#debug", False)
    page.set_checked("#outside_guess", True)
    page.fill("#seed", str(seed))
    page.click("#new-game button[type=submit]")
    page.wait_for_function(
        "([old, n]) => { const b = document.querySelector('#board');"
        " return b.dataset.gameId !== old && b.querySelectorAll('.c').length === n; }",
        arg=[old, width * height], timeout=60_000)
    page.evaluate(PROBE)
    return str(page.eval_on_selector("#board", "b => b.dataset.gameId"))


def measure(page: Page, http: httpx.Client, size: str, clicks: int, seed: int
            ) -> dict[str, Any]:
    width, height, mines = parse_board(size)
    rng = random.Random(seed)
    samples: list[dict[str, Any]] = []
    games = 0
    while len(samples) < clicks:
        games += 1
        gid = new_game(page, width, height, mines, seed + games)
        engine = KnowledgeEngine()
        game = http.get(f"/api/games/{gid}").json()
        taken = 0  # samples of this game (the probe starts afresh per game)
        while game["status"] == "playing" and len(samples) < clicks:
            for x, y in choose(engine, game, rng):
                if game["board"][y][x] != "#":  # opened meanwhile by a flood fill
                    continue
                cell = page.locator(f'#board [data-x="{x}"][data-y="{y}"]')
                cell.scroll_into_view_if_needed()
                cell.click()
                page.wait_for_function(f"window.__samples.length > {taken}", timeout=60_000)
                samples.append(page.evaluate(f"window.__samples[{taken}]"))
                taken += 1
                game = http.get(f"/api/games/{gid}").json()
                if game["status"] != "playing" or len(samples) >= clicks:
                    break
    total = [s["total"] for s in samples]
    server = [s["server"] for s in samples if s["server"] is not None]
    app = [s["app"] for s in samples if s.get("app") is not None]
    answered = [s["response_end"] for s in samples if s["response_end"] is not None]
    first = [s["first_frame"] for s in samples if s.get("first_frame") is not None]
    # which frame after the click showed the change: 1 is the first one
    frames = [1 + round((s["shown_frame"] - s["first_frame"]) / FRAME_MS) for s in samples
              if s.get("first_frame") is not None]
    page_share = [s["total"] - s["server"] for s in samples if s["server"] is not None]
    apply = [s["patched"] - s["response_end"] for s in samples if s["response_end"] is not None]
    frame = [s["total"] - s["patched"] for s in samples]
    sent = [float(s["bytes"]) for s in samples if s["bytes"]]
    return {"size": size, "games": games, "click_to_frame_ms": summary(total),
            "server_ms": summary(server), "app_ms": summary(app) if app else None,
            "answered_ms": summary(answered), "first_frame_ms": summary(first),
            "patched_ms": summary([s["patched"] for s in samples]),
            "frame_shown": summary([float(f) for f in frames]),
            "page_ms": summary(page_share),
            "parse_and_patch_ms": summary(apply), "to_frame_ms": summary(frame),
            "bytes_per_move": summary(sent), "samples": samples}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["30x16/99", "100x100/2000"])
    parser.add_argument("--clicks", type=int, default=200, help="reveals measured per size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--url", help="an already running server (default: start one)")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromium-arg", action="append", default=[], metavar="FLAG",
                        help="one more Chromium command-line flag (repeatable), e.g."
                        " --chromium-arg=--disable-features=DeferRendererTasksAfterInput")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--before", type=Path,
                        help="also measure the checkout in this folder (its .venv's kaboom),"
                        " on the same seeds, in the same run")
    args = parser.parse_args()
    where = machine()  # before the server and the browser start

    versions: list[tuple[str, list[str] | None]] = [("now", None)]
    if args.before:
        versions.insert(0, ("before", [str(args.before / ".venv" / "bin" / "kaboom")]))
    results = []
    with tempfile.TemporaryDirectory(prefix="kaboom-web-bench-") as tmp, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, headless=True,
                                     args=[*CHROMIUM_ARGS, *args.chromium_arg])
        for version, command in versions:
            with ExitStack() as stack:
                url = args.url
                if url is None:
                    # the bench's own server (killed after 5 s of graceful shutdown), with
                    # no creation limit to pace its games
                    server = LiveServer(Path(tmp) / f"{version}.db", grace_s=5,
                                        **NO_CREATION_LIMITS)
                    server.command = command or server.command
                    url = stack.enter_context(server).url
                http = stack.enter_context(httpx.Client(base_url=url, timeout=120))
                http.get("/static/vendor/htmx.min.js").raise_for_status()
                # the probe and Playwright's wait_for_function evaluate strings in the
                # page, which the server's CSP (script-src 'self') forbids
                page = browser.new_page(base_url=url, viewport={"width": 1280, "height": 900},
                                        bypass_csp=True)
                page.goto("/")
                page.wait_for_selector("#board[data-game-id]")
                for size in args.sizes:
                    results.append({"version": version,
                                    **measure(page, http, size, args.clicks, args.seed)})
                page.close()
        browser.close()

    columns = [("click→frame", "click_to_frame_ms"), ("server", "server_ms"), ("app", "app_ms"),
               ("answered", "answered_ms"), ("1st frame", "first_frame_ms"),
               ("patched", "patched_ms")]
    if args.chromium_arg:
        print("Chromium flags added:", " ".join(args.chromium_arg))
    print(f"{'':>6} {'board':>13} {'n':>4} "
          + " ".join(f"{name + ' p50/p99':>19}" for name, _ in columns)
          + f" {'shown in frame':>15} {'bytes p50/p99':>15}  (ms from the click)")
    for r in results:
        cells = [f"{r[key]['p50']:.1f} / {r[key]['p99']:.1f}" if r[key] else "–"
                 for _, key in columns]
        sent, shown = r["bytes_per_move"], r["frame_shown"]
        print(f"{r['version']:>6} {r['size']:>13} {r['click_to_frame_ms']['n']:>4} "
              + " ".join(f"{c:>19}" for c in cells)
              + f" {shown['p50']:>6.0f} / {shown['p99']:<6.0f}"
              + f" {sent['p50']:>6.0f} / {sent['p99']:<6.0f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"machine": where, "chromium_args": args.chromium_arg,
                                         "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
