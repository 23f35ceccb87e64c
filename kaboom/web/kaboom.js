// What HTML cannot say: gestures. The server draws the game and answers each move with what
// changed (htmx swaps it in); this turns clicks, long presses and keys into those requests.

const $ = (selector) => document.querySelector(selector);
const game = () => $("#game-state")?.dataset ?? {};
const cellOf = (x, y) => document.getElementById(`c${x}-${y}`);
const cellAt = (target) => (target instanceof Element ? target.closest("#board .c") : null);
const at = (cell) => ({ x: Number(cell.dataset.x), y: Number(cell.dataset.y) });
let cursor = { x: 0, y: 0 }, keyboard = false; // played with keys: the cursor shows
const useKeys = (on) => $("#board").classList.toggle("kbd", (keyboard = on));
let clock = {};

/** A note under the counters; plain notes fade, errors and sticky ones stay. */
function say(text, kind = "") {
  const m = Object.assign($("#message"), { textContent: text, className: `message ${kind}`.trim() });
  clearTimeout(say.timer);
  if (text && !kind) say.timer = setTimeout(() => { if (m.textContent === text) m.textContent = ""; }, 4000);
}

/** A request whose answer htmx swaps in (a failure is said by the handlers below). */
const ajax = (verb, path, context) => htmx.ajax(verb, path, { swap: "none", ...context }).catch(() => {});
let sentAt = 0; // the moves the game had when the last move was sent
/** Asks the server to play `kind` on a cell; its answer draws what changed. */
function send(kind, cell, values = {}) {
  if (game().status !== "playing" || !cell) return;
  sentAt = game().moves;
  ajax("POST", `/games/${game().gameId}/${kind}`, { source: cell, values: { ...at(cell), ...values } });
}

const actions = {
  primary(cell) {
    const s = cell?.dataset.state;
    if (s === "#" || s === "?") send("reveal", cell);
    else if (s >= "1" && s <= "8") send("chord", cell, { quiet: "on" }); // a satisfied number chords
  },
  mark(cell) { if (["#", "?", "F"].includes(cell?.dataset.state)) send("flag", cell); },
  chord(cell) { if (cell?.dataset.state >= "1" && cell.dataset.state <= "8") send("chord", cell); },
};

/** Makes the page's element carry the server's drawing of it. */
function patch(old, fresh) {
  for (const a of [...old.attributes]) if (!fresh.hasAttribute(a.name)) old.removeAttribute(a.name);
  for (const a of fresh.attributes) if (old.getAttribute(a.name) !== a.value) old.setAttribute(a.name, a.value);
}

/** Outlines of a hint or a proof go when the words that explain them are replaced. */
const clearMarks = () => document.querySelectorAll("#board [data-mark]").forEach((c) => {
  c.classList.remove("reason", "hint", "guess");
  c.removeAttribute("data-mark");
});

function setCursor(x, y, scroll = true) {
  $("#board .cursor")?.classList.remove("cursor");
  const w = Number($("#board").dataset.width), h = Number($("#board").dataset.height);
  cursor = { x: Math.max(0, Math.min(w - 1, x)), y: Math.max(0, Math.min(h - 1, y)) };
  const cell = cellOf(cursor.x, cursor.y);
  if (!cell) return;
  cell.classList.add("cursor");
  $("#board").setAttribute("aria-activedescendant", cell.id);
  if (scroll) cell.scrollIntoView({ block: "nearest", inline: "nearest" });
}

/** After every swap: the board takes the game's state, the cursor and focus come back. */
function sync() {
  const b = $("#board"), s = $("#game-state");
  if (!b || !s) return;
  for (const [k, v] of Object.entries(s.dataset)) if (b.dataset[k] !== v) b.dataset[k] = v;
  if (s.dataset.replayMove === undefined) delete b.dataset.replayMove;
  b.style.setProperty("--w", b.dataset.width);
  document.body.style.setProperty("--board-w", b.dataset.width);
  useKeys(keyboard);
  const hinted = $("#cursor"); // a hint moves the cursor onto its cell
  if (hinted?.dataset.x === undefined) setCursor(cursor.x, cursor.y, false);
  else setCursor(Number(hinted.dataset.x), Number(hinted.dataset.y), !delete hinted.dataset.x);
  const t = $("#timer"); // the clock ticks on from the server's time
  if (t !== clock.el) clock = { el: t, base: Number(t.dataset.elapsedMs), at: performance.now(), running: t.dataset.running === "true" };
  const proof = $("#banner:not([hidden]) .proof-link");
  if (proof && sync.shown !== s.dataset.version) cellOf(proof.dataset.x, proof.dataset.y)?.scrollIntoView({ block: "nearest", inline: "center" });
  sync.shown = s.dataset.version;
}

let pending = false; // one sync after all the swaps of an answer
const afterSwap = () => pending || (pending = true, queueMicrotask(() => { pending = false; sync(); }));

function hover(event) {
  const cell = cellAt(event.target);
  if (!cell || cell === hover.cell) return;
  $("#hover-info").textContent = (hover.cell = cell).title || `(${cell.dataset.x}, ${cell.dataset.y})`;
  explain(cell);
}

/** In a debug game, the proof of a safe or mine cell under the pointer or the cursor. */
function explain(cell) {
  const k = cell?.dataset.knowledge;
  if (game().status !== "playing" || (k !== "s" && k !== "m")) return;
  ajax("GET", `/games/${game().gameId}/proof`, { source: $("#reason"), values: at(cell) });
}

function wireBoard(wrap) {
  let both = false, swallow = false, touch = null;
  wrap.addEventListener("mousedown", (e) => {
    const cell = cellAt(e.target);
    if (!cell) return;
    if (e.button === 1) e.preventDefault(); // no autoscroll
    if ((e.buttons & 3) === 3) both = true;
    useKeys(false);
    setCursor(at(cell).x, at(cell).y, false);
  });
  wrap.addEventListener("mouseup", (e) => {
    if (!both || (e.buttons & 3) !== 0) return; // the other button is still down
    both = false;
    swallow = e.button === 0; // a click event follows a left release
    actions.chord(cellAt(e.target));
  });
  wrap.addEventListener("click", (e) => {
    if (swallow || both || touch?.fired) { swallow = false; return; }
    if (cellAt(e.target)) actions.primary(cellAt(e.target));
  });
  wrap.addEventListener("auxclick", (e) => { if (e.button === 1) actions.chord(cellAt(e.target)); });
  wrap.addEventListener("contextmenu", (e) => {
    if (!cellAt(e.target)) return;
    e.preventDefault();
    if (!touch && !both && !(e.buttons & 1)) actions.mark(cellAt(e.target));
  });
  // Touch: a long press marks, a tap reveals (through the click event).
  wrap.addEventListener("pointerdown", (e) => {
    const cell = cellAt(e.target);
    if (e.pointerType !== "touch" || !cell) { touch = null; return; }
    clearTimeout(touch?.timer);
    touch = { cell, x: e.clientX, y: e.clientY, fired: false };
    touch.timer = setTimeout(() => { touch.fired = true; navigator.vibrate?.(30); actions.mark(touch.cell); }, 450);
  });
  wrap.addEventListener("pointermove", (e) => { // a scroll, not a press
    if (touch && !touch.fired && Math.hypot(e.clientX - touch.x, e.clientY - touch.y) > 10) touch = void clearTimeout(touch.timer);
  });
  const lift = (e) => { // a fired long press stays until its click has been swallowed
    if (e.pointerType !== "touch" || !touch) return;
    clearTimeout(touch.timer);
    if (!touch.fired) touch = null;
    else setTimeout(() => { touch = null; }, 400);
  };
  for (const type of ["pointerup", "pointercancel"]) wrap.addEventListener(type, lift);
  wrap.addEventListener("mouseover", hover);
  wrap.addEventListener("mouseleave", () => {
    hover.cell = null;
    $("#hover-info").textContent = "";
    if ($("#board [data-mark]") && game().status === "playing") { clearMarks(); $("#reason").textContent = ""; }
  });
  wrap.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.target.id !== "board") return;
    const step = e.shiftKey ? 5 : 1;
    const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    const cell = cellOf(cursor.x, cursor.y);
    if (e.key in moves) setCursor(cursor.x + moves[e.key][0], cursor.y + moves[e.key][1]);
    else if (e.key === "Home" || e.key === "End") setCursor(e.key === "Home" ? 0 : Infinity, cursor.y);
    else if (e.key === " " || e.key === "Enter") actions.primary(cell);
    else if (e.key === "f" || e.key === "F") actions.mark(cell);
    else if (e.key === "c" || e.key === "C") actions.chord(cell);
    else return;
    e.preventDefault();
    useKeys(true);
    if (e.key in moves || e.key === "Home" || e.key === "End") explain(cellOf(cursor.x, cursor.y));
  });
}

// N, U and H anywhere but in a form field; the replay's arrows, Home and End off the board.
document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
  if (e.target instanceof Element && e.target.closest("input, select, textarea")) return;
  const buttons = { n: "#face", u: "#undo", h: "#hint" };
  const replay = { ArrowLeft: "#replay-back", ArrowRight: "#replay-next", Home: "#replay-first", End: "#replay-last" };
  let button = $(buttons[e.key.toLowerCase()] ?? "none");
  if (!button && !$("#replay")?.hidden && !e.target.closest?.("#board")) button = $(replay[e.key] ?? "none");
  if (!button) return;
  e.preventDefault();
  if (!button.disabled) button.click();
});

function wireForm(form) {
  const f = form.elements;
  const limit = () => { f.mines.max = String(Math.max(1, f.width.value * f.height.value - 1)); };
  const changed = (e) => {
    $("#form-error").hidden = true; // the refusal was of the values just changed
    const option = f.preset.selectedOptions[0];
    if (e.target === f.preset && option.dataset.size) [f.width.value, f.height.value, f.mines.value] = option.dataset.size.split(",");
    else if (["width", "height", "mines"].includes(e.target.name)) {
      const size = `${f.width.value},${f.height.value},${f.mines.value}`;
      f.preset.value = [...f.preset.options].find((o) => o.dataset.size === size)?.value ?? "custom";
    }
    limit();
    // A size the server would refuse is not kept: the next visit must be able to start a game.
    if (![f.width, f.height, f.mines].every((i) => i.value !== "" && i.checkValidity())) return;
    const keep = new URLSearchParams([...new FormData(form)].filter(([name]) => name !== "seed"));
    document.cookie = `kaboom_settings=${encodeURIComponent(keep)}; path=/; max-age=31536000; samesite=strict`;
  };
  for (const type of ["input", "change"]) form.addEventListener(type, changed);
  limit();
}

function start() {
  if ($("#board-wrap")) wireBoard($("#board-wrap"));
  wireForm($("#new-game"));
  for (const name of ["htmx:afterSwap", "htmx:oobAfterSwap", "htmx:sseMessage"]) document.body.addEventListener(name, afterSwap);
  document.body.addEventListener("htmx:oobBeforeSwap", (e) => {
    const t = e.detail.target;
    if (t.id === "reason") clearMarks();
    // Cells are patched in place (the elements and the focus stay): htmx would fire an event on
    // every element swapped so far after each swap, the square of a big opening's cells.
    const fresh = e.detail.fragment.firstElementChild;
    if (t.classList.contains("c")) patch(t, fresh);
    else if (t.id === "board" && fresh.dataset.gameId === t.dataset.gameId && fresh.dataset.width === t.dataset.width) {
      patch(t, fresh);
      for (const c of fresh.getElementsByClassName("c")) patch(document.getElementById(c.id), c);
    } else return;
    e.detail.shouldSwap = false;
    afterSwap();
  });
  document.body.addEventListener("htmx:sendError", (e) => {
    const path = e.detail.requestConfig?.path ?? "";
    if (!/\/(reveal|flag|chord|undo)$/.test(path)) return say("The server did not answer (is kaboom serve running?)", "error");
    ajax("GET", `/games/${game().gameId}/board`, { source: $("#board-wrap"), values: { moves: sentAt } });
  });
  document.body.addEventListener("htmx:responseError", ({ detail: { xhr } }) => { // not the server's: a proxy's page
    if (!xhr.responseText.includes("hx-swap-oob")) say(`Move not played: HTTP ${xhr.status} ${xhr.statusText}`.trim(), "error");
  });
  // An event of the game's stream no newer than the board shown (its own move's answer) is skipped.
  document.body.addEventListener("htmx:sseBeforeMessage", (e) => Number(e.detail.lastEventId) <= Number(game().version) && e.preventDefault());
  let lost = 0;
  document.body.addEventListener("htmx:sseError", () => lost++ || say("Lost touch with the server: the server did not answer. Still trying…", "sticky"));
  document.body.addEventListener("htmx:sseOpen", () => { if (lost) say("Connected to the server again."); lost = 0; });
  $("#share")?.addEventListener("click", () => {
    const url = `${location.origin}/games/${game().gameId}`;
    navigator.clipboard.writeText(url).then(() => say("Link copied: others can watch with it, only you can move."),
      () => window.prompt("Copy this game's link:", url));
  });
  setInterval(() => {
    const text = String(Math.floor((clock.base + performance.now() - clock.at) / 1000));
    if (clock.running && clock.el.textContent !== text) clock.el.textContent = text;
  }, 250);
  // A player's link (`/games/<id>#player=<token>`) hands the game to this browser's cookie.
  const token = /^#player=([A-Za-z0-9_-]+)$/.exec(location.hash)?.[1];
  if (token && game().gameId) ajax("POST", `/games/${game().gameId}/player`, { values: { token } });
  if (token) history.replaceState(null, "", location.pathname);
  sync();
  document.documentElement.classList.add("live"); // the board takes clicks from now on
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
