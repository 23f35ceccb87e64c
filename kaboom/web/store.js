// What the browser remembers between visits (localStorage): the new-game settings, the
// statistics per preset, and which games this browser started (only those count).

export const PRESETS = {
  beginner: { label: "Beginner", width: 9, height: 9, mines: 10 },
  intermediate: { label: "Intermediate", width: 16, height: 16, mines: 40 },
  expert: { label: "Expert", width: 30, height: 16, mines: 99 },
};

export const DEFAULT_SETTINGS = {
  preset: "beginner",
  width: 9,
  height: 9,
  mines: 10,
  first_click: "safe",
  forced_guess: "survive",
  outside_guess: false,
  question_marks: true,
  debug: false,
};

const KEYS = {
  settings: "kaboom.settings",
  tokens: "kaboom.player-tokens",
  stats: "kaboom.stats",
  own: "kaboom.own-games",
  counted: "kaboom.counted-games",
};
const REMEMBERED_GAMES = 500;

function read(key, fallback) {
  try {
    const text = localStorage.getItem(key);
    return text === null ? fallback : JSON.parse(text);
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // storage full or disabled: the page still works, it just forgets
  }
}

/** The saved new-game settings, with defaults for anything missing. */
export function loadSettings() {
  return { ...DEFAULT_SETTINGS, ...read(KEYS.settings, {}) };
}

/** Saves the new-game settings. */
export function saveSettings(settings) {
  write(KEYS.settings, settings);
}

/** The preset key whose size and mine count the game has, or null for a custom game. */
export function presetOf({ width, height, mines }) {
  for (const [key, p] of Object.entries(PRESETS)) {
    if (p.width === width && p.height === height && p.mines === mines) return key;
  }
  return null;
}

function remember(key, id) {
  const ids = read(key, []);
  if (ids.includes(id)) return false;
  ids.push(id);
  write(key, ids.slice(-REMEMBERED_GAMES));
  return true;
}

/** Keeps the player token of a game this browser plays (moves need it). */
export function saveToken(id, token) {
  const tokens = read(KEYS.tokens, {});
  delete tokens[id]; // re-inserted last: the oldest are dropped first
  tokens[id] = token;
  const ids = Object.keys(tokens);
  for (const old of ids.slice(0, Math.max(0, ids.length - REMEMBERED_GAMES))) delete tokens[old];
  write(KEYS.tokens, tokens);
}

/** The player token of a game, or null when this browser only watches it. */
export function tokenOf(id) {
  return read(KEYS.tokens, {})[id] ?? null;
}

/** Notes that this browser started the game (so its result may count). */
export function ownGame(id) {
  remember(KEYS.own, id);
}

/** Statistics per preset: {played, won, best_ms}. */
export function loadStats() {
  const stats = read(KEYS.stats, {});
  const out = {};
  for (const key of Object.keys(PRESETS)) {
    out[key] = { played: 0, won: 0, best_ms: null, ...(stats[key] ?? {}) };
  }
  return out;
}

/**
 * Counts a finished game once, if it is a preset, unassisted, and started by this browser.
 * Returns true when the statistics changed.
 */
export function recordResult(game) {
  if (game.status === "playing" || game.assisted) return false;
  const preset = presetOf(game);
  if (!preset || !read(KEYS.own, []).includes(game.id)) return false;
  if (!remember(KEYS.counted, game.id)) return false;
  const stats = loadStats();
  const entry = stats[preset];
  entry.played += 1;
  if (game.status === "won") {
    entry.won += 1;
    if (entry.best_ms === null || game.elapsed_ms < entry.best_ms) entry.best_ms = game.elapsed_ms;
  }
  write(KEYS.stats, stats);
  return true;
}

/** The preset's label when the game is that preset's best counted time, else null. */
export function bestOf(game) {
  if (game.status !== "won" || game.assisted) return null;
  const preset = presetOf(game);
  if (!preset || !read(KEYS.counted, []).includes(game.id)) return null;
  return loadStats()[preset].best_ms === game.elapsed_ms ? PRESETS[preset].label : null;
}

/** Forgets all statistics. */
export function resetStats() {
  write(KEYS.stats, {});
}
