// The board's DOM: one element per cell, patched in place. A move touches only the cells whose
// character changed (compared row string by row string), so a reveal on a 100x100 board costs
// as many DOM writes as cells it opened, never a rebuild.

const WORDS = {
  "#": "covered",
  F: "flagged",
  "?": "question mark",
  0: "no mines around",
  X: "the mine that exploded",
  "*": "a mine",
  "!": "a wrong flag",
};
const KNOWLEDGE_WORDS = { s: "safe", m: "mine", u: "unknown" };

const COVERED = new Set(["#", "F", "?"]);

/** True for the board characters of covered cells. */
export const isCovered = (ch) => COVERED.has(ch);

/** Formats a probability in [0, 1] as a percentage for people. */
export function percent(p) {
  const value = p * 100;
  if (value === 0 || value === 100) return `${value} %`;
  return `${value.toFixed(value < 1 || value > 99 ? 2 : 1)} %`;
}

/** A cell's name for screen readers: "row 3, column 5: 2" (counted from 0, as on the page). */
function label(x, y, ch, knowledge, p) {
  const words = WORDS[ch] ?? ch;
  let text = `row ${y}, column ${x}: ${words}`;
  if (knowledge) text += `, ${KNOWLEDGE_WORDS[knowledge]}`;
  if (p !== undefined && p !== null) text += `, ${percent(p)} mine`;
  return text;
}

export class Board {
  /** Wraps the `#board` element. */
  constructor(el) {
    this.el = el;
    this.width = 0;
    this.height = 0;
    this.rows = [];
    this.cells = [];
    this.cursor = { x: 0, y: 0 };
    this.proof = null;
    this.knowing = false;
    this.marked = [];
  }

  /** Builds the cells for a board of the given size from scratch (a new game only). */
  build(rows) {
    const height = rows.length;
    const width = rows[0].length;
    const parts = [];
    for (let y = 0; y < height; y++) {
      parts.push('<div role="row">');
      const row = rows[y];
      for (let x = 0; x < width; x++) {
        const ch = row[x];
        parts.push(
          `<div class="c" role="gridcell" data-x="${x}" data-y="${y}" data-state="${escapeAttr(ch)}" aria-label="${escapeAttr(label(x, y, ch))}"></div>`,
        );
      }
      parts.push("</div>");
    }
    this.el.style.setProperty("--w", width);
    this.el.style.setProperty("--h", height);
    this.el.innerHTML = parts.join("");
    this.el.setAttribute("aria-rowcount", height);
    this.el.setAttribute("aria-colcount", width);
    this.cells = Array.from(this.el.getElementsByClassName("c"));
    this.width = width;
    this.height = height;
    this.rows = rows.slice();
    this.proof = null;
    this.knowing = false;
    this.marked = [];
    const { x, y } = this.cursor;
    this.setCursor(Math.min(x, width - 1), Math.min(y, height - 1), false);
  }

  /** Removes every cell (no game to show). */
  clear() {
    this.el.replaceChildren();
    this.cells = [];
    this.rows = [];
    this.width = 0;
    this.height = 0;
    this.proof = null;
    this.knowing = false;
    this.marked = [];
    this.el.removeAttribute("aria-activedescendant");
  }

  /** Patches the cells whose character changed; returns how many did. */
  update(rows) {
    if (rows.length !== this.height || rows[0].length !== this.width) {
      this.build(rows);
      return this.width * this.height;
    }
    let changed = 0;
    for (let y = 0; y < this.height; y++) {
      const before = this.rows[y];
      const after = rows[y];
      if (before === after) continue;
      for (let x = 0; x < this.width; x++) {
        const ch = after[x];
        if (before[x] === ch) continue;
        const cell = this.cells[y * this.width + x];
        cell.dataset.state = ch;
        if (this.knowing && !isCovered(ch)) this.#forget(cell);
        cell.setAttribute("aria-label", label(x, y, ch, cell.dataset.knowledge, this.#p(cell)));
        changed++;
      }
    }
    this.rows = rows.slice();
    return changed;
  }

  /** The cell element at (x, y). */
  cell(x, y) {
    return this.cells[y * this.width + x];
  }

  /** The board character at (x, y). */
  char(x, y) {
    return this.rows[y][x];
  }

  /** The (x, y) of the cell element an event happened on, or null. */
  at(target) {
    const cell = target instanceof Element ? target.closest(".c") : null;
    if (!cell || !this.el.contains(cell)) return null;
    return { x: Number(cell.dataset.x), y: Number(cell.dataset.y) };
  }

  /** The (x, y) cells around (x, y), inside the board. */
  neighbours(x, y) {
    const out = [];
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const nx = x + dx;
        const ny = y + dy;
        if ((dx || dy) && nx >= 0 && ny >= 0 && nx < this.width && ny < this.height) out.push([nx, ny]);
      }
    }
    return out;
  }

  /** Shows the solver's view: `status` rows (s/m/u on covered cells) and probability rows. */
  setKnowledge(status, probability) {
    for (let y = 0; y < this.height; y++) {
      const srow = status[y];
      const prow = probability ? probability[y] : null;
      for (let x = 0; x < this.width; x++) {
        const cell = this.cells[y * this.width + x];
        const ch = this.rows[y][x];
        const k = srow[x];
        if (!isCovered(ch) || !(k in KNOWLEDGE_WORDS)) {
          if (cell.dataset.knowledge) this.#forget(cell);
          continue;
        }
        const p = prow ? prow[x] : null;
        if (cell.dataset.knowledge !== k) cell.dataset.knowledge = k;
        if (p === null || p === undefined) {
          cell.style.removeProperty("--p");
          delete cell.dataset.p;
          cell.title = `(${x}, ${y}) ${KNOWLEDGE_WORDS[k]}`;
        } else {
          cell.style.setProperty("--p", p);
          cell.dataset.p = p;
          cell.title = `(${x}, ${y}) ${KNOWLEDGE_WORDS[k]}: ${percent(p)} mine`;
        }
        cell.setAttribute("aria-label", label(x, y, ch, k, p));
      }
    }
    this.knowing = true;
  }

  /** Removes the solver's view from every cell. */
  clearKnowledge() {
    if (!this.knowing) return;
    for (const cell of this.el.querySelectorAll(".c[data-knowledge]")) {
      this.#forget(cell);
      const x = Number(cell.dataset.x);
      const y = Number(cell.dataset.y);
      cell.setAttribute("aria-label", label(x, y, this.rows[y][x]));
    }
    this.knowing = false;
  }

  /** Highlights the cell that was provably safe when the player lost (null clears it). */
  setProof(xy) {
    if (this.proof) this.proof.classList.remove("proof");
    this.proof = null;
    if (!xy) return;
    this.proof = this.cell(xy.x, xy.y);
    this.proof.classList.add("proof");
  }

  /**
   * Outlines the open numbers a proof uses (class `reason`) and the cells it is about
   * (class `hint`, or `guess` for the best odds of a forced guess); `null` clears them.
   */
  mark({ numbers = [], cells = [], kind = "hint" } = {}) {
    for (const cell of this.marked) cell.classList.remove("reason", "hint", "guess");
    this.marked = [];
    const add = (xy, name) => {
      const cell = this.cell(xy.x, xy.y);
      if (!cell) return;
      cell.classList.add(name);
      this.marked.push(cell);
    };
    for (const xy of numbers) add(xy, "reason");
    for (const xy of cells) add(xy, kind);
  }

  /** Moves the keyboard cursor (the grid's active descendant). */
  setCursor(x, y, scroll = true) {
    const old = this.cells[this.cursor.y * this.width + this.cursor.x];
    if (old) {
      old.classList.remove("cursor");
      old.removeAttribute("id");
    }
    this.cursor = { x, y };
    const cell = this.cell(x, y);
    if (!cell) return;
    cell.classList.add("cursor");
    cell.id = "cursor-cell";
    this.el.setAttribute("aria-activedescendant", "cursor-cell");
    if (scroll) cell.scrollIntoView({ block: "nearest", inline: "nearest" });
    this.el.dispatchEvent(new CustomEvent("cursor", { detail: { x, y } }));
  }

  #forget(cell) {
    delete cell.dataset.knowledge;
    delete cell.dataset.p;
    cell.style.removeProperty("--p");
    cell.removeAttribute("title");
  }

  #p(cell) {
    return cell.dataset.p === undefined ? null : Number(cell.dataset.p);
  }
}

function escapeAttr(text) {
  return String(text).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}
