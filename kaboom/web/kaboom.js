// The page's controller. Moves go straight to the JSON API with fetch and patch only the cells
// that changed (board.js); htmx posts the new-game form and the "same board again" button
// (a tiny extension below sends them as JSON). A long poll keeps the page in step with moves
// made elsewhere (a bot, another tab): that is spectating.

import * as api from "./api.js";
import { Board, isCovered, percent } from "./board.js";
import { attachInput } from "./input.js";
import * as store from "./store.js";

const $ = (selector) => document.querySelector(selector);
const ui = {
  form: $("#new-game"),
  preset: $("#preset"),
  width: $("#width"),
  height: $("#height"),
  mines: $("#mines"),
  formError: $("#form-error"),
  minesLeft: $("#mines-left"),
  timer: $("#timer"),
  moves: $("#moves"),
  forced: $("#forced"),
  face: $("#face"),
  status: $("#status"),
  badges: $("#badges"),
  message: $("#message"),
  banner: $("#banner"),
  undo: $("#undo"),
  sameBoard: $("#same-board"),
  share: $("#share"),
  hover: $("#hover-info"),
  stats: $("#stats tbody"),
  notice: $("#notice"),
  noticeText: $("#notice-text"),
  noticeRetry: $("#notice-retry"),
  noticeNew: $("#notice-new"),
  boardWrap: $("#board-wrap"),
  hint: $("#hint"),
  reason: $("#reason"),
  replay: $("#replay"),
  replaySlider: $("#replay-slider"),
  replayAt: $("#replay-at"),
};
const board = new Board($("#board"));

const state = {
  game: null, // the last game answer shown
  seq: 0, // local requests started: a long poll sent before one is stale
  inflight: 0,
  queue: Promise.resolve(), // local moves run one after another, in click order
  poll: null, // AbortController of the long poll
  analysisToken: 0,
  analysisNote: null, // the message that the overlay is incomplete or out of date
  clockBase: 0, // elapsed_ms at the last answer ...
  clockAt: 0, // ... and when it arrived (performance.now())
  clockRunning: false,
  reasonToken: 0, // the latest proof or hint request: older answers are dropped
  marks: null, // who outlined cells on the board: "loss", "hint" or "hover"
  lossProof: null, // { id, x, y, text } of the finished game's proof, once fetched
  proofs: new Map(), // debug proofs by "moves:x,y" of the current game
  replay: null, // { id, version, moves, list, from, at, rows } of the finished game on the board
  replayLoad: null, // the replay whose pages are being read
  replacesLink: false, // the game being created replaces a dead link in the history
};

const REASONS = {
  certain_mine: ({ x, y }) =>
    `Boom at (${x}, ${y}): that cell was certainly a mine; the open numbers prove it.`,
  guess_while_safe: ({ x, y }) =>
    `Boom at (${x}, ${y}): you guessed while a safe cell existed, and Kaboom punishes that.`,
  outside_guess: ({ x, y }) =>
    `Boom at (${x}, ${y}): a guess outside the frontier while frontier cells were still undecided.`,
  forced_guess: ({ x, y }) =>
    `Boom at (${x}, ${y}): no safe cell existed, so it was a forced guess, and the fair odds went against you.`,
};

// ---------------------------------------------------------------- showing a game

/** Shows a game that replaces the current one (new game, reopened link). */
function loadGame(game, { push = false } = {}) {
  state.poll?.abort();
  hideNotice();
  state.game = null; // applyGame builds the cells afresh
  applyGame(game);
  const path = `/games/${encodeURIComponent(game.id)}`;
  if (location.pathname !== path) history[push ? "pushState" : "replaceState"]({}, "", path);
  startPoll(game.id);
}

/** Shows a new state of the current game, touching only what changed. */
function applyGame(game) {
  const previous = state.game;
  state.game = game;
  if (!previous || previous.id !== game.id || previous.moves !== game.moves || previous.status !== game.status) {
    clearReason();
    if (!previous || previous.id !== game.id) state.proofs.clear();
  }
  if (!previous || previous.id !== game.id) {
    board.build(game.board);
    // The player's own games were started with the form's settings (perhaps edited
    // since, which then stay); a link to another game shows that game's settings.
    if (!store.tokenOf(game.id)) showSettingsOf(game);
    document.body.style.setProperty("--board-w", game.width);
  }
  else board.update(game.board);
  const el = board.el;
  el.dataset.gameId = game.id;
  el.dataset.moves = game.moves;
  el.setAttribute("aria-label", `Minefield, ${game.width} by ${game.height}, ${game.mines} mines`);

  ui.minesLeft.textContent = game.mines_left;
  ui.moves.textContent = game.moves;
  ui.forced.textContent = game.forced_guesses;
  setClock(game);
  ui.status.dataset.status = game.status;
  ui.status.textContent = { playing: "Playing", won: "Won", lost: "Lost" }[game.status];
  if (!isPlayer(game) && game.status === "playing") ui.status.textContent = "Watching";
  ui.face.dataset.face = game.status;
  showBadges(game);
  if (game.status !== "playing" && store.recordResult(game)) showStats();
  showBanner(game);
  board.setProof(game.status === "lost" && game.loss?.safe_cell ? game.loss.safe_cell : null);
  if (game.status === "lost" && game.loss?.safe_cell) {
    showLossProof(game);
    // On a phone the cell may be far off: bring it into view once, when the loss shows.
    if (!previous || previous.id !== game.id || previous.status !== "lost") {
      const { x, y } = game.loss.safe_cell;
      board.cell(x, y)?.scrollIntoView({ block: "nearest", inline: "center" });
    }
  }
  ui.hint.disabled = game.status !== "playing" || !isPlayer(game);
  if (game.status === "playing") hideReplay();
  else if (!isReplayOf(state.replay, game) && !isReplayOf(state.replayLoad, game)) loadReplay(game);

  ui.undo.disabled = !undoAllowed(game);
  ui.share.disabled = false;
  // A server-drawn seed is secret until the game ends: only then can it be replayed.
  ui.sameBoard.disabled = game.seedText === null;
  ui.sameBoard.setAttribute("hx-vals", JSON.stringify(sameBoardValues(game)));
  el.dataset.role = isPlayer(game) ? "player" : "spectator";

  if (game.debug && game.status === "playing") refreshAnalysis(game);
  else {
    state.analysisToken++;
    board.clearKnowledge();
    delete el.dataset.analysedMoves;
    delete el.dataset.analysisComplete;
    forgetAnalysisNote();
  }
}

/** The form shows the settings of the game on the board (not saved until edited). */
function showSettingsOf(game) {
  writeForm({
    ...game,
    question_marks: game.question_marks !== false,
    debug: Boolean(game.debug),
  });
}

function undoAllowed(game) {
  if (typeof game.undo_allowed === "boolean") return game.undo_allowed;
  return game.moves > 0 && (game.status === "lost" || (game.debug && game.status === "playing"));
}

function showBadges(game) {
  const words = [`${game.width}×${game.height}, ${game.mines} mines`];
  if (game.first_click === "opening") words.push("opening");
  if (game.forced_guess === "fair") words.push("fair guesses");
  if (game.outside_guess) words.push("outside guesses forced");
  if (game.question_marks === false) words.push("no ?");
  // Within a tenth of the moves a game may keep, say what is left: the move past them is refused.
  const left = game.move_limit - game.moves;
  if (game.status === "playing" && left <= game.move_limit / 10) {
    words.push(`${left} move${left === 1 ? "" : "s"} left`);
  }
  const badges = words.map((w) => `<span class="badge">${w}</span>`);
  if (game.debug) badges.push('<span class="badge debug">debug</span>');
  if (game.assisted) badges.push('<span class="badge assisted" title="Not counted in statistics">assisted</span>');
  const html = badges.join("");
  if (ui.badges.innerHTML !== html) ui.badges.innerHTML = html;
}

function showBanner(game) {
  const banner = ui.banner;
  if (game.status === "playing") {
    banner.hidden = true;
    banner.className = "banner";
    delete banner.dataset.reason;
    return;
  }
  let html;
  if (game.status === "won") {
    const secs = (game.elapsed_ms / 1000).toFixed(1);
    html = `<strong>${isPlayer(game) ? "You won!" : "The player won."}</strong> ${secs} s, ${game.moves} moves`;
    if (game.forced_guesses) html += `, ${game.forced_guesses} forced guess${game.forced_guesses > 1 ? "es" : ""}`;
    html += game.assisted ? ". Assisted, so not counted in statistics." : ".";
    const best = store.bestOf(game);
    if (best) html += ` <strong class="best">Your best ${best} time!</strong>`;
    banner.className = "banner won";
    delete banner.dataset.reason;
  } else {
    const loss = game.loss ?? { x: "?", y: "?", reason: "" };
    const explain = REASONS[loss.reason] ?? (({ x, y }) => `Boom at (${x}, ${y}).`);
    html = `<strong>${isPlayer(game) ? "You lost." : "The player lost."}</strong> ${escapeHtml(explain(loss))}`;
    if (loss.safe_cell) {
      const { x, y } = loss.safe_cell;
      const link = `<button type="button" class="link proof-link" data-x="${x}" data-y="${y}" title="Show this cell on the board">(${x}, ${y})</button>`;
      const proof = lossProofOf(game);
      html += ` <span class="proof-text">${link} was provably safe</span>`;
      html += proof
        ? `: <span class="proof-why">${escapeHtml(proof.text)}</span>. It is marked ✓ on the board, and the numbers that prove it are outlined.`
        : ": it is marked ✓ on the board.";
    }
    if (undoAllowed(game)) html += " Undo takes the move back.";
    banner.className = "banner lost";
    banner.dataset.reason = loss.reason;
  }
  if (banner.innerHTML !== html) banner.innerHTML = html;
  banner.hidden = false;
}

// ---------------------------------------------------------------- proofs and hints

/** The proof of the loss's safe cell, when it has been fetched for this game. */
function lossProofOf(game) {
  const p = state.lossProof;
  const sc = game.loss?.safe_cell;
  return p && sc && p.id === game.id && p.x === sc.x && p.y === sc.y ? p : null;
}

/** Fetches the proof of the cell a punished guess ignored (free after the game) and shows it. */
async function showLossProof(game) {
  const proof = lossProofOf(game);
  if (proof) {
    markCells("loss", { numbers: proof.numbers });
    return;
  }
  const { x, y } = game.loss.safe_cell;
  const token = ++state.reasonToken;
  try {
    const answer = await api.proof(game.id, x, y);
    if (token !== state.reasonToken || state.game?.id !== game.id) return;
    state.lossProof = { id: game.id, x, y, text: answer.text, numbers: answer.numbers };
    showBanner(state.game);
    const r = state.replay;
    if (r && r.id === game.id) showReplayAt(r.at);
    else markCells("loss", { numbers: answer.numbers });
  } catch (error) {
    if (token === state.reasonToken) showReason(`The proof could not be fetched: ${api.errorText(error)}`);
  }
}

function markCells(owner, marks) {
  state.marks = owner;
  board.mark(marks);
}

function showReason(text) {
  ui.reason.textContent = text;
}

/** Forgets the outlines and words of the last proof or hint (the board moved on). */
function clearReason() {
  state.reasonToken++;
  if (state.marks) board.mark();
  state.marks = null;
  showReason("");
}

/** Shows one proven safe cell and its proof, or the best odds when none exists. */
async function showHint() {
  if (!playing()) return;
  await state.queue; // after the moves already sent
  const game = state.game;
  if (!game || game.status !== "playing") return;
  const token = ++state.reasonToken;
  let hint;
  try {
    hint = await api.hint(game.id);
  } catch (error) {
    if (token === state.reasonToken) say(`No hint: ${api.errorText(error)}`, { error: true });
    return;
  }
  if (token !== state.reasonToken || state.game?.id !== game.id || state.game.moves !== game.moves) return;
  state.game = { ...state.game, assisted: true };
  showBadges(state.game);
  const names = hint.cells.map(({ x, y }) => `(${x}, ${y})`);
  if (hint.kind === "safe") {
    const { x, y } = hint.cells[0];
    markCells("hint", { numbers: hint.proof.numbers, cells: hint.cells, kind: "hint" });
    showReason(`Hint: (${x}, ${y}) is safe: ${hint.proof.text}.`);
    board.setCursor(x, y);
  } else if (hint.kind === "first_click") {
    markCells("hint", { cells: hint.cells, kind: "hint" });
    showReason(`Hint: the first click is always safe; ${names[0]} is a good start.`);
    board.setCursor(hint.cells[0].x, hint.cells[0].y);
  } else {
    markCells("hint", { cells: hint.cells, kind: "guess" });
    let text = "Hint: no cell is provably safe, so the next click is a forced guess.";
    if (hint.probability !== null && names.length) {
      const shown = names.length > 6 ? `${names.slice(0, 6).join(", ")} and ${names.length - 6} more` : names.join(", ");
      text += ` The best odds: ${percent(hint.probability)} mine, at ${shown}.`;
    }
    showReason(text);
    if (hint.cells.length) board.cell(hint.cells[0].x, hint.cells[0].y)?.scrollIntoView({ block: "nearest", inline: "nearest" });
  }
}

/** In a debug game, the proof of a safe or mine cell under the pointer or the cursor. */
async function explainCell(x, y) {
  const game = state.game;
  const cell = board.cell(x, y);
  const k = cell?.dataset.knowledge;
  if (!game?.debug || game.status !== "playing" || (k !== "s" && k !== "m")) {
    if (state.marks === "hover") clearReason();
    return;
  }
  const key = `${game.moves}:${x},${y}`;
  const token = ++state.reasonToken;
  let proof = state.proofs.get(key);
  if (!proof) {
    try {
      proof = await api.proof(game.id, x, y);
    } catch (error) {
      if (token === state.reasonToken) showReason(`(${x}, ${y}): no proof (${api.errorText(error)})`);
      return;
    }
    state.proofs.set(key, proof);
  }
  if (token !== state.reasonToken || state.game !== game) return;
  markCells("hover", { numbers: proof.numbers });
  showReason(`(${x}, ${y}) is ${proof.mine ? "a mine" : "safe"}: ${proof.text}.`);
}

// ---------------------------------------------------------------- replay

/** Shows the replay bar for a finished game as soon as its last page has arrived (the bar
 * starts at the end), then reads the earlier pages back to the first move; until they are
 * in, the bar goes back only as far as what has arrived (`from`). */
async function loadReplay(game) {
  hideReplay();
  const n = game.moves;
  const replay = {
    id: game.id, version: game.version, moves: n, list: new Array(n), from: n, at: n,
    rows: game.board.map((r) => [...r]),
  };
  state.replayLoad = replay;
  const current = () => state.replayLoad === replay && isReplayOf(replay, state.game);
  try {
    for await (const page of api.replayBackwards(game)) {
      if (!current()) return;
      page.moves.forEach((step, i) => { replay.list[page.offset + i] = step; });
      replay.from = page.offset;
      showReplay(replay); // at the end first, then wherever the player has stepped to
    }
    if (current() && state.replay !== replay) showReplay(replay); // no moves at all
  } catch (error) {
    if (current()) say(`No replay: ${api.errorText(error)}`, { error: true });
  }
}

/** Whether `replay` (shown or loading) is of this game as it now is. */
function isReplayOf(replay, game) {
  return Boolean(replay && game && replay.id === game.id && replay.version === game.version);
}

function showReplay(replay) {
  state.replay = replay;
  ui.replaySlider.min = String(replay.from);
  ui.replaySlider.max = String(replay.moves);
  ui.replaySlider.value = String(replay.at);
  ui.replay.hidden = false;
  board.el.dataset.replayMove = replay.at;
  showReplayAt(replay.at);
}

function hideReplay() {
  state.replayLoad = null;
  if (!state.replay && ui.replay.hidden) return;
  state.replay = null;
  ui.replay.hidden = true;
  delete board.el.dataset.replayMove;
}

/** Steps the board to the position after move `k` (0: the first board). */
function replayTo(k) {
  const r = state.replay;
  if (!r) return;
  k = Math.max(r.from, Math.min(r.list.length, k));
  while (r.at < k) {
    for (const [x, y, , after] of r.list[r.at].cells) r.rows[y][x] = after;
    r.at++;
  }
  while (r.at > k) {
    r.at--;
    for (const [x, y, before] of r.list[r.at].cells) r.rows[y][x] = before;
  }
  board.update(r.rows.map((row) => row.join("")));
  ui.replaySlider.value = String(k);
  board.el.dataset.replayMove = k;
  showReplayAt(k);
}

/** The words and marks of replay step `k`; the loss's proof shows at the losing move. */
function showReplayAt(k) {
  const r = state.replay;
  const game = state.game;
  const n = r.list.length;
  const end = k === n;
  const named = (text) => text.replace(/^(\w+) (\d+) (\d+)$/, "$1 ($2, $3)");
  let text;
  if (k === 0) text = `The first board (move 0 of ${n}).`;
  else if (r.list[k - 1]) text = `Move ${k} of ${n}: ${named(r.list[k - 1].move)}.`;
  else text = `Move ${k} of ${n} (the moves before it are still loading).`;
  ui.banner.hidden = !end;
  const loss = game.status === "lost" ? game.loss : null;
  const proof = lossProofOf(game);
  board.setProof(loss?.safe_cell && k >= n - 1 ? loss.safe_cell : null);
  if (loss?.safe_cell && proof && k === n - 1) {
    // The board the losing click was made on: the safe cell, its proof, and the click.
    markCells("loss", { numbers: proof.numbers, cells: [{ x: loss.x, y: loss.y }], kind: "guess" });
    text += ` Next, the losing click at (${loss.x}, ${loss.y}), while (${loss.safe_cell.x}, ${loss.safe_cell.y}) was provably safe: ${proof.text}.`;
  } else if (loss?.safe_cell && proof && end) {
    markCells("loss", { numbers: proof.numbers });
  } else if (state.marks) {
    board.mark();
    state.marks = null;
  }
  ui.replayAt.textContent = text;
}

function onReplayKey(event) {
  if (!state.replay || event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
  if (event.target instanceof Element && event.target.closest("input, select, textarea, #board")) return;
  const steps = { ArrowLeft: -1, ArrowRight: 1 };
  if (event.key in steps) replayTo(state.replay.at + steps[event.key]);
  else if (event.key === "Home") replayTo(0);
  else if (event.key === "End") replayTo(state.replay.list.length);
  else return;
  event.preventDefault();
}

function sameBoardValues(game) {
  return {
    width: game.width,
    height: game.height,
    mines: game.mines,
    first_click: game.first_click,
    forced_guess: game.forced_guess,
    outside_guess: String(game.outside_guess),
    question_marks: String(game.question_marks !== false),
    debug: String(Boolean(game.debug)),
    seed: game.seedText,
  };
}

// ---------------------------------------------------------------- clock

function setClock(game) {
  state.clockBase = game.elapsed_ms;
  state.clockAt = performance.now();
  const started = game.elapsed_ms > 0 || game.board.some((row) => /[0-8]/.test(row));
  state.clockRunning = game.status === "playing" && started;
  tick();
}

function tick() {
  let ms = state.clockBase;
  if (state.clockRunning) ms += performance.now() - state.clockAt;
  const text = String(Math.floor(ms / 1000));
  if (ui.timer.textContent !== text) ui.timer.textContent = text;
}

// ---------------------------------------------------------------- moves

/**
 * Shows a short note. Hints fade after a few seconds; errors (red) and sticky notes stay until
 * the next move's answer, so nothing that explains a problem disappears unread.
 */
function say(text, { error = false, sticky = false } = {}) {
  delete ui.message.dataset.offline;
  ui.message.textContent = text;
  ui.message.classList.toggle("error", error);
  ui.message.classList.toggle("sticky", sticky || error);
  clearTimeout(say.timer);
  if (text && !error && !sticky) say.timer = setTimeout(() => (ui.message.textContent = ""), 4000);
}

/** Sends a request that changes the game, in order after the ones before it. */
function enqueue(request) {
  const game = state.game;
  if (!game) return;
  if (!isPlayer(game)) {
    say("You are watching this game: only its player can move.", { sticky: true });
    return;
  }
  state.seq++;
  state.inflight++;
  state.queue = state.queue.then(async () => {
    const before = state.game?.id === game.id ? state.game.moves : game.moves;
    try {
      const answer = await request(game.id);
      if (ui.message.classList.contains("sticky")) say("");
      if (state.game?.id === game.id) applyGame(answer);
    } catch (error) {
      await explainFailedMove(game.id, before, error);
    } finally {
      state.inflight--;
    }
  });
}

/**
 * Says why a move failed. Without an answer (no connection, or a proxy's 502/504) the move
 * may have been played all the same: the game is read again, and a move counter that moved
 * shows the move was played, so a second click does not chord or cycle a flag twice.
 */
async function explainFailedMove(id, before, error) {
  const answerLost = error instanceof api.NetworkError
    || (error instanceof api.ApiError && [502, 504].includes(error.status));
  if (!answerLost) {
    say(`Move not played: ${api.errorText(error)}`, { error: true });
    return;
  }
  try {
    const fresh = await api.getGame(id);
    if (state.game?.id !== id) return;
    if (fresh.moves !== before) {
      applyGame(fresh);
      say("The server's answer was lost on the way, but the move was played: the board shows it.",
        { sticky: true });
      return;
    }
    say(`Move not played: ${api.errorText(error)}`, { error: true });
  } catch {
    say(`No answer from the server, so the move may or may not have been played: ${api.errorText(error)}`,
      { error: true });
  }
}

/** True when this browser holds the game's player token (it started the game, or opened
 * the player's link); otherwise the page only watches. */
function isPlayer(game) {
  return store.tokenOf(game.id) !== null;
}

function playing() {
  return state.game?.status === "playing";
}

function flagsAround(x, y) {
  let flags = 0;
  let open = 0;
  for (const [nx, ny] of board.neighbours(x, y)) {
    const ch = board.char(nx, ny);
    if (ch === "F") flags++;
    else if (isCovered(ch)) open++;
  }
  return { flags, open };
}

const actions = {
  primary(x, y) {
    if (!playing()) return;
    const ch = board.char(x, y);
    if (ch === "#" || ch === "?") enqueue((id) => api.move(id, "reveal", x, y));
    else if (ch >= "1" && ch <= "8") {
      const { flags, open } = flagsAround(x, y);
      if (flags === Number(ch) && open > 0) enqueue((id) => api.move(id, "chord", x, y));
    }
  },
  mark(x, y) {
    if (!playing() || !isCovered(board.char(x, y))) return;
    enqueue((id) => api.move(id, "flag", x, y));
  },
  chord(x, y) {
    if (!playing()) return;
    const ch = board.char(x, y);
    if (!(ch >= "1" && ch <= "8")) return;
    const { flags, open } = flagsAround(x, y);
    if (flags !== Number(ch)) say(`A chord on (${x}, ${y}) needs exactly ${ch} flag${ch === "1" ? "" : "s"} around it.`);
    else if (open > 0) enqueue((id) => api.move(id, "chord", x, y));
  },
  undo() {
    if (state.game && undoAllowed(state.game)) enqueue((id) => api.undo(id));
  },
  newGame() {
    ui.form.requestSubmit();
  },
  hint() {
    showHint();
  },
  pressing(on) {
    if (playing()) ui.face.dataset.face = on ? "pressing" : "playing";
  },
};

// ---------------------------------------------------------------- debug overlay

const ANALYSIS_TRIES = 8; // an analysis out of time is asked again after 1, 2, 4, then 8 s

/** The debug overlay: every covered cell's status and probability, from the server.  An
 * analysis that ran out of its time (a cold or busy server) may leave cells "unknown" that
 * are safe or mines: the page says so and asks again, as it does after a 503. */
async function refreshAnalysis(game, tries = 1) {
  const token = ++state.analysisToken;
  const again = (why) => {
    if (tries >= ANALYSIS_TRIES) return why;
    setTimeout(() => {
      if (token === state.analysisToken) refreshAnalysis(game, tries + 1);
    }, 1000 * Math.min(2 ** (tries - 1), 8));
    return `${why} Asking again…`;
  };
  try {
    const analysis = await api.analysis(game.id);
    if (token !== state.analysisToken) return; // the board moved on meanwhile
    board.setKnowledge(analysis.status, analysis.probability);
    board.el.dataset.analysedMoves = game.moves;
    board.el.dataset.analysisComplete = String(analysis.complete && analysis.exact);
    if (!analysis.complete || !analysis.exact) {
      state.analysisNote = again(analysis.complete
        ? "The analysis ran out of time for the probabilities; safe and mine marks are exact."
        : "The analysis ran out of time: the cells left unmarked may be safe or mines.");
      say(state.analysisNote, { sticky: true });
    } else {
      forgetAnalysisNote();
    }
    if (state.game && !state.game.assisted) showBadges({ ...state.game, assisted: true });
  } catch (error) {
    if (token !== state.analysisToken) return;
    const why = `Analysis failed: ${api.errorText(error)}`;
    const busy = error instanceof api.ApiError && error.status === 503;
    if (busy) state.analysisNote = again(why); // cleared by an answer that is complete
    say(busy ? state.analysisNote : why, { error: true });
  }
}

/** Clears the message that the overlay is incomplete (or that the server was busy), if it
 * still shows. */
function forgetAnalysisNote() {
  if (state.analysisNote !== null && ui.message.textContent === state.analysisNote) say("");
  state.analysisNote = null;
}

function showHover(event) {
  const xy = board.at(event.target);
  if (!xy) return;
  const cell = board.cell(xy.x, xy.y);
  let text = `(${xy.x}, ${xy.y})`;
  const k = cell.dataset.knowledge;
  if (k) {
    text += ` ${{ s: "safe", m: "mine", u: "unknown" }[k]}`;
    if (cell.dataset.p !== undefined) text += `: ${percent(Number(cell.dataset.p))} mine`;
  }
  ui.hover.textContent = text;
  if (state.game?.debug && (xy.x !== showHover.x || xy.y !== showHover.y)) {
    showHover.x = xy.x;
    showHover.y = xy.y;
    explainCell(xy.x, xy.y);
  }
}

// ---------------------------------------------------------------- spectating

function startPoll(id) {
  state.poll?.abort();
  if (document.hidden) return; // resumed on visibilitychange: hidden tabs hold no connection
  const controller = new AbortController();
  state.poll = controller;
  pollLoop(id, controller.signal);
}

const OFFLINE_AFTER = 2; // failed polls in a row before the page says the server is gone
const POLL_RETRY_MAX_MS = 5000; // so a restarted server is seen within seconds

async function pollLoop(id, signal) {
  let failures = 0;
  while (!signal.aborted && state.game?.id === id) {
    if (state.inflight) await state.queue;
    const sentAt = state.seq;
    try {
      // After a failure, ask for the game at once: a server that is back is seen at once.
      const fresh = await api.waitGame(id, state.game.moves, signal, failures ? 0 : 25);
      if (failures >= OFFLINE_AFTER && ui.message.dataset.offline) {
        delete ui.message.dataset.offline;
        say("Connected to the server again.");
      }
      failures = 0;
      if (signal.aborted || state.seq !== sentAt || state.inflight) continue; // raced a local move
      if (fresh.moves !== state.game.moves || fresh.status !== state.game.status) applyGame(fresh);
      // The server answers a finished game at once (only an undo changes it): poll slowly.
      else if (fresh.status !== "playing") await new Promise((resolve) => setTimeout(resolve, 5000));
    } catch (error) {
      if (signal.aborted) return;
      failures++;
      if (failures === OFFLINE_AFTER && !state.inflight) {
        // Spectators (and players between moves) would otherwise see a game that just stopped.
        say(`Lost touch with the server: ${api.errorText(error)}. Still trying…`, { sticky: true });
        ui.message.dataset.offline = "1";
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_RETRY_MAX_MS, 500 * 2 ** failures)));
    }
  }
}

// ---------------------------------------------------------------- new game (htmx)

function gameBody(parameters) {
  const text = (name) => String(parameters.get(name) ?? "").trim();
  const flag = (name) => ["on", "true"].includes(text(name));
  const body = {
    width: Number(text("width")),
    height: Number(text("height")),
    mines: Number(text("mines")),
    first_click: text("first_click") || "safe",
    forced_guess: text("forced_guess") || "survive",
    outside_guess: flag("outside_guess"),
    question_marks: flag("question_marks"),
    debug: flag("debug"),
  };
  let json = JSON.stringify(body);
  const seed = text("seed");
  // Spliced in as digits: a 63-bit seed does not survive a JavaScript number.
  if (/^[1-9][0-9]{0,18}$/.test(seed)) json = `${json.slice(0, -1)},"seed":${seed}}`;
  return json;
}

function defineHtmxExtension() {
  window.htmx.defineExtension("kaboom-json", {
    onEvent(name, event) {
      if (name === "htmx:configRequest") event.detail.headers["Content-Type"] = "application/json";
      return true;
    },
    encodeParameters(xhr, parameters) {
      xhr.overrideMimeType("text/json");
      return gameBody(parameters);
    },
  });
  document.body.addEventListener("htmx:afterRequest", (event) => {
    const source = event.detail.elt;
    if (!(source instanceof Element) || !source.hasAttribute("data-creates-game")) return;
    const xhr = event.detail.xhr;
    if (xhr.status === 0) return; // replaced by a newer request (hx-sync), or sendError below
    const replacesLink = state.replacesLink;
    state.replacesLink = false; // one creation answers the dead link, made or refused
    if (xhr.status === 201 || xhr.status === 200) {
      ui.formError.hidden = true;
      const game = api.parseGame(xhr.responseText);
      store.saveToken(game.id, game.player_token);
      store.ownGame(game.id);
      // The first game of a visit replaces "/" in the history, and a game started for a
      // dead link replaces that link, so Back never lands on an address that would start
      // yet another game.
      loadGame(game, { push: state.game !== null && !replacesLink });
    } else {
      showFormError(api.detailText(api.errorDetail(xhr, xhr.responseText)));
    }
  });
  document.body.addEventListener("htmx:sendError", (event) => {
    if (event.detail.elt?.hasAttribute?.("data-creates-game")) {
      state.replacesLink = false;
      showFormError(api.errorText(new api.NetworkError()));
    }
  });
}

function showFormError(detail) {
  const text = `Could not start a game: ${detail}`;
  ui.formError.textContent = text;
  ui.formError.hidden = false;
  // With no game on the page the form may be out of sight (below the board on a phone):
  // the board's place says it too.
  if (!state.game) showNotice(sentence(text), () => actions.newGame(), { offerNew: false });
}

// ---------------------------------------------------------------- notice (no game to show)

/** Shows why no game is on the page, in the board's place, with a way out. */
function showNotice(text, retry, { offerNew = true } = {}) {
  state.poll?.abort();
  state.game = null;
  state.analysisToken++;
  state.clockRunning = false;
  board.clear();
  delete board.el.dataset.gameId;
  delete board.el.dataset.moves;
  ui.boardWrap.hidden = true;
  ui.banner.hidden = true;
  ui.status.textContent = "No game";
  ui.status.dataset.status = "none";
  ui.undo.disabled = true;
  ui.hint.disabled = true;
  ui.share.disabled = true;
  ui.sameBoard.disabled = true;
  ui.noticeText.textContent = text;
  ui.noticeNew.hidden = !offerNew;
  ui.noticeRetry.onclick = retry;
  ui.notice.hidden = false;
}

function hideNotice() {
  ui.notice.hidden = true;
  ui.boardWrap.hidden = false;
}

// ---------------------------------------------------------------- settings

function readForm() {
  const f = ui.form.elements;
  return {
    preset: f.preset.value,
    width: Number(f.width.value),
    height: Number(f.height.value),
    mines: Number(f.mines.value),
    first_click: f.first_click.value,
    forced_guess: f.forced_guess.value,
    outside_guess: f.outside_guess.checked,
    question_marks: f.question_marks.checked,
    debug: f.debug.checked,
  };
}

function writeForm(settings) {
  const f = ui.form.elements;
  f.preset.value = store.presetOf(settings) ?? "custom";
  f.width.value = settings.width;
  f.height.value = settings.height;
  f.mines.value = settings.mines;
  f.first_click.value = settings.first_click;
  f.forced_guess.value = settings.forced_guess;
  f.outside_guess.checked = settings.outside_guess;
  f.question_marks.checked = settings.question_marks;
  f.debug.checked = settings.debug;
  limitMines();
}

function limitMines() {
  const cells = Number(ui.width.value) * Number(ui.height.value);
  if (cells >= 4) ui.mines.max = String(cells - 1);
}

function onFormInput(event) {
  const target = event.target;
  ui.formError.hidden = true; // the refusal was of the values just changed
  if (target === ui.preset && target.value in store.PRESETS) {
    const p = store.PRESETS[target.value];
    ui.width.value = p.width;
    ui.height.value = p.height;
    ui.mines.value = p.mines;
  } else if ([ui.width, ui.height, ui.mines].includes(target)) {
    const preset = store.presetOf({
      width: Number(ui.width.value),
      height: Number(ui.height.value),
      mines: Number(ui.mines.value),
    });
    ui.preset.value = preset ?? "custom";
  }
  limitMines();
  // A size the server would refuse is not kept: the next visit must be able to start a game.
  if (target.name !== "seed" && sizeValid()) store.saveSettings(readForm());
}

function sizeValid() {
  return [ui.width, ui.height, ui.mines].every((input) => input.value !== "" && input.checkValidity());
}

// ---------------------------------------------------------------- statistics

function showStats() {
  const stats = store.loadStats();
  const rows = Object.entries(store.PRESETS).map(([key, p]) => {
    const s = stats[key];
    const rate = s.played ? `${Math.round((100 * s.won) / s.played)} %` : "–";
    const best = s.best_ms === null ? "–" : `${(s.best_ms / 1000).toFixed(1)} s`;
    return `<tr data-preset="${key}"><th scope="row">${p.label}</th><td data-stat="played">${s.played}</td>
      <td data-stat="won">${s.won}</td><td data-stat="rate">${rate}</td><td data-stat="best">${best}</td></tr>`;
  });
  ui.stats.innerHTML = rows.join("");
}

// ---------------------------------------------------------------- start

function gameIdFromPath() {
  const match = /^\/games\/([^/]+)\/?$/.exec(location.pathname);
  return match ? decodeURIComponent(match[1]) : null;
}

/** A player's link (`/games/<id>#player=<token>`) hands the game to this browser; the
 * fragment never reaches the server, and is removed from the address at once. */
function takePlayerLink(id) {
  const match = /^#player=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!id || !match) return;
  store.saveToken(id, match[1]);
  history.replaceState(history.state, "", location.pathname + location.search);
}

async function openFromLocation() {
  const id = gameIdFromPath();
  takePlayerLink(id);
  if (!id) {
    actions.newGame();
    return;
  }
  if (!state.game) ui.status.textContent = "Loading…";
  try {
    loadGame(await api.getGame(id));
  } catch (error) {
    if (error instanceof api.ApiError && error.status === 404) {
      state.replacesLink = true;
      actions.newGame();
      say("That game does not exist on this server (a wrong link?). Here is a new one.", { sticky: true });
    } else {
      showNotice(sentence(`Could not load game ${id}: ${api.errorText(error)}`), openFromLocation);
    }
  }
}

async function share() {
  if (!state.game) return;
  const url = `${location.origin}/games/${encodeURIComponent(state.game.id)}`;
  try {
    await navigator.clipboard.writeText(url);
    say("Link copied: others can watch with it, only you can move.");
  } catch {
    window.prompt("Copy this game's link:", url);
  }
}

function start() {
  writeForm(store.loadSettings());
  if (!sizeValid()) {
    // Saved by an older page, or edited by hand: fall back to the default size.
    const { preset, width, height, mines } = store.DEFAULT_SETTINGS;
    writeForm({ ...readForm(), preset, width, height, mines });
  }
  showStats();
  ui.form.addEventListener("input", onFormInput);
  ui.form.addEventListener("change", onFormInput);
  ui.face.addEventListener("click", () => actions.newGame());
  ui.undo.addEventListener("click", () => actions.undo());
  ui.share.addEventListener("click", share);
  ui.noticeNew.addEventListener("click", () => actions.newGame());
  ui.banner.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest(".proof-link") : null;
    if (!link || !state.game) return;
    board.cell(Number(link.dataset.x), Number(link.dataset.y))?.scrollIntoView({ block: "nearest", inline: "nearest" });
  });
  $("#reset-stats").addEventListener("click", () => {
    if (!window.confirm("Forget the statistics of every preset?")) return;
    store.resetStats();
    showStats();
  });
  board.el.addEventListener("mouseover", showHover);
  board.el.addEventListener("mouseleave", () => {
    ui.hover.textContent = "";
    showHover.x = showHover.y = undefined;
    if (state.marks === "hover") clearReason();
  });
  board.el.addEventListener("cursor", (event) => {
    if (state.game?.debug && state.marks !== "hint") explainCell(event.detail.x, event.detail.y);
  });
  ui.hint.addEventListener("click", () => actions.hint());
  ui.replaySlider.addEventListener("input", () => replayTo(Number(ui.replaySlider.value)));
  $("#replay-first").addEventListener("click", () => replayTo(0));
  $("#replay-back").addEventListener("click", () => replayTo((state.replay?.at ?? 0) - 1));
  $("#replay-next").addEventListener("click", () => replayTo((state.replay?.at ?? 0) + 1));
  $("#replay-last").addEventListener("click", () => replayTo(state.replay?.list.length ?? 0));
  document.addEventListener("keydown", onReplayKey);
  attachInput(board, actions);
  setInterval(tick, 250);
  window.addEventListener("popstate", openFromLocation);
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) state.poll?.abort();
    else if (state.game) startPoll(state.game.id);
  });

  if (!window.htmx) {
    ui.status.textContent = "htmx did not load (/static/vendor/htmx.min.js): reload the page.";
    return;
  }
  defineHtmxExtension();
  window.htmx.process(document.body);
  openFromLocation();
}

/** Ends the text with a full stop unless it already ends a sentence. */
function sentence(text) {
  return /[.?!]$/.test(text) ? text : `${text}.`;
}

function escapeHtml(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// After htmx's own start-up (it listens for DOMContentLoaded first, being an earlier script).
if (document.readyState === "complete") start();
else document.addEventListener("DOMContentLoaded", start);
