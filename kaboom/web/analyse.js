// The analyser's keys and pointer (the server draws and edits the position): arrows move the focus
// over the cells, 0-8, F and # set the focused one, ? shows why; hovering or focusing a decided cell
// asks for its proof, whose answer lists the cells to outline. The focus comes back after a redraw.
// A click while an edit is on its way waits for its answer: it must edit the position that comes back.
let focused = "", busy = false, explained = "";
const cellAt = (value) => document.querySelector(`#analyse-board [value="${value}"]`);
const waiting = [];
document.addEventListener("keydown", (e) => {
  const cell = e.target.closest?.("#analyse-board .c"), key = e.key.toUpperCase();
  if (!cell || e.altKey || e.ctrlKey || e.metaKey) return;
  const [x, y] = cell.value.split(",").map(Number);
  const d = { ARROWLEFT: [-1, 0], ARROWRIGHT: [1, 0], ARROWUP: [0, -1], ARROWDOWN: [0, 1] }[key];
  const tool = key === "?" ? "why" : /^[0-8F#]$/.test(key) ? key : "";
  if (d) cellAt(`${x + d[0]},${y + d[1]}`)?.focus();
  else if (tool) { document.querySelector(`[name=tool][value="${tool}"]`).checked = true; cell.click(); }
  else return;
  e.preventDefault();
});
document.addEventListener("click", (e) => {
  const cell = e.target.closest?.("#analyse-board .c");
  if (cell && busy) { waiting.push([cell.value, document.querySelector("[name=tool]:checked")]); e.preventDefault(); }
}, true);
function explain(e) {
  const cell = e.target.closest?.("#analyse-board .c[data-knowledge=s], #analyse-board .c[data-knowledge=m]");
  if (!cell || busy || cell.value === explained) return;
  const [x, y] = (explained = cell.value).split(",");
  htmx.ajax("GET", "/analyse/proof", { target: "#proof", swap: "innerHTML", values: { p: document.querySelector("[name=p]").value, x, y } }).catch(() => {});
}
document.addEventListener("mouseover", explain);
document.addEventListener("focusin", (e) => { focused = e.target.closest?.("#analyse-board .c")?.value ?? ""; explain(e); });
document.addEventListener("htmx:beforeRequest", () => { busy = true; });
document.addEventListener("htmx:afterSwap", (e) => {
  if (e.detail.target.id !== "proof") return (explained = "", focused && cellAt(focused)?.focus());
  document.querySelectorAll("#analyse-board :is(.reason, .hint, .guess)").forEach((c) => c.classList.remove("reason", "hint", "guess"));
  for (const [value, mark] of JSON.parse(e.detail.target.firstElementChild?.dataset.outline ?? "[]")) cellAt(value)?.classList.add(mark);
});
document.addEventListener("htmx:afterRequest", () => {
  busy = false;
  const [value, tool] = waiting.shift() ?? [];
  if (value) { tool.checked = true; cellAt(value)?.click(); }
});
