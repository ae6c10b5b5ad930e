/* Tally squares of five ("porotos"): four sides, then the diagonal; malas and buenas split at 15. */
"use strict";

const Tally = (() => {
  const NS = "http://www.w3.org/2000/svg";
  // a narrow margin (room for half a stroke): the squares take the width, which is what bounds them
  const SIZE = 80, GAP = 25, LEFT = 7, PER_ROW = 3, GAP_SPLIT = 72;

  function el(name, attrs, text) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text) node.textContent = text;
    return node;
  }

  /* The strokes of one square holding `n` points (0..5), as [x1, y1, x2, y2]. */
  function strokes(x, y, n) {
    const all = [
      [x, y, x, y + SIZE],               // left
      [x, y, x + SIZE, y],               // top
      [x + SIZE, y, x + SIZE, y + SIZE], // right
      [x, y + SIZE, x + SIZE, y + SIZE], // bottom
      [x, y + SIZE, x + SIZE, y],        // diagonal
    ];
    return all.slice(0, Math.max(0, Math.min(5, n)));
  }

  function drawRow(svg, first, count, y, score) {
    for (let i = 0; i < count; i++) {
      const square = first + i;
      const x = LEFT + i * (SIZE + GAP);
      svg.appendChild(el("rect", { class: "guide", x, y, width: SIZE, height: SIZE, rx: 6 }));
      for (const [x1, y1, x2, y2] of strokes(x, y, score - square * 5)) {
        svg.appendChild(el("line", { class: "stroke", x1, y1, x2, y2 }));
      }
    }
  }

  /* Draw `score` points of a game to `target` (15 or 30) into an <svg>. */
  function draw(svg, score, target) {
    const squares = Math.max(1, Math.ceil((target || 30) / 5));
    const rows = Math.ceil(squares / PER_ROW);
    const split = target === 30;
    const width = LEFT * 2 + PER_ROW * SIZE + (PER_ROW - 1) * GAP;
    // at 30 the gap between malas and buenas holds the two labels, big enough to read on a phone
    const rowStep = SIZE + (split ? GAP_SPLIT : 24);
    const top = split ? 26 : 12;
    const height = top + (rows - 1) * rowStep + SIZE + (split ? 8 : 12);
    svg.replaceChildren();
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("aria-label", `${score} ${score === 1 ? "poroto" : "porotos"} de ${target}`);
    svg.dataset.points = String(score);
    const clamped = Math.max(0, Math.min(score, target || 30));
    for (let r = 0; r < rows; r++) {
      const y = top + r * rowStep;
      if (split && r === 1) {
        const lineY = y - GAP_SPLIT / 2;
        svg.appendChild(el("line", { class: "divider", x1: 4, y1: lineY, x2: width - 4, y2: lineY }));
        svg.appendChild(el("text", { class: "label", x: LEFT, y: lineY - 8 }, "MALAS ▲"));
        svg.appendChild(el("text", { class: "label", x: LEFT, y: lineY + 8, "dominant-baseline": "hanging" }, "BUENAS ▼"));
      }
      drawRow(svg, r * PER_ROW, Math.min(PER_ROW, squares - r * PER_ROW), y, clamped);
    }
  }

  return { draw, strokes };
})();
