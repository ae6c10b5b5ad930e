/* The hand panel: the banner of what stops play or waits for an answer, the truco, the envido
   and the flor, the rounds, the points of the hand (render.js draws the rest of the board). */
"use strict";

const HandPanel = (() => {
  const STATUS = {
    pending: "¿quiero?", accepted: "querido", refused: "no querido",
    decided: "decidido", cancelled: "anulado", none: "",
  };
  const FLOR_STATUS = {  // «la flor»: open, sung and not answered yet
    ...STATUS, accepted: "querida", refused: "no querida", decided: "decidida", cancelled: "anulada", open: "cantada",
  };
  const TRUCO_NAMES = { 1: "sin cantar", 2: "truco", 3: "retruco", 4: "vale cuatro" };
  const $ = (sel) => document.querySelector(sel);
  const { esc, teamOf, teamName, seatName, tag, seatTag, card, note } = Words;

  function pendingOf(snap) {
    const hand = snap.hand || {};
    return hand.pending || snap.pending || null;
  }

  /* A chico won in a match: every call and card is refused until the next chico is dealt. */
  const chicoOver = (snap) => Boolean((snap.settings || {}).match && snap.chico_winner && !snap.winner);

  /* What stops play, first match wins: [main text, small text] for the banner. */
  const STOPS = [
    [(snap) => snap.winner, (snap) => [`Partida terminada: ganó ${teamName(snap, snap.winner)}`, ""]],
    [chicoOver, (snap) => [`Chico para ${teamName(snap, snap.chico_winner)}`,
      "tocá «Mano nueva (repartir)» para el próximo"]],
  ];
  const stopOf = (snap) => (STOPS.find(([when]) => when(snap)) || [])[1];

  /* A call waiting for its answer, or the points waiting to be said: [main text, small text]. */
  function pendingText(snap, p) {
    if (p.kind === "declare") {  // the seat whose turn it is to say its points
      const what = p.call === "flor" ? "de la flor" : "del envido";
      return [p.answer_by ? `Tantos ${what}: le toca a ${seatName(snap, p.answer_by)}` : `Tantos ${what}`, ""];
    }
    const text = p.banner || `¡${String(p.call || "").toUpperCase()}! — ¿quiero?`;
    return [text, p.answer_by ? `le toca contestar a ${teamName(snap, teamOf(p.answer_by))}` : ""];
  }

  function banner(snap) {
    const el = $("#banner");
    const stop = stopOf(snap);
    const p = pendingOf(snap);
    const [text, small] = stop ? stop(snap) : p ? pendingText(snap, p) : ["", ""];
    el.hidden = !text;
    el.innerHTML = text ? `${esc(text)}${small ? `<small>${esc(small)}</small>` : ""}` : "";
    el.classList.toggle("long", text.length > 22);
    el.classList.toggle("stop", Boolean(stop));
  }

  function trucoFact(snap, t) {
    if (!t) return "";
    const level = Number(t.level || 1);
    const value = t.value ?? level;
    if (t.pending) {
      const p = t.pending;
      return `<div class="fact" data-fact="truco"><b>Truco</b><span class="big">${esc(p.call)}</span>` +
        ` cantado por ${tag(snap, p.by)} · quiero ${esc(p.quiero ?? "?")} / no quiero ${esc(p.no_quiero ?? "?")}</div>`;
    }
    // a hand ended on a «no quiero» says so, not «sin cantar» or the level wanted before it
    const call = t.refused ? `${t.refused} no querido` : level > 1 ? `${t.call || TRUCO_NAMES[level]} querido` : "sin cantar";
    const holder = t.holder && !t.refused ? ` · el quiero es de ${tag(snap, t.holder)}` : "";
    return `<div class="fact" data-fact="truco"><b>Truco</b><span class="big">${esc(call)}</span>` +
      ` · vale ${esc(value)}${holder}</div>`;
  }

  function declarations(snap, list) {
    return (list || []).map((d) => `${seatTag(snap, d.seat)} ${d.points == null ? "son buenas" : esc(d.points)}`).join(" · ");
  }

  /* ``duel``: a seat of the pica-pica duel it belongs to, named by its buttons. */
  function envidoFact(snap, e, label, key, duel) {
    if (!e || ((!e.chain || !e.chain.length) && !(e.sung || []).length && (!e.status || e.status === "none"))) return "";
    const sung = (e.sung || []).length ? ` · cantaron: ${e.sung.map((s) => seatTag(snap, s)).join(", ")}` : "";
    const chain = (e.chain || []).join(" + ") || (sung ? "flor" : "");
    const status = e.status === "aside" ? `no se oyeron los tantos: ¿quién ${key === "flor" ? "la" : "lo"} ganó?`
      : (key === "flor" ? FLOR_STATUS : STATUS)[e.status] ?? esc(e.status || "");
    const stake = e.status === "pending" && e.quiero != null ?
      ` · quiero ${esc(e.quiero)}${e.no_quiero != null ? ` / no quiero ${esc(e.no_quiero)}` : ""}` : "";
    const decl = declarations(snap, e.declarations);
    const next = e.next_declarer ? ` · le toca a ${seatTag(snap, e.next_declarer)}` : "";
    const won = e.winner ? ` · para ${tag(snap, e.winner)}${e.points != null ? ` (+${esc(e.points)})` : ""}` : "";
    const settle = e.status === "aside" ? settleButtons(snap, duel) : "";
    return `<div class="fact${settle ? " warn" : ""}" data-fact="${key}"><b>${label}</b>${esc(chain)} ${status ? `· ${status}` : ""}` +
      `${sung}${stake}${decl ? `<br>${decl}` : ""}${next}${won}${settle}</div>`;
  }

  /* Contests of an earlier hand whose numbers were not heard.  «envido A» settles the hand in
     play's first (any duel's, in pica-pica), then the latest one set aside: only that one shows
     the buttons.  A pica-pica duel is told by its seats. */
  function asideFact(snap) {
    const open = ["accepted", "aside"];
    const here = [snap.hand || {}, ...(snap.duels || [])].some((h) =>
      open.includes((h.envido || {}).status) || open.includes((h.flor || {}).status));
    const list = snap.set_aside || [];
    return list.map((a, i) => asideBox(a.contest, ` de la mano ${esc(a.hand)}${duelName(snap, a.seats)}`, "",
      !here && i === list.length - 1 ? settleButtons(snap) : "")).join("") + duelsAsideFact(snap);
  }

  /* One contest whose numbers were not heard: «Envido de la mano 3 sin decidir…», with the
     buttons that settle it (``settle``, or none). */
  function asideBox(contest, whose, attrs, settle) {
    return `<div class="fact warn" data-fact="aside"${attrs}>` +
      `<b>${contest === "flor" ? "Flor" : "Envido"}${whose}</b> sin decidir: no se oyeron los tantos. ` +
      `¿Quién ${contest === "flor" ? "la" : "lo"} ganó?${settle}</div>`;
  }

  /* The other duels of the pica-pica hand in play whose numbers were not heard (the panel
     follows the first one still going): each with its own buttons, «envido A B1». */
  function duelsAsideFact(snap) {
    const followed = ((snap.hand || {}).seats || [])[0];
    return (snap.duels || []).filter((d) => (d.seats || [])[0] !== followed).map((d) => {
      const key = (d.flor || {}).status === "aside" ? "flor" : (d.envido || {}).status === "aside" ? "envido" : null;
      if (!key) return "";
      return asideBox(key, duelName(snap, d.seats), ` data-duel="${esc(d.seats[0])}"`, settleButtons(snap, d.seats[0]));
    }).join("");
  }

  /* « del duelo A1 – B2» for the seats of a pica-pica duel (fewer than the table's), else "". */
  function duelName(snap, seats) {
    const duel = (seats || []).length && seats.length < (snap.seats || []).length;
    return duel ? ` del duelo ${seats.map((s) => seatTag(snap, s)).join(" – ")}` : "";
  }

  /* «envido A», or «envido A B1» for the duel of B1 in pica-pica. */
  function settleButtons(snap, seat) {
    return `<span class="settle">` + ["A", "B"].map((t) => `<button class="btn team-${t.toLowerCase()}" ` +
      `type="button" data-line="envido ${t}${seat ? ` ${esc(seat)}` : ""}">${esc(teamName(snap, t))}</button>`).join("") + `</span>`;
  }

  function rounds(snap, list) {
    const cells = [0, 1, 2].map((i) => {
      const r = (list || [])[i] || {};
      const win = r.winner === "parda" ? "parda" : r.winner ? tag(snap, r.winner) : "—";
      const title = r.winner && r.winner !== "parda" ? ` title="${esc(teamName(snap, r.winner))}"` : "";
      const plays = (r.plays || []).map((p) => `${seatTag(snap, p.seat)}: ${card(p.card)}`).join("<br>");
      return `<div class="round" data-round="${i + 1}"><div class="r-title">${i + 1}ª</div>` +
        `<div class="r-win"${title}>${win}</div><div class="cards">${plays}</div></div>`;
    });
    return `<div class="rounds">${cells.join("")}</div>`;
  }

  function handPoints(snap, points) {
    if (!points) return "";
    const parts = [];
    for (const [kind, byTeam] of Object.entries(points)) {
      for (const team of ["A", "B"]) {
        if (byTeam && byTeam[team]) parts.push(`${esc(kind)}: ${tag(snap, team)} +${esc(byTeam[team])}`);
      }
    }
    return parts.length ? `<div class="fact" data-fact="points"><b>En esta mano</b>${parts.join(" · ")}</div>` : "";
  }

  /* A pica-pica hand is three duels; the panel follows the first one still going. */
  function duelsFact(snap) {
    const duels = snap.duels || [];
    if (!duels.length) return "";
    const parts = duels.map((d) => {
      const seats = (d.seats || []).map((s) => seatTag(snap, s)).join(" – ");
      const state = d.over ? `para ${tag(snap, d.winner)}` : `truco ${esc((d.truco || {}).value ?? 1)}`;
      return `${seats} <span class="muted">(${state})</span>`;
    });
    return `<div class="fact" data-fact="duels"><b>Pica-pica</b>${parts.join(" · ")}</div>`;
  }

  function hand(snap) {
    const h = snap.hand;
    banner(snap);
    if (!h) {  // the calls are refused until a hand is dealt: the way to deal, at hand
      $("#hand-head").innerHTML = "Sin mano en juego";
      $("#hand-body").innerHTML = snap.winner ? "" : `<div class="empty-hand">Para empezar, tocá ` +
        `<button class="btn primary" type="button" data-line="hand">Mano nueva (repartir)</button></div>`;
      return;
    }
    const turn = h.turn && !stopOf(snap) ? ` · <span class="muted">le toca jugar a</span> ${seatTag(snap, h.turn)}` : "";
    const over = h.over ? ` · <span class="muted">terminada${h.winner ? `, para</span> ${tag(snap, h.winner)}` : "</span>"}` : "";
    $("#hand-head").innerHTML = `Mano ${esc(h.number ?? "")} · <span class="muted">mano:</span> ` +
      `${seatTag(snap, h.mano)}${turn}${over}`;
    const duel = (snap.duels || []).length ? (h.seats || [])[0] : null;
    $("#hand-body").innerHTML = asideFact(snap) + duelsFact(snap) + trucoFact(snap, h.truco) +
      envidoFact(snap, h.envido, "Envido", "envido", duel) + envidoFact(snap, h.flor, "Flor", "flor", duel) +
      rounds(snap, h.rounds) + handPoints(snap, h.points) +
      ((h.notes || []).length ? `<ul class="notes">${h.notes.map((n) => `<li>${note(snap, n)}</li>`).join("")}</ul>` : "");
  }

  return { draw: hand };
})();
