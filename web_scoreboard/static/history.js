/* The history dialog's contents: the game's hands, how the voice did, and its log with what each
   line was applied from; and the wins of the past games listed in «Ajustes». */
"use strict";

const HistoryTable = (() => {
  const { esc, tag, seatTag, logText, note, named } = Words;
  const heardStatus = HeardStrip.status;

  const HIST_COLUMNS = ["#", "Mano", "Envido", "Flor", "Truco", "A mano", "Por qué"];
  const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0");

  /* A hand's points of one kind as they were scored when it was played: without those the end
     of the game had left out and a later line gave back (``later``: the hand's
     ``scored_later``), said with that line instead. */
  function pointsCell(snap, points, kind, later = []) {
    const byTeam = { ...((points || {})[kind] || {}) };
    for (const item of later) if (item.category === kind) byTeam[item.team] -= item.points;
    return ["A", "B"].filter((t) => byTeam[t]).map((t) => `${tag(snap, t)} +${esc(byTeam[t])}`).join(" · ") || "—";
  }

  /* Manual corrections (``points A +2``) by hand number (0 = before the first deal), each as
     [team, points, its line's place in the log]; ``log`` from its start. */
  function corrections(log) {
    const byHand = {};
    let hand = 0;
    (log || []).forEach((line, at) => {
      if (line === "hand") hand += 1;
      const m = /^points ([AB]) ([+-]\d+)$/.exec(line);
      if (m) (byHand[hand] = byHand[hand] || []).push([m[1], Number(m[2]), at]);
    });
    return byHand;
  }

  const LEFT_OUT = "se anotan los puntos que la partida había dejado afuera";  // as replay.py says it

  /* «se anotan los puntos que la partida había dejado afuera: truco Ellos +2», the points a line gave
     back (as ``truco-referee replay`` says them). */
  function givenBack(snap, items) {
    return `<span class="later">${LEFT_OUT}: ${items.map((i) =>
      `${esc(i.category)} ${tag(snap, i.team)} +${esc(i.points)}`).join(", ")}</span>`;
  }

  /* The corrections of one hand, summed by team: «Ellos +2 (+1 +1)»; then what those that took
     the game back under the target gave back (``later``: by the line's place in the log). */
  function correctionCell(snap, list, later = {}) {
    const byTeam = {};
    for (const [team, n] of list || []) (byTeam[team] = byTeam[team] || []).push(n);
    const sums = Object.entries(byTeam).map(([team, all]) => {
      const detail = all.length > 1 ? ` <span class="muted">(${all.map(signed).join(" ")})</span>` : "";
      return `${tag(snap, team)} ${signed(all.reduce((a, b) => a + b, 0))}${detail}`;
    });
    const back = (list || []).filter(([, , at]) => later[at]).map(([, , at]) => givenBack(snap, later[at]));
    return [...sums, ...back].join(" · ") || "—";
  }

  /* The points a hand got back from a line not in the «A mano» column (a false show; or any,
     when the log shown does not start at its start): «tras la muestra de Juan, se anotan …». */
  function laterNote(snap, line, items) {
    const shows = /^([AB][1-3]) (shows|muestra)\b/.exec(line || "");
    const after = shows ? `tras la muestra de ${seatTag(snap, shows[1])}` :
      line ? `tras «${esc(logText(snap, line))}»` : "más tarde";
    return `${after}, ${givenBack(snap, items)}`;
  }

  /* A history row from [html, class] cells; each names its column, shown when the rows stack. */
  function histRow(cells) {
    return `<tr>${cells.map(([html, cls = ""], i) => {
      const empty = html === "—" || html === "" ? " empty" : "";
      return `<td class="${cls}${empty}" data-label="${HIST_COLUMNS[i]}">${html}</td>`;
    }).join("")}</tr>`;
  }

  /* A hand's row: its points as scored then, its corrections and what they gave back (``later``:
     every hand's ``scored_later`` by the line's place in the log), and why, then what a line
     not among its corrections gave it back (``lineAt``: a line of the log by its place, or
     undefined when not shown). */
  function handRow(snap, h, fixes, later, lineAt) {
    const mano = h.mano ? seatTag(snap, h.mano) : h.pica_pica ? "pica-pica" : "—";
    const fixed = new Set((fixes || []).map(([, , at]) => at));
    const elsewhere = {};
    for (const item of h.scored_later || []) {
      if (!fixed.has(item.event)) (elsewhere[item.event] = elsewhere[item.event] || []).push(item);
    }
    const notes = [...(h.notes || []).map((n) => note(snap, n)),
      ...Object.entries(elsewhere).map(([at, items]) => laterNote(snap, lineAt(Number(at)), items))];
    return histRow([
      [esc(h.number)], [mano],
      ...["envido", "flor", "truco"].map((k) => [pointsCell(snap, h.points, k, h.scored_later), "pts"]),
      [correctionCell(snap, fixes, later), "pts"],
      [notes.join("<br>"), "notes"],
    ]);
  }

  /* What a log line was applied from, to play or see beside it: the voice's clip, the camera's
     picture. */
  function lineEvidence(snap, found) {
    if (!found) return "";
    const label = found.seen ? `Ver la foto: ${named(snap, found.text)}` : `Escuchar «${found.text}»`;
    const kind = found.seen ? "picture" : "clip";
    return ` <button class="btn mini" type="button" data-${kind}="${esc(found.clip_id)}" aria-label="${esc(label)}">${found.seen ? "Foto" : "▶"}</button>`;
  }

  /* How the voice did in the game, from ``GET /api/heard/history``'s tally: [singular, plural]. */
  const TALLY_WORDS = [
    ["alone", "anotado como se oyó", "anotados como se oyeron"],
    ["confirmed", "confirmado con un toque", "confirmados con un toque"],
    ["changed", "cambiado a mano", "cambiados a mano"],
    ["undone", "deshecho", "deshechos"],
    ["dismissed", "descartado a mano", "descartados a mano"],
    ["refused", "rechazado (parecido o fuera de regla)", "rechazados (parecidos o fuera de regla)"],
    ["late", "dudoso que ya no se puede confirmar", "dudosos que ya no se pueden confirmar"],
    ["waiting", "esperando un toque", "esperando un toque"],
  ];

  /* The server's tally counts every doubtful item as ``waiting``; those of a hand (or a game)
     that is over can no longer be confirmed (``late``, as the notice at the top counts them):
     they wait for no tap.  Those still waiting are among the latest heard (``heard``, the
     snapshot's when the tally was asked for). */
  function voiceTally(heard, counted) {
    const live = heard.filter((h) => heardStatus(h) === "unsure").length;
    const waiting = Math.min(counted.waiting || 0, live);
    const tally = { ...counted, waiting, late: (counted.waiting || 0) - waiting };
    const parts = TALLY_WORDS.filter(([key]) => tally[key]).map(([key, one, many]) =>
      `${esc(tally[key])} ${tally[key] === 1 ? one : many}`);
    return parts.length ? `<p class="tally-voice"><strong>Lo que oyó el árbitro:</strong> ${parts.join(" · ")}</p>` : "";
  }

  /* The game's hands, how the voice did, then its log, each line applied by the voice or the
     camera with what it was applied from (``heard.lines``, by the line's place in the whole log;
     ``heard.tally``: ``GET /api/heard/history``; ``heard.heard``: the heard items shown then). */
  function history(snap, heard = { lines: {}, tally: {}, heard: [] }) {
    const shown = snap.log || [];  // the last lines of the log, of ``total``
    const total = snap.log_total ?? shown.length;
    const fixes = total === shown.length ? corrections(shown) : {};  // hand numbers need the log from its start
    const hands = snap.hands || [];
    const from = total - shown.length;  // the first shown line's place in the log
    const lineAt = (at) => shown[at - from];
    const later = {};  // the points given back, by the place in the log of the line that did
    for (const h of hands) for (const item of h.scored_later || []) (later[item.event] = later[item.event] || []).push(item);
    const early = fixes[0] ? histRow([["—"], ["antes de repartir", "muted"], ["—"], ["—"], ["—"],
      [correctionCell(snap, fixes[0], later), "pts"], [""]]) : "";
    const rows = hands.map((h, i) => handRow(snap, h, fixes[h.number ?? i + 1], later, lineAt)).join("");
    const head = HIST_COLUMNS.map((c) => `<th scope="col">${c}</th>`).join("");
    const table = rows || early ? `<div class="hist-wrap"><table class="hist"><thead><tr>${head}</tr></thead>` +
      `<tbody>${early}${rows}</tbody></table></div>` :
      `<p class="muted">Todavía no se jugó ninguna mano.</p>`;
    const log = shown.map((l, i) => `<div>${esc(logText(snap, l))}${lineEvidence(snap, heard.lines[from + i])}</div>`).join("");
    const more = total > shown.length ? `<p class="muted">(últimos ${shown.length} de ${total})</p>` : "";
    return `${table}${voiceTally(heard.heard || [], heard.tally)}<h3>Registro de eventos</h3>${more}<div class="log">${log || "—"}</div>`;
  }

  /* Who won the finished games listed, by the name their team had: «Ganadas: Los Pibes 5 ·
     Las Chicas 3 (de 8 terminadas)»; "" before any has finished. */
  function wins(games) {
    const won = {};
    const over = games.filter((g) => g.winner);
    for (const g of over) {
      const name = (g.names || {})[g.winner] || g.winner;
      won[name] = (won[name] || 0) + 1;
    }
    const ranked = Object.entries(won).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0], "es"));
    return over.length ? `Ganadas: ${ranked.map(([name, n]) => `${esc(name)} ${n}`).join(" · ")} ` +
      `(de ${over.length} terminada${over.length === 1 ? "" : "s"})` : "";
  }

  return { draw: history, wins };
})();
