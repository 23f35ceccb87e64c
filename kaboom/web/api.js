// The JSON API (docs/api.md; live: /docs), wrapped in small async functions.
// Every answer is parsed by parseGame so the 63-bit seed survives: JavaScript numbers hold
// only 53 bits, so the seed is also kept as the digits the server sent.  Requests that
// change a game carry its player token, which this browser keeps (store.js).

import { tokenOf } from "./store.js";

/** The server's `detail` in words: a string, or FastAPI's list of validation errors. */
export function detailText(detail) {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) return detail.map(validationText).join("; ");
  return JSON.stringify(detail);
}

/** One FastAPI validation error, with the field it is about: "seed: Input should be ...". */
function validationText(error) {
  if (!error?.msg) return JSON.stringify(error);
  const names = Array.isArray(error.loc) ? error.loc.filter((part) => typeof part === "string") : [];
  const field = names.filter((part) => part !== "body").join(".");
  return field ? `${field}: ${error.msg}` : error.msg;
}

export class ApiError extends Error {
  /** An HTTP error answer; `detail` is the server's explanation. */
  constructor(status, detail) {
    super(detailText(detail));
    this.status = status;
    this.detail = detail;
  }
}

/** No answer at all: the server is down or unreachable. */
export class NetworkError extends Error {}

/** Why a request failed, in words: the server's reason, or that it did not answer. */
export function errorText(error) {
  if (error instanceof NetworkError) return "the server did not answer (is kaboom serve running?)";
  return error.message;
}

/** Parses a game answer, keeping `seed` exact as the string `seedText`. */
export function parseGame(text) {
  const game = JSON.parse(text);
  const match = /"seed"\s*:\s*(\d+)/.exec(text);
  game.seedText = match ? match[1] : null; // null while a server-drawn seed is secret
  return game;
}

async function call(method, path, { body, signal, player } = {}) {
  const init = { method, signal, headers: { Accept: "application/json" } };
  const token = player ? tokenOf(player) : null;
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = body;
  }
  let response;
  let text;
  try {
    response = await fetch(path, init);
    text = await response.text();
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new NetworkError(error.message);
  }
  if (!response.ok) throw new ApiError(response.status, errorDetail(response, text));
  return text;
}

/** The `detail` of an error answer; a proxy's HTML page becomes "HTTP 502 Bad Gateway". */
export function errorDetail({ status, statusText }, text) {
  try {
    const detail = JSON.parse(text).detail;
    if (detail !== undefined && detail !== null) return detail;
  } catch {
    // not JSON (a proxy's error page, say): the status says more than the markup
  }
  return `HTTP ${status}${statusText ? ` ${statusText}` : ""}`;
}

const gamePath = (id) => `/api/games/${encodeURIComponent(id)}`;

/** Fetches a game. */
export async function getGame(id) {
  return parseGame(await call("GET", gamePath(id)));
}

/** Waits (long poll) until the game's move count differs from `moves`, or the timeout. */
export async function waitGame(id, moves, signal, timeout = 25) {
  return parseGame(await call("GET", `${gamePath(id)}?wait_moves=${moves}&timeout=${timeout}`, { signal }));
}

/** Plays a move: `kind` is reveal, flag or chord. */
export async function move(id, kind, x, y) {
  const body = JSON.stringify({ x, y });
  return parseGame(await call("POST", `${gamePath(id)}/${kind}`, { body, player: id }));
}

/** Takes back the last move (after a loss, or in a debug game). */
export async function undo(id) {
  return parseGame(await call("POST", `${gamePath(id)}/undo`, { player: id }));
}

/** Every covered cell's status (s/m/u) and mine probability; marks the game assisted. */
export async function analysis(id) {
  return JSON.parse(await call("GET", `${gamePath(id)}/analysis`, { player: id }));
}

/** Why a covered cell is safe or a mine (during a game this marks it assisted). */
export async function proof(id, x, y) {
  return JSON.parse(await call("GET", `${gamePath(id)}/proof?x=${x}&y=${y}`, { player: id }));
}

/** A proven safe cell with its proof, or the best odds of a forced guess; marks it assisted. */
export async function hint(id) {
  return JSON.parse(await call("GET", `${gamePath(id)}/hint`, { player: id }));
}

/** The most moves a replay page holds (the server's `PAGE_MAX`). */
const REPLAY_PAGE = 1000;

/** The replay of a finished game as the viewer has it (`{ id, version, moves }`), its
 * last page first, for a viewer that starts at the end and steps back: yields
 * `{ offset, moves }` (moves `offset` on, each with its cells [x, y, before, after]) down
 * to offset 0. Every page must be of that version: an undo and more play since would join
 * two histories, so a page of another version ends it with an error. */
export async function* replayBackwards({ id, version, moves: total }) {
  for (let end = total; end > 0; ) {
    const offset = Math.max(0, end - REPLAY_PAGE);
    const page = JSON.parse(await call("GET", `${gamePath(id)}/replay?offset=${offset}&limit=${end - offset}`));
    if (page.version !== version) {
      throw new Error("the game changed while its replay was read; reload to see the new one");
    }
    yield { offset, moves: page.moves };
    end = offset;
  }
}
