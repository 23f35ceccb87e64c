// Statistics per preset, kept by this browser (localStorage): a finished, unassisted preset
// game this browser played counts once; the table is drawn by the server, filled in here.

const KEY = "kaboom.stats", COUNTED = "kaboom.counted-games";
const read = (key, fallback) => { try { return JSON.parse(localStorage.getItem(key)) ?? fallback; } catch { return fallback; } };
const write = (key, value) => { try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* it just forgets */ } };
const of = (stats, preset) => ({ played: 0, won: 0, best_ms: null, ...stats[preset] });

function show() {
  const stats = read(KEY, {});
  for (const row of document.querySelectorAll("#stats tr[data-preset]")) {
    const s = of(stats, row.dataset.preset);
    const text = { played: s.played, won: s.won, rate: s.played ? `${Math.round((100 * s.won) / s.played)} %` : "–",
      best: s.best_ms === null ? "–" : `${(s.best_ms / 1000).toFixed(1)} s` };
    for (const td of row.querySelectorAll("[data-stat]")) td.textContent = text[td.dataset.stat];
  }
}

/** Counts the game on the page once it is over, and says so when it is the best time. */
function record() {
  const g = document.querySelector("#game-state")?.dataset;
  if (!g || g.status === "playing" || g.role !== "player" || g.assisted === "true" || !g.preset) return;
  const counted = read(COUNTED, []), stats = read(KEY, {}), s = of(stats, g.preset), ms = Number(g.elapsedMs);
  if (!counted.includes(g.gameId)) {
    write(COUNTED, [...counted, g.gameId].slice(-500));
    s.played++;
    if (g.status === "won") { s.won++; if (s.best_ms === null || ms < s.best_ms) s.best_ms = ms; }
    write(KEY, { ...stats, [g.preset]: s });
    show();
  }
  const banner = document.querySelector("#banner.won");
  const label = document.querySelector(`#stats tr[data-preset="${g.preset}"]`).dataset.label;
  if (banner && s.best_ms === ms && !banner.querySelector(".best")) banner.insertAdjacentHTML("beforeend", ` <strong class="best">Your best ${label} time!</strong>`);
}

document.querySelector("#reset-stats").addEventListener("click", () => window.confirm("Forget the statistics of every preset?") && (write(KEY, {}), show()));
for (const name of ["htmx:afterSettle", "htmx:sseMessage"]) document.body.addEventListener(name, record);
show();
record();
