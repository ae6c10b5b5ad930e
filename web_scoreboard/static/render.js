/* Draws a scoreboard snapshot into the page.  Every key may be missing: render what is there. */
"use strict";

const Render = (() => {
  const SUITS = { o: "oro", c: "copa", e: "espada", b: "basto" };
  const STATUS = {
    pending: "¿quiero?", accepted: "querido", refused: "no querido",
    decided: "decidido", cancelled: "anulado", none: "",
  };
  const TRUCO_NAMES = { 1: "sin cantar", 2: "truco", 3: "retruco", 4: "vale cuatro" };

  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => (
    { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  const $ = (sel) => document.querySelector(sel);
  const teamOf = (seat) => (String(seat || "")[0] === "B" ? "B" : "A");

  function teamName(snap, team) {
    const names = snap.names || {};
    return names[team] || (team === "A" ? "Nosotros" : "Ellos");
  }

  function seatName(snap, seat) {
    if (!seat) return "";
    const seats = snap.seats || [];
    const name = teamName(snap, teamOf(seat));
    return seats.length > 2 ? `${name} ${String(seat).slice(1)}` : name;
  }

  const tag = (snap, team, text) => `<span class="t-${team === "B" ? "B" : "A"}">${esc(text ?? teamName(snap, team))}</span>`;
  const seatTag = (snap, seat) => tag(snap, teamOf(seat), seatName(snap, seat));

  function card(text) {
    const m = /^(\d+)([ocebOCEB])$/.exec(String(text || ""));
    return m ? `${m[1]} de ${SUITS[m[2].toLowerCase()]}` : esc(text);
  }

  /* -- team panels ------------------------------------------------------------------------ */
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
      zone.textContent = target === 30 ? (buenas ? "buenas" : "malas") : "";
      zone.classList.toggle("buenas", buenas);
      const input = $(`.name[data-team="${team}"]`);
      if (document.activeElement !== input) input.value = teamName(snap, team);
      const chicos = $(`[data-chicos="${team}"]`);
      chicos.hidden = !settings.match;
      chicos.textContent = `chicos: ${(snap.chicos || {})[team] || 0}`;
    }
  }

  /* A note from the engine with the team letters replaced by the teams' names. */
  function note(snap, text) {
    return esc(text).replace(/\b([AB])\b/g, (_, team) => tag(snap, team));
  }

  /* -- the hand --------------------------------------------------------------------------- */
  function pendingOf(snap) {
    const hand = snap.hand || {};
    return hand.pending || snap.pending || null;
  }

  function banner(snap) {
    const el = $("#banner");
    const p = pendingOf(snap);
    if (!p) { el.hidden = true; el.innerHTML = ""; return; }
    const text = p.banner || `¡${String(p.call || "").toUpperCase()}! — ¿quiero?`;
    const who = p.answer_by ? `contesta ${esc(teamName(snap, p.answer_by))}` : "";
    el.innerHTML = `${esc(text)}${who ? `<small>${who}</small>` : ""}`;
    el.classList.toggle("long", text.length > 22);
    el.hidden = false;
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
    const call = level > 1 ? `${t.call || TRUCO_NAMES[level]} querido` : "sin cantar";
    const holder = t.holder ? ` · el quiero lo tiene ${tag(snap, t.holder)}` : "";
    return `<div class="fact" data-fact="truco"><b>Truco</b><span class="big">${esc(call)}</span>` +
      ` · vale ${esc(value)}${holder}</div>`;
  }

  function declarations(snap, list) {
    return (list || []).map((d) => `${seatTag(snap, d.seat)} ${d.points == null ? "son buenas" : esc(d.points)}`).join(" · ");
  }

  function envidoFact(snap, e, label, key) {
    if (!e || ((!e.chain || !e.chain.length) && !(e.sung || []).length && (!e.status || e.status === "none"))) return "";
    const sung = (e.sung || []).length ? ` · cantaron: ${e.sung.map((s) => seatTag(snap, s)).join(", ")}` : "";
    const chain = (e.chain || []).join(" + ") || (sung ? "flor" : "");
    const status = STATUS[e.status] ?? esc(e.status || "");
    const stake = e.status === "pending" && e.quiero != null ?
      ` · quiero ${esc(e.quiero)}${e.no_quiero != null ? ` / no quiero ${esc(e.no_quiero)}` : ""}` : "";
    const decl = declarations(snap, e.declarations);
    const next = e.next_declarer ? ` · le toca a ${seatTag(snap, e.next_declarer)}` : "";
    const won = e.winner ? ` · ganó ${tag(snap, e.winner)}${e.points != null ? ` (+${esc(e.points)})` : ""}` : "";
    return `<div class="fact" data-fact="${key}"><b>${label}</b>${esc(chain)} ${status ? `· ${status}` : ""}` +
      `${sung}${stake}${decl ? `<br>${decl}` : ""}${next}${won}</div>`;
  }

  function rounds(snap, list) {
    const cells = [0, 1, 2].map((i) => {
      const r = (list || [])[i] || {};
      const win = r.winner === "parda" ? "parda" : r.winner ? tag(snap, r.winner) : "—";
      const plays = (r.plays || []).map((p) => `${esc(p.seat)} ${card(p.card)}`).join("<br>");
      return `<div class="round" data-round="${i + 1}"><div class="r-title">${i + 1}ª</div>` +
        `<div class="r-win">${win}</div><div class="cards">${plays}</div></div>`;
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
      const state = d.over ? `ganó ${tag(snap, d.winner)}` : `truco ${esc((d.truco || {}).value ?? 1)}`;
      return `${seats} <span class="muted">(${state})</span>`;
    });
    return `<div class="fact" data-fact="duels"><b>Pica-pica</b>${parts.join(" · ")}</div>`;
  }

  function hand(snap) {
    const h = snap.hand;
    banner(snap);
    if (!h) {
      $("#hand-head").innerHTML = "Sin mano en juego";
      $("#hand-body").innerHTML = `<div class="empty-hand">Tocá «Anotar» → «Mano nueva» o cantá.</div>`;
      return;
    }
    const turn = h.turn ? ` · <span class="muted">juega</span> ${seatTag(snap, h.turn)}` : "";
    const over = h.over ? ` · <span class="muted">terminada${h.winner ? `, ganó</span> ${tag(snap, h.winner)}` : "</span>"}` : "";
    $("#hand-head").innerHTML = `Mano ${esc(h.number ?? "")} · <span class="muted">es mano</span> ` +
      `${seatTag(snap, h.mano)}${turn}${over}`;
    $("#hand-body").innerHTML = duelsFact(snap) + trucoFact(snap, h.truco) +
      envidoFact(snap, h.envido, "Envido", "envido") + envidoFact(snap, h.flor, "Flor", "flor") +
      rounds(snap, h.rounds) + handPoints(snap, h.points) +
      ((h.notes || []).length ? `<ul class="notes">${h.notes.map((n) => `<li>${note(snap, n)}</li>`).join("")}</ul>` : "");
  }

  /* -- heard strip ------------------------------------------------------------------------ */
  function heard(snap) {
    const items = snap.heard || [];
    const icons = { accepted: "✔", unsure: "?", rejected: "✖" };
    $("#heard-list").innerHTML = items.map((h) => {
      const status = icons[h.status] ? h.status : "rejected";
      const why = h.reason || (h.line ? `→ ${h.line}` : "");
      const seen = Boolean(h.extra && h.extra.seen);  // what the camera saw, with its picture
      const play = !h.clip_id ? "" : seen ?
        `<button class="btn" type="button" data-picture="${esc(h.clip_id)}" aria-label="Ver la foto">Foto</button>` :
        `<button class="btn" type="button" data-clip="${esc(h.clip_id)}" aria-label="Escuchar">▶</button>`;
      const confirm = status === "unsure" ?
        `<button class="btn" type="button" data-confirm="${esc(h.id)}">Confirmar</button>` +
        `<button class="btn" type="button" data-dismiss="${esc(h.id)}">✕</button>` : "";
      const team = h.team ? `${tag(snap, h.team)} ` : "";
      return `<li class="chip ${status}" data-heard="${esc(h.id)}"><span class="icon">${icons[status]}</span>` +
        `<span>${team}<span class="said">${seen ? esc(h.text) : `«${esc(h.text)}»`}</span><br><span class="why">${esc(why)}</span></span>` +
        `${confirm}${play}</li>`;
    }).join("");
  }

  /* -- history ---------------------------------------------------------------------------- */
  function pointsCell(snap, points, kind) {
    const byTeam = (points || {})[kind] || {};
    return ["A", "B"].filter((t) => byTeam[t]).map((t) => `${tag(snap, t)} +${esc(byTeam[t])}`).join("<br>") || "—";
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

  function correctionCell(snap, list) {
    return (list || []).map(([team, n]) => `${tag(snap, team)} ${n > 0 ? "+" : ""}${n}`).join("<br>") || "—";
  }

  function history(snap) {
    const whole = (snap.log_total ?? (snap.log || []).length) === (snap.log || []).length;
    const fixes = whole ? corrections(snap.log) : {};  // hand numbers need the log from its start
    const hands = snap.hands || [];
    const early = fixes[0] ? `<tr><td>—</td><td class="muted">antes de repartir</td><td>—</td><td>—</td>` +
      `<td>—</td><td class="pts">${correctionCell(snap, fixes[0])}</td><td></td></tr>` : "";
    const rows = hands.map((h, i) => `<tr><td>${esc(h.number)}</td><td>${seatTag(snap, h.mano)}</td>` +
      ["envido", "flor", "truco"].map((k) => `<td class="pts">${pointsCell(snap, h.points, k)}</td>`).join("") +
      `<td class="pts">${correctionCell(snap, fixes[h.number ?? i + 1])}</td>` +
      `<td class="notes">${(h.notes || []).map((n) => note(snap, n)).join("<br>")}</td></tr>`).join("");
    const table = rows || early ? `<table class="hist"><thead><tr><th>#</th><th>Mano</th><th>Envido</th><th>Flor</th>` +
      `<th>Truco</th><th>A mano</th><th>Por qué</th></tr></thead><tbody>${early}${rows}</tbody></table>` :
      `<p class="muted">Todavía no se jugó ninguna mano.</p>`;
    const log = (snap.log || []).map((l) => `<div>${esc(l)}</div>`).join("");
    const more = (snap.log_total || 0) > (snap.log || []).length ? `<p class="muted">(últimos ${(snap.log || []).length} de ${snap.log_total})</p>` : "";
    return `${table}<h3>Registro de eventos</h3>${more}<div class="log">${log || "—"}</div>`;
  }

  return { teams, hand, heard, history, teamName, seatName, esc, teamOf };
})();
