/* Draws a scoreboard snapshot into the page.  Every key may be missing: render what is there. */
"use strict";

const Render = (() => {
  const STATUS = {
    pending: "¿quiero?", accepted: "querido", refused: "no querido",
    decided: "decidido", cancelled: "anulado", none: "",
  };
  const FLOR_STATUS = {  // «la flor»: open, sung and not answered yet
    ...STATUS, accepted: "querida", refused: "no querida", decided: "decidida", cancelled: "anulada", open: "cantada",
  };
  const TRUCO_NAMES = { 1: "sin cantar", 2: "truco", 3: "retruco", 4: "vale cuatro" };
  const $ = (sel) => document.querySelector(sel);
  const { esc, teamOf, teamName, seatName, tag, seatTag, card, logText, note, named, reason } = Words;

  /* -- team panels ------------------------------------------------------------------------ */
  /* Where a team stands in a game to 30, as the table says it: the points within its half,
     «7 malas», «14 buenas» (29: buenas begin at 15), «malas» at 0 and «buenas» at 15. */
  function zoneWords(points) {
    const [n, half] = points < 15 ? [points, ["mala", "malas"]] : [points - 15, ["buena", "buenas"]];
    return n ? `${n} ${half[n === 1 ? 0 : 1]}` : half[1];
  }

  function teams(snap) {
    const score = snap.score || {};
    const target = Number(snap.target || (snap.settings || {}).points || 30);
    const settings = snap.settings || {};
    for (const team of ["A", "B"]) {
      const points = Number(score[team] || 0);
      $(`[data-score="${team}"]`).textContent = String(points);
      Tally.draw($(`[data-tally="${team}"]`), points, target);
      const zone = $(`[data-zone="${team}"]`);
      const buenas = target === 30 && points >= 15;
      zone.textContent = target === 30 ? zoneWords(points) : "";
      zone.classList.toggle("buenas", buenas);
      $(`section.team-${team}`).setAttribute("aria-label", teamName(snap, team));
      $(`[data-team-label="${team}"]`).textContent = teamName(snap, team);  // in «Ajustes»
      const input = $(`.name[data-team="${team}"]`);
      if (document.activeElement !== input) input.value = teamName(snap, team);
      input.title = teamName(snap, team);  // the whole name, when the box shows it cut
      for (const button of document.querySelectorAll(`.team-${team} .adj`)) {
        const minus = button.dataset.line.endsWith("-1");
        button.setAttribute("aria-label", `${minus ? "Restar" : "Sumar"} un punto a ${teamName(snap, team)}`);
        button.disabled = !minus && Boolean(snap.winner);  // a game won takes no more; «−1» fixes a slip
      }
      const chicos = $(`[data-chicos="${team}"]`);
      chicos.hidden = !settings.match;
      chicos.textContent = `chicos: ${(snap.chicos || {})[team] || 0}`;
    }
    scoreSaid(snap);
    sheetScore(snap);
  }

  /* The score on the «Anotar» sheet, which covers the board: «Nosotros 9 — 18 Ellos». */
  function sheetScore(snap) {
    const score = snap.score || {};
    $("#controls-score").innerHTML = `${tag(snap, "A")} <b>${Number(score.A || 0)}</b> — ` +
      `<b>${Number(score.B || 0)}</b> ${tag(snap, "B")}`;
  }

  /* The score in words for a screen reader (a polite live region), changed only when the score
     or a name does: the other redraws of the board say nothing. */
  function scoreSaid(snap) {
    const score = snap.score || {};
    const said = `${teamName(snap, "A")} ${Number(score.A || 0)}, ${teamName(snap, "B")} ${Number(score.B || 0)}`;
    const el = $("#score-said");
    if (el.textContent !== said) el.textContent = said;
  }


  /* -- the hand --------------------------------------------------------------------------- */
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

  /* -- heard strip ------------------------------------------------------------------------ */
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

  /* -- the referee's ears and eyes ------------------------------------------------------- */
  const SOURCE_WORDS = {  // [icon, what it is, and how it is: ok, poor, trouble, off]
    mic: ["🎤", "micrófono", { ok: "escucha", poor: "escucha mal", trouble: "no escucha", off: "ya no escucha" }],
    camera: ["📷", "cámara", { ok: "mira la mesa", trouble: "no ve la mesa", off: "ya no mira" }],
  };
  let sourcesShown = null;

  /* How the microphone and the camera are doing, one badge each («🎤 escucha»); one in trouble,
     or working poorly, says so in words, with a mark and its reason, not in colour alone.  Redrawn only when it
     changes: a screen reader hears each change once. */
  function sources(snap) {
    const worst = (s) => ({ trouble: 0, poor: 1 })[s.state] ?? 2;  // first in sight on a narrow bar
    const html = [...(snap.sources || [])].sort((a, b) => worst(a) - worst(b)).map((s) => sourceBadge(snap, s)).join("");
    if (html === sourcesShown) return;
    sourcesShown = html;
    const el = $("#sources");
    el.innerHTML = html;
    el.hidden = !html;
    sourcesCount(snap.sources || []);
  }

  /* The badges as a count, for a bar with no room for them: «⚠ 2» for those in trouble or
     working poorly, else their icons («🎤 🎤 📷»), all fine. */
  function sourcesCount(list) {
    const all = list.map(sourceOf);
    const bad = all.filter((s) => ["trouble", "poor"].includes(s.state)).length;
    const el = $("#sources-toggle");
    el.textContent = bad ? `⚠ ${bad}` : all.map((s) => s.icon).join(" ");
    el.className = `btn sources-toggle${all.some((s) => s.state === "trouble") ? " trouble" : bad ? " poor" : ""}`;
    el.setAttribute("aria-label", `Lo que oye y ve el árbitro: ${bad ? `${bad} de ${list.length} con problemas` : "todo anda"}`);
    el.hidden = !list.length;
  }

  /* A source's team (of a microphone per team), words and state; one it has no words for is in trouble. */
  function sourceOf(s) {
    const [kind, team] = String(s.key || "").split(" ");
    const [icon, noun, how] = SOURCE_WORDS[kind] || SOURCE_WORDS.mic;
    return { team, icon, noun, how, state: how[s.state] ? s.state : "trouble" };
  }

  function sourceBadge(snap, s) {
    const { team, icon, noun, how, state } = sourceOf(s);
    const whose = team ? ` de ${teamName(snap, team)}` : "";
    const label = `${team ? `${teamName(snap, team)}: ` : ""}${how[state]}`;
    const detail = state === "ok" ? "" : `<span class="detail">${esc(s.message)}</span>`;
    return `<span class="source ${state}" data-source="${esc(s.key)}" title="${esc(s.message)}">` +
      `<span role="img" aria-label="${esc(noun + whose)}">${["trouble", "poor"].includes(state) ? "⚠ " : ""}${icon}</span> ` +
      `<b>${esc(label)}</b>${detail}</span>`;
  }

  /* -- the store ------------------------------------------------------------------------- */
  let storeShown = null;

  /* While the referee cannot write down what is heard and tapped (a full disk), every page says
     so in a red banner, with why and until when, and not before a change is stored again:
     nothing heard or tapped meanwhile counts.  Before that, while the data folder runs low on
     room, the same banner warns in amber, so that the table makes room in time.  Redrawn only
     when it changes. */
  function store(snap) {
    const s = snap.store || {};
    const room = snap.room || {};
    const trouble = s.state === "trouble";
    const said = trouble ? (s.message || "No se puede guardar: lo que se oye y lo que se toca no se anota.")
      : room.low ? room.message : "";
    const shown = `${trouble}|${said}`;
    if (shown === storeShown) return;
    storeShown = shown;
    const el = $("#store-trouble");
    el.textContent = said ? `⚠ ${said}` : "";
    el.classList.toggle("low", !trouble && !!said);
    el.hidden = !said;
  }

  /* -- history ---------------------------------------------------------------------------- */
  const HIST_COLUMNS = ["#", "Mano", "Envido", "Flor", "Truco", "A mano", "Por qué"];
  const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0");

  function pointsCell(snap, points, kind) {
    const byTeam = (points || {})[kind] || {};
    return ["A", "B"].filter((t) => byTeam[t]).map((t) => `${tag(snap, t)} +${esc(byTeam[t])}`).join(" · ") || "—";
  }

  /* Manual corrections (``points A +2``) by hand number (0 = before the first deal). */
  function corrections(log) {
    const byHand = {};
    let hand = 0;
    for (const line of log || []) {
      if (line === "hand") hand += 1;
      const m = /^points ([AB]) ([+-]\d+)$/.exec(line);
      if (m) (byHand[hand] = byHand[hand] || []).push([m[1], Number(m[2])]);
    }
    return byHand;
  }

  /* The corrections of one hand, summed by team: «Ellos +2 (+1 +1)». */
  function correctionCell(snap, list) {
    const byTeam = {};
    for (const [team, n] of list || []) (byTeam[team] = byTeam[team] || []).push(n);
    return Object.entries(byTeam).map(([team, all]) => {
      const detail = all.length > 1 ? ` <span class="muted">(${all.map(signed).join(" ")})</span>` : "";
      return `${tag(snap, team)} ${signed(all.reduce((a, b) => a + b, 0))}${detail}`;
    }).join(" · ") || "—";
  }

  /* A history row from [html, class] cells; each names its column, shown when the rows stack. */
  function histRow(cells) {
    return `<tr>${cells.map(([html, cls = ""], i) => {
      const empty = html === "—" || html === "" ? " empty" : "";
      return `<td class="${cls}${empty}" data-label="${HIST_COLUMNS[i]}">${html}</td>`;
    }).join("")}</tr>`;
  }

  function handRow(snap, h, fixes) {
    const mano = h.mano ? seatTag(snap, h.mano) : h.pica_pica ? "pica-pica" : "—";
    return histRow([
      [esc(h.number)], [mano],
      ...["envido", "flor", "truco"].map((k) => [pointsCell(snap, h.points, k), "pts"]),
      [correctionCell(snap, fixes), "pts"],
      [(h.notes || []).map((n) => note(snap, n)).join("<br>"), "notes"],
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
    const early = fixes[0] ? histRow([["—"], ["antes de repartir", "muted"], ["—"], ["—"], ["—"],
      [correctionCell(snap, fixes[0]), "pts"], [""]]) : "";
    const rows = hands.map((h, i) => handRow(snap, h, fixes[h.number ?? i + 1])).join("");
    const head = HIST_COLUMNS.map((c) => `<th scope="col">${c}</th>`).join("");
    const table = rows || early ? `<div class="hist-wrap"><table class="hist"><thead><tr>${head}</tr></thead>` +
      `<tbody>${early}${rows}</tbody></table></div>` :
      `<p class="muted">Todavía no se jugó ninguna mano.</p>`;
    const from = total - shown.length;  // the first shown line's place in the log
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

  return { teams, hand, heard, heardStatus, sources, store, history, wins,
    // the words, for app.js
    teamName, seatName, esc, teamOf, named, refusal: Words.refusal };
})();
