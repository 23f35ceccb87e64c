"""Page latency: from a click on a cell to the updated board on screen, in headless Chromium.

Starts ``kaboom serve`` on a free port (or uses ``--url``), opens the page with Playwright,
and plays games by clicking provably safe cells (found with the solver in this process, so
the page does no extra work), guessing only when no safe cell exists. For every reveal it
records, inside the page:

* ``click→frame``: the click event's timestamp to the first frame after the board changed
  (requestAnimationFrame, then a message task: the frame has been produced);
* ``server``: the reveal request's time to first byte (Resource Timing), i.e. the server's
  own reveal time plus loopback;
* ``page``: the rest, the page's share (fetch overhead, JSON parse, DOM patch, frame).

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

from kaboom.solver.bench.machine import machine
from kaboom.solver.knowledge import KnowledgeEngine
from kaboom.solver.position import Position
from kaboom.solver.simulator import parse_board
from kaboom.testing import CHROMIUM_ARGS, NO_CREATION_LIMITS, LiveServer

# Installed in the page: one sample per click that changed the board.
PROBE = """() => {
  const board = document.querySelector('#board');
  performance.setResourceTimingBufferSize(100000);
  window.__samples = [];
  window.__t0 = null;
  board.addEventListener('click', e => { window.__t0 = e.timeStamp; }, true);
  new MutationObserver(() => {
    if (window.__t0 === null) return;
    const t0 = window.__t0;
    const patched = performance.now() - t0;
    window.__t0 = null;
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        const entries = performance.getEntriesByType('resource')
          .filter(e => e.name.endsWith('/reveal'));
        const last = entries[entries.length - 1];
        window.__samples.push({
          total: performance.now() - t0,
          server: last ? last.responseStart - last.requestStart : null,
          response_end: last ? last.responseEnd - t0 : null,
          request_start: last ? last.startTime - t0 : null,
          bytes: last ? last.encodedBodySize : null,
          patched,
        });
        performance.clearResourceTimings();
      };
      channel.port2.postMessage(0);
    });
  }).observe(board, {attributes: true, attributeFilter: ['data-moves']});
}"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


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
    page_share = [s["total"] - s["server"] for s in samples if s["server"] is not None]
    apply = [s["patched"] - s["response_end"] for s in samples if s["response_end"] is not None]
    frame = [s["total"] - s["patched"] for s in samples]
    sent = [float(s["bytes"]) for s in samples if s["bytes"]]
    return {"size": size, "games": games, "click_to_frame_ms": summary(total),
            "server_ms": summary(server), "page_ms": summary(page_share),
            "parse_and_patch_ms": summary(apply), "to_frame_ms": summary(frame),
            "bytes_per_move": summary(sent), "samples": samples}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["30x16/99", "100x100/2000"])
    parser.add_argument("--clicks", type=int, default=200, help="reveals measured per size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--url", help="an already running server (default: start one)")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
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
                                     args=CHROMIUM_ARGS)
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

    columns = [("click→frame", "click_to_frame_ms"), ("server", "server_ms"),
               ("page", "page_ms"), ("parse+patch", "parse_and_patch_ms"),
               ("→frame", "to_frame_ms")]
    print(f"{'':>6} {'board':>13} {'n':>4} "
          + " ".join(f"{name + ' p50/p99':>20}" for name, _ in columns)
          + f" {'bytes p50/p99':>16}  (ms)")
    for r in results:
        cells = [f"{r[key]['p50']:.1f} / {r[key]['p99']:.1f}" for _, key in columns]
        sent = r["bytes_per_move"]
        print(f"{r['version']:>6} {r['size']:>13} {r['click_to_frame_ms']['n']:>4} "
              + " ".join(f"{c:>20}" for c in cells)
              + f" {sent['p50']:>7.0f} / {sent['p99']:<6.0f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"machine": where, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
