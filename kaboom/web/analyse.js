// The analyser's keys (the server draws and edits the position): arrows move the focus over the
// cells, 0-8, F and # set the focused one, ? shows why; the focus comes back after each redraw.
let focused = "";
document.addEventListener("keydown", (e) => {
  const cell = e.target.closest?.("#analyse-board .c"), key = e.key.toUpperCase();
  if (!cell || e.altKey || e.ctrlKey || e.metaKey) return;
  const [x, y] = cell.value.split(",").map(Number);
  const d = { ARROWLEFT: [-1, 0], ARROWRIGHT: [1, 0], ARROWUP: [0, -1], ARROWDOWN: [0, 1] }[key];
  const tool = key === "?" ? "why" : /^[0-8F#]$/.test(key) ? key : "";
  if (d) document.querySelector(`#analyse-board [value="${x + d[0]},${y + d[1]}"]`)?.focus();
  else if (tool) { document.querySelector(`[name=tool][value="${tool}"]`).checked = true; cell.click(); }
  else return;
  e.preventDefault();
});
document.addEventListener("focusin", (e) => { focused = e.target.closest?.("#analyse-board .c")?.value ?? ""; });
document.addEventListener("htmx:afterSwap", () => focused && document.querySelector(`#analyse-board [value="${focused}"]`)?.focus());
