/* The strip of what the referee heard («Oído»): each item with its line, or why it was not written
   down, with its sound or picture and the taps that confirm, dismiss or change it. */
"use strict";

const HeardStrip = (() => {
  const $ = (sel) => document.querySelector(sel);
  const { esc, tag, logText, note, named, reason } = Words;

  // What became of a heard item's line, when the server gave no reason: «anotado» only once it
  // was written down; a doubtful one asks, beside its «Confirmar».
  const LINE_WORDS = { accepted: "anotado", unsure: "¿anotar?", undone: "deshecho" };

  function heard(snap) {
    const items = snap.heard || [];
    const icons = { accepted: "✔", unsure: "?", late: "?", rejected: "✖", undone: "↶", kept: "🔊" };
    // the newest call applied by voice, if it is the last line: the longer calls it may have ended
    const last = items.find((h) => h.status === "accepted" && h.line && h.line === snap.last_line);
    $("#heard-list").innerHTML = items.map((h) => {
      const status = heardStatus(h);
      const line = h.line ? logText(snap, h.line) : "";
      const changed = h.extra && h.extra.changed ? " (cambiado a mano)" : "";  // flip, seat or swap
      const kept = status === "kept";  // the table's sound a tablet heard again and kept
      // one whose hand (or game) is over says so instead of «tocá para confirmar»
      const why = status === "late" ? note(snap, h.late) : h.reason ? reason(snap, h.reason) :
        line ? esc(`${LINE_WORDS[status] || "no anotado"}: ${line}${changed}`) : kept ? "guardado a mano con la partida" : "";
      const seen = Boolean(h.extra && h.extra.seen);  // what the camera saw, with its picture
      const said = seen ? named(snap, h.text) : kept ? h.text ?? "" : `«${h.text ?? ""}»`;
      const play = !h.clip_id ? "" : seen ?
        `<button class="btn" type="button" data-picture="${esc(h.clip_id)}" aria-label="${esc(`Ver la foto: ${said}`)}">Foto</button>` :
        `<button class="btn" type="button" data-clip="${esc(h.clip_id)}" aria-label="${esc(`Escuchar ${said}`)}">▶</button>`;
      // one that waits for another is read again when confirmed: its line so far may not stand
      const sure = line && !(h.extra && h.extra.after != null) ? ` (${line})` : "";
      const confirm = status === "unsure" ?
        `<button class="btn" type="button" data-confirm="${esc(h.id)}" aria-label="${esc(`Confirmar ${said}${sure}`)}">Confirmar</button>` : "";
      const dismiss = ["unsure", "late"].includes(status) ?
        `<button class="btn" type="button" data-dismiss="${esc(h.id)}" aria-label="${esc(`Descartar ${said}`)}">✕</button>` : "";
      // the longer calls it may have been the end of («falta envido» for an «envido», «me voy al
      // mazo» for the look-alike «mazo»), under it
      const longer = (h.instead || []).length ? h.instead.map((call) =>
        `<button class="btn" type="button" data-confirm-as="${esc(call)}" data-heard-id="${esc(h.id)}">Era «${esc(call)}»</button>`) :
        h === last ? (snap.longer_than_last || []).map((call) =>
          `<button class="btn" type="button" data-swap-to="${esc(call)}">⇄ Era «${esc(call)}»</button>`) : [];
      const instead = longer.length ? `<span class="instead">${longer.join("")}</span>` : "";
      const team = h.team ? `${tag(snap, h.team)} ` : "";
      return `<li class="chip ${status}" data-heard="${esc(h.id)}"><span class="icon" aria-hidden="true">${icons[status]}</span>` +
        `<span class="what">${team}<span class="said">${esc(said)}</span><br><span class="why">${why}</span>${instead}</span>` +
        `${confirm}${dismiss}${play}</li>`;
    }).join("");
  }

  /* How a heard item shows: a doubtful one the server says can no longer be confirmed (``late``:
     its hand or the game is over, a tap would be refused) is «late», with no «Confirmar». */
  function heardStatus(h) {
    if (h.status === "unsure" && h.late) return "late";
    return ["accepted", "unsure", "rejected", "undone", "kept"].includes(h.status) ? h.status : "rejected";
  }

  return { draw: heard, status: heardStatus };
})();
