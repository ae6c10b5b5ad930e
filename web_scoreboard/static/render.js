/* Draws a scoreboard snapshot into the page.  Every key may be missing: render what is there.
   The team panels, the badges and the store's banner are drawn here; the hand panel (hand.js),
   the heard strip (heard.js) and the history (history.js) by theirs, through ``Render`` too. */
"use strict";

const Render = (() => {
  const $ = (sel) => document.querySelector(sel);
  const { esc, teamOf, teamName, seatName, tag, named } = Words;

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

  return { teams, hand: HandPanel.draw, heard: HeardStrip.draw, heardStatus: HeardStrip.status, sources, store,
    history: HistoryTable.draw, wins: HistoryTable.wins,
    // the words, for the scripts that tap and ask (controls.js, settings.js, games.js, app.js)
    teamName, seatName, esc, teamOf, named, refusal: Words.refusal };
})();
