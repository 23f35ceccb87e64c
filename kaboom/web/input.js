// Mouse, touch and keyboard on the board, turned into four intents: primary (reveal, or chord
// on a number), mark, chord, and cursor moves. Which button did what is the only state here.

const LONG_PRESS_MS = 450;
const TOUCH_SLOP_PX = 10;

/**
 * Wires the board's events. `actions` has primary(x, y), mark(x, y), chord(x, y),
 * newGame(), undo() and pressing(bool) (for the face).
 */
export function attachInput(board, actions) {
  const el = board.el;
  let bothDown = false; // left and right held together: chord on release
  let swallowClick = false; // the click after a both-buttons chord or a long press
  let touch = null; // {x, y, timer, startX, startY, fired}

  el.addEventListener("mousedown", (event) => {
    const xy = board.at(event.target);
    if (!xy) return;
    if (event.button === 1) event.preventDefault(); // no autoscroll
    if ((event.buttons & 3) === 3) bothDown = true;
    if (event.button === 0 || bothDown) actions.pressing(true);
    el.classList.remove("kbd");
    board.setCursor(xy.x, xy.y, false);
  });

  el.addEventListener("mouseup", (event) => {
    if (!bothDown) {
      actions.pressing(false);
      return;
    }
    if ((event.buttons & 3) !== 0) return; // wait for the other button
    bothDown = false;
    actions.pressing(false);
    if (event.button === 0) swallowClick = true; // a click event follows a left release
    const xy = board.at(event.target);
    if (xy) actions.chord(xy.x, xy.y);
  });

  el.addEventListener("mouseleave", () => actions.pressing(false));

  el.addEventListener("click", (event) => {
    if (swallowClick || bothDown || touch?.fired) {
      swallowClick = false;
      return;
    }
    const xy = board.at(event.target);
    if (xy) actions.primary(xy.x, xy.y);
  });

  el.addEventListener("auxclick", (event) => {
    if (event.button !== 1) return;
    const xy = board.at(event.target);
    if (xy) actions.chord(xy.x, xy.y);
  });

  el.addEventListener("contextmenu", (event) => {
    event.preventDefault();
    if (touch || bothDown || event.buttons & 1) return; // touch marks by long press
    const xy = board.at(event.target);
    if (xy) actions.mark(xy.x, xy.y);
  });

  // Touch: a long press marks, a tap reveals (through the click event).
  el.addEventListener("pointerdown", (event) => {
    if (event.pointerType !== "touch") {
      touch = null;
      return;
    }
    const xy = board.at(event.target);
    if (!xy) return;
    clearTimeout(touch?.timer);
    touch = { ...xy, startX: event.clientX, startY: event.clientY, fired: false };
    touch.timer = setTimeout(() => {
      touch.fired = true;
      navigator.vibrate?.(30);
      actions.mark(touch.x, touch.y);
    }, LONG_PRESS_MS);
  });
  el.addEventListener("pointermove", (event) => {
    if (!touch || touch.fired) return;
    if (Math.hypot(event.clientX - touch.startX, event.clientY - touch.startY) > TOUCH_SLOP_PX) {
      clearTimeout(touch.timer);
      touch = null; // a scroll, not a press
    }
  });
  for (const type of ["pointerup", "pointercancel"]) {
    el.addEventListener(type, (event) => {
      if (event.pointerType !== "touch" || !touch) return;
      clearTimeout(touch.timer);
      if (!touch.fired) touch = null;
      // a fired long press stays until its click has been swallowed
      else setTimeout(() => (touch = null), 400);
    });
  }

  el.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const { x, y } = board.cursor;
    const moves = {
      ArrowLeft: [-1, 0],
      ArrowRight: [1, 0],
      ArrowUp: [0, -1],
      ArrowDown: [0, 1],
    };
    let handled = true;
    if (event.key in moves) {
      const [dx, dy] = moves[event.key];
      const step = event.shiftKey ? 5 : 1;
      const nx = Math.max(0, Math.min(board.width - 1, x + dx * step));
      const ny = Math.max(0, Math.min(board.height - 1, y + dy * step));
      board.setCursor(nx, ny);
    } else if (event.key === "Home") {
      board.setCursor(0, y);
    } else if (event.key === "End") {
      board.setCursor(board.width - 1, y);
    } else if (event.key === " " || event.key === "Enter") {
      actions.primary(x, y);
    } else if (event.key === "f" || event.key === "F") {
      actions.mark(x, y);
    } else if (event.key === "c" || event.key === "C") {
      actions.chord(x, y);
    } else {
      handled = false;
    }
    if (handled) {
      event.preventDefault();
      el.classList.add("kbd");
    }
  });

  // N, U and H work anywhere on the page except while typing in a form field.
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
    if (event.target instanceof Element && event.target.closest("input, select, textarea")) return;
    if (event.key === "n" || event.key === "N") {
      event.preventDefault();
      actions.newGame();
    } else if (event.key === "u" || event.key === "U") {
      event.preventDefault();
      actions.undo();
    } else if (event.key === "h" || event.key === "H") {
      event.preventDefault();
      actions.hint();
    }
  });
}
