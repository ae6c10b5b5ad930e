/* «Anotar»: the sheet of taps that write the game down by hand (the seat that speaks, the calls,
   the points, the results), and at the top the taps that fix a seat the referee guessed. */
"use strict";

const Controls = (() => {
  const CALLS = [
    "truco", "retruco", "vale cuatro", "quiero", "no quiero", "envido", "real envido",
    "falta envido", "flor", "contraflor", "contraflor al resto", "con flor quiero",
    "con flor me achico", "me voy al mazo",
  ];
  const FLOR_CALLS = ["flor", "contraflor", "contraflor al resto", "con flor quiero", "con flor me achico"];
  const RESULT_GROUPS = [  // the result buttons, one labelled group each
    { label: "Ronda", kind: "round", picks: ["A", "parda", "B"] },
    { label: "Ganó la mano", kind: "hand", picks: ["A", "B"] },
    { label: "Envido", kind: "envido", picks: ["A", "B"] },
  ];
  const $ = (sel) => document.querySelector(sel);
  const $$ = (sel) => Array.from(document.querySelectorAll(sel));
  const { state, toast } = Page;
  const { applyLine, oneTap } = Connection;

  /* The seat that most likely speaks next: who must answer a call, or declare their points. */
  function nextSeat(snap, seats) {
    const hand = snap.hand || {};
    const declarer = (hand.envido || {}).next_declarer || (hand.flor || {}).next_declarer;
    if (declarer) return declarer;
    const pending = hand.pending || snap.pending;
    if (pending && pending.answer_by) return seats.find((s) => Render.teamOf(s) === pending.answer_by);
    return null;
  }

  function renderControls(snap) {
    const seats = snap.seats && snap.seats.length ? snap.seats : ["A1", "B1"];
    if (!seats.includes(state.seat)) state.seat = seats[0];
    const next = nextSeat(snap, seats);
    if (next && next !== state.suggested) state.seat = next;  // only when the suggestion changes
    state.suggested = next;
    $("#seat-buttons").innerHTML = seats.map((seat) => {
      const team = Render.teamOf(seat).toLowerCase();
      const on = seat === state.seat;
      return `<button class="btn team-${team}${on ? " sel" : ""}" type="button" data-seat="${seat}" aria-pressed="${on}">` +
        `${Render.esc(Render.seatName(snap, seat))} (${seat})</button>`;
    }).join("");
    $("#result-buttons").innerHTML = RESULT_GROUPS.map((group) => resultGroup(snap, group)).join("");
    const flor = Boolean((snap.settings || {}).flor);
    for (const button of $$("#call-buttons [data-call]")) {
      button.hidden = !flor && FLOR_CALLS.includes(button.dataset.call);  // no flor, no flor calls
    }
    $("#btn-flip").disabled = snap.can_flip === false;
    // four or six players: one microphone cannot tell which seat of a team made the last call
    $("#partner-buttons").innerHTML = partnerButtons(snap);
    $("#btn-undo2").disabled = snap.can_undo === false;
  }

  function partnerButtons(snap) {
    return (snap.partners || []).map((seat) =>
      `<button class="btn team-${Render.teamOf(seat).toLowerCase()}" type="button" data-partner="${seat}">` +
      `Lo dijo ${Render.esc(Render.seatName(snap, seat))} (${seat})</button>`).join("");
  }

  /* The last call went to a seat the referee guessed («A1: truco», what of it is in doubt in
     ``snap.guess``): at the top, the taps that fix it, the other team and the partners. */
  function renderGuess(snap) {
    const guess = snap.guess || [];
    const other = Render.teamOf(snap.last_line) === "A" ? "B" : "A";
    const flip = guess.includes("team") ?
      `<button class="btn" type="button" data-flip>⇄ Lo dijo ${Render.esc(Render.teamName(snap, other))}</button>` : "";
    const partners = guess.includes("seat") ? partnerButtons(snap) : "";
    const box = $("#guess-fix");
    box.hidden = !(flip || partners);
    box.innerHTML = box.hidden ? "" : `<span class="guess-label">¿Quién<span class="wide-only"> lo dijo</span>?</span>${flip}${partners}`;
  }

  /* «Ronda: Nosotros · Parda · Ellos» as a group a screen reader names. In a pica-pica hand a result
     belongs to one duel: the selected seat's. */
  function resultGroup(snap, { label, kind, picks }) {
    const duel = (snap.duels || []).length ? ` ${state.seat}` : "";
    const title = `${label}${duel ? ` (duelo de ${Render.esc(Render.seatName(snap, state.seat))})` : ""}`;
    const buttons = picks.map((pick) => {
      const team = pick === "parda" ? "" : ` team-${pick.toLowerCase()}`;
      const name = pick === "parda" ? "Parda" : Render.esc(Render.teamName(snap, pick));
      return `<button class="btn${team}" type="button" data-line="${kind} ${pick}${duel}">${name}</button>`;
    }).join("");
    return `<div class="seg result" role="group" aria-labelledby="result-${kind}">` +
      `<span class="ctl-label" id="result-${kind}">${title}</span>${buttons}</div>`;
  }

  function buildCallButtons() {
    $("#call-buttons").innerHTML = CALLS.map((call) =>
      `<button class="btn" type="button" data-call="${call}">${call[0].toUpperCase()}${call.slice(1)}</button>`).join("");
  }

  function toggleControls(open) {
    $("#controls").hidden = !open;
    $("#btn-controls").setAttribute("aria-expanded", String(open));
  }

  /* The points the selected seat says, typed: none typed is no declaration. */
  function declarePoints() {
    const input = $("#declare-points");
    if (input.value.trim() === "") { toast("Escribí los tantos"); input.focus(); return; }
    oneTap("declare", () => applyLine(`${state.seat}: ${Number(input.value)}`));
  }

  return { build: buildCallButtons, render: renderControls, guess: renderGuess, toggle: toggleControls,
    declare: declarePoints };
})();
