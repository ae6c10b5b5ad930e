/* The scoreboard page: each snapshot drawn (render.js and its parts, controls.js, calibration.js),
   the game-over screen, the notices, the history dialog, the table's sound, and every tap wired.
   The connection and the PIN are connection.js's, the taps of «Anotar» controls.js's, «Ajustes»
   settings.js's and games.js's. */
"use strict";

// What goes inert behind the game-over screen; the dialogs open above it, the toast stays readable.
const BEHIND_GAMEOVER = "body > header, body > main, body > section";
const $ = (sel) => document.querySelector(sel);
const $$ = (sel) => Array.from(document.querySelectorAll(sel));
const { state, toast } = Page;
const { send, seen, oneTap, tapLine, applyLine } = Connection;

/* A snapshot newer than the one on screen, drawn whole (connection.js hands over each that comes). */
function render(snap) {
  if (typeof snap.seq === "number" && typeof state.snap.seq === "number" &&
      snap.seq <= state.snap.seq && snap.boot === state.snap.boot) return;
  state.overKey = overKey(snap, state.snap);
  state.snap = snap;
  Render.teams(snap);
  Render.hand(snap);
  Render.heard(snap);
  Chime.heard(snap);
  Render.sources(snap);
  Render.store(snap);
  renderUnsure(snap);
  Controls.guess(snap);
  Controls.render(snap);
  renderGameOver(snap);
  renderWarnings(snap);
  Calibration.render(snap);
  if ($("#dlg-history").open) renderHistory(snap);
  const settings = snap.settings || {};
  $("#game-label").textContent = $(".game-label").title = `Partida #${snap.game_id ?? "?"} · ${settings.players || 2} jugadores · a ${snap.target || settings.points || 30}` +
    `${settings.flor ? " · con flor" : ""}`;
  $("#btn-undo").disabled = snap.can_undo === false;
  $("#btn-swap").hidden = !snap.swap_to;  // the last answer heard the wrong way round, one tap
  // the table's last sound, where a microphone listens
  $("#btn-table-audio").hidden = !(snap.sources || []).some((s) => String(s.key).startsWith("mic"));
  $("#btn-swap").textContent = snap.swap_to ? `⇄ Era «${snap.swap_to}»` : "";
  document.body.dataset.seq = String(snap.seq ?? "");
  window.scoreboard.renders.push({ seq: snap.seq, at: performance.timeOrigin + performance.now() });
  if (window.scoreboard.renders.length > 500) window.scoreboard.renders.splice(0, 250);
}

/* -- game over, notices, history --------------------------------------------------------- */
/* The game-over screen shows once per winning moment: dismissed, it stays away until the game is
   won again (after the winning point is undone, say) or another game is won. */
function overKey(snap, before) {
  if (!snap.winner) return null;
  const same = before.winner === snap.winner && before.game_id === snap.game_id;
  return same && state.overKey ? state.overKey : `${snap.game_id}:${snap.seq}`;
}

function renderGameOver(snap) {
  showGameOver(Boolean(state.overKey) && state.dismissedGameOver !== state.overKey);
  if (!snap.winner) return;
  const score = snap.score || {};
  $("#gameover-title").textContent = `¡Partida para ${Render.teamName(snap, snap.winner)}!`;
  $("#gameover-score").textContent = `${Render.teamName(snap, "A")} ${score.A ?? 0} — ${score.B ?? 0} ${Render.teamName(snap, "B")}`;
}

/* A modal: the page behind is inert, the focus goes in, and comes back when it closes. */
function showGameOver(open) {
  const overlay = $("#gameover");
  if (overlay.hidden === !open) return;
  overlay.hidden = !open;
  for (const el of $$(BEHIND_GAMEOVER)) el.inert = open;
  if (open) {
    state.focusBeforeOver = document.activeElement;
    $("#btn-go-close").focus();
  } else if (state.focusBeforeOver && state.focusBeforeOver.isConnected) {
    state.focusBeforeOver.focus();
  }
}

function dismissGameOver() {
  state.dismissedGameOver = state.overKey;
  renderGameOver(state.snap);
}

/* A notice at the top while something heard waits for a tap: on a phone the strip is out of sight.
   One whose hand is over waits for none: a tap could not confirm it any more. */
function renderUnsure(snap) {
  const count = (snap.heard || []).filter((h) => Render.heardStatus(h) === "unsure").length;
  const notice = $("#unsure-notice");
  notice.hidden = !count;
  notice.innerHTML = `? ${count} ${count === 1 ? "dudoso" : "dudosos"}<span class="wide-only"> por confirmar</span>`;
}

function showUnsure() {
  const chip = $(".chip.unsure");
  if (!chip) return;
  chip.scrollIntoView({ block: "center", inline: "nearest" });
  chip.querySelector("[data-confirm]").focus({ preventScroll: true });
}

function renderWarnings(snap) {
  const warnings = snap.warnings || [];
  const key = `${snap.boot}:${snap.game_id}`;
  $("#warnings").hidden = !warnings.length || state.dismissedWarnings === key;
  $("#warnings-text").innerHTML = warnings.map((w) => `<div>Aviso: ${Render.esc(w)}</div>`).join("");
}

/* What was heard in the game (each line's clip or picture, how the voice did), fetched again
   for each snapshot the open history shows. */
const heardHistory = { seq: null, lines: {}, tally: {}, heard: [] };

/* The game's hands, and its log to keep (a file ``truco-referee replay`` plays again), alone or
   with all the referee heard and saw. */
function renderHistory(snap) {
  $("#history").innerHTML = Render.history(snap, heardHistory);
  const game = `/api/games/${encodeURIComponent(snap.game_id)}`;
  $("#history-download").href = `${game}/replay`;
  $("#history-evidence").href = `${game}/evidence`;
  if (heardHistory.seq !== snap.seq) fetchHeardHistory(snap.seq);
}

async function fetchHeardHistory(seq) {
  heardHistory.seq = seq;
  const heard = state.snap.heard || [];  // what the tally counts as waiting is told apart by these
  try {
    const got = await (await fetch("/api/heard/history")).json();
    Object.assign(heardHistory, { lines: got.lines || {}, tally: got.tally || {}, heard });
  } catch {
    return;  // no buttons to play until the referee answers again
  }
  if ($("#dlg-history").open && state.snap.seq === seq) renderHistory(state.snap);
}

function openHistory() {
  renderHistory(state.snap);
  $("#dlg-history").showModal();
}

/* What the camera saw: the picture of a card played or an envido shown. */
function showPicture(id) {
  const img = $("#picture");
  img.onerror = () => toast("No se pudo mostrar la foto");
  img.src = `/api/clips/${encodeURIComponent(id)}`;
  $("#dlg-picture").showModal();
}

/* The table's last seconds of sound, heard again here, and offered to keep with the game or to
   download (the server keeps it only in memory, a minute by default). */
let tableAudioUrl = null;
async function hearTable(seconds) {
  const got = await send("POST", "/api/table-audio", { seconds });
  if (!(got instanceof Response)) return;
  const wav = await got.blob();
  if (tableAudioUrl) URL.revokeObjectURL(tableAudioUrl);
  tableAudioUrl = URL.createObjectURL(wav);
  Object.assign($("#btn-keep-table-audio"), { hidden: false, disabled: false });
  $("#btn-keep-table-audio").dataset.replay = got.headers.get("X-Table-Audio") || "";
  const audio = $("#table-audio");
  Object.assign(audio, { src: tableAudioUrl, hidden: false });
  const now = new Date();
  const stamp = [now.getHours(), now.getMinutes(), now.getSeconds()].map((n) => String(n).padStart(2, "0")).join("");
  Object.assign($("#table-audio-download"), { href: tableAudioUrl, download: `mesa-${stamp}.wav`, hidden: false });
  audio.play().catch(() => { /* the controls are there to play it */ });
}

/* What was heard again kept with the game: among what was heard, and in its evidence. */
async function keepTable() {
  const button = $("#btn-keep-table-audio");
  button.disabled = true;
  if (await send("POST", "/api/table-audio/keep", { id: button.dataset.replay })) {
    button.hidden = true;
    toast("Guardado con la partida: está en «Oído» y en su evidencia", true);
  } else button.disabled = false;
}

/* -- wiring ------------------------------------------------------------------------------- */
function play(url) {
  new Audio(url).play().catch(() => toast("No se pudo reproducir el audio"));
}

function onClick(event) {
  const target = event.target.closest("button");
  if (!target) return;
  const d = target.dataset;
  if (d.line) tapLine(d.line, (target.closest("[data-fact]") || { dataset: {} }).dataset.fact);
  else if (d.call) tapLine(`${state.seat}: ${d.call}`);
  else if (d.seat) { state.seat = d.seat; Controls.render(state.snap); $(`[data-seat="${d.seat}"]`).focus(); }
  else if (d.partner) oneTap("seat", () => send("POST", seen("/api/seat"), { seat: d.partner }));
  else if ("flip" in d) oneTap("flip", () => send("POST", seen("/api/flip")));
  else if (d.confirm) oneTap(`heard ${d.confirm}`, () => send("POST", `/api/heard/${d.confirm}/confirm`));
  else if (d.confirmAs) oneTap(`heard ${d.heardId}`, () => send("POST", `/api/heard/${d.heardId}/confirm`, { instead: d.confirmAs }));
  else if (d.swapTo) oneTap("swap", () => send("POST", seen("/api/swap"), { to: d.swapTo }));
  else if (d.dismiss) oneTap(`heard ${d.dismiss}`, () => send("POST", `/api/heard/${d.dismiss}/dismiss`));
  else if (d.clip) play(`/api/clips/${encodeURIComponent(d.clip)}`);
  else if (d.voice) play(`/api/calibration/voices/${encodeURIComponent(d.voice)}`);
  else if (d.picture) showPicture(d.picture);
  else if (d.tableAudio) hearTable(Number(d.tableAudio));
  else if (d.calibration) Calibration.act(d.calibration, d.player);
  else if (d.openGame) PastGames.open(d.openGame);
  else if (d.deleteGame) PastGames.remove(Number(d.deleteGame));
  else if (d.moreGames) PastGames.list(Number(d.moreGames));
  else if ("close" in d) target.closest("dialog").close();
}

const BUTTONS = {
  "#btn-undo": undo,
  "#btn-undo2": undo,
  "#btn-flip": () => oneTap("flip", () => send("POST", seen("/api/flip"))),
  "#btn-swap": () => oneTap("swap", () => send("POST", seen("/api/swap"))),
  "#btn-controls": () => Controls.toggle($("#controls").hidden),
  "#unsure-notice": showUnsure,
  "#btn-controls-close": () => Controls.toggle(false),
  "#btn-history": openHistory,
  "#btn-table-audio": () => $("#dlg-table-audio").showModal(),
  "#btn-keep-table-audio": keepTable,
  "#btn-settings": Settings.open,
  "#btn-pin": () => (Connection.pin ? Settings.open() : Connection.askPin()),
  "#btn-new-game": () => Settings.newGame({ names: state.snap.names }),
  "#btn-declare": Controls.declare,
  "#btn-go-close": dismissGameOver,
  "#pin-cancel": () => $("#dlg-pin").close("cancel"),
  "#btn-go-history": openHistory,
  "#btn-go-again": () => Settings.newGame({ names: state.snap.names }),
  "#btn-save-names": Settings.saveNames,
  "#btn-apply-rules": Settings.applyRules,
  "#btn-change-pin": Settings.changePin,
  "#btn-warnings-close": () => { state.dismissedWarnings = `${state.snap.boot}:${state.snap.game_id}`; renderWarnings(state.snap); },
};

/* «Deshacer», at the top or among the controls: one tap takes back one line, said in words (there
   is no redo: a tap by mistake is written down again from what the toast says). */
function undo() {
  const line = state.snap.last_line, before = state.snap;
  return oneTap("undo", () => send("POST", seen("/api/undo")).then((done) => {
    if (done && line) toast(`Deshecho: ${Words.logText(before, line)}`, true);
  }));
}

function wire() {
  Controls.build();
  document.addEventListener("click", onClick);
  document.addEventListener("pointerdown", Chime.wake);
  Awake.wire();
  SourcesStrip.wire();
  $("#settings-form").chime.addEventListener("change", (e) => Chime.set(e.target.checked));
  for (const [sel, fn] of Object.entries(BUTTONS)) {
    $(sel).addEventListener("click", (event) => { event.stopPropagation(); fn(); });
  }
  $("#line-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const line = $("#line-input").value.trim();
    if (line) applyLine(line).then((ok) => { if (ok) $("#line-input").value = ""; });
  });
  Settings.wire();  // the name boxes on the board, and every name box held to its length
  $("#pin-form").addEventListener("submit", Connection.onPinSubmit);
  document.addEventListener("keydown", (event) => {  // Escape on the game-over screen: «Seguir mirando»
    if (event.key === "Escape" && !$("#gameover").hidden && !$("dialog[open]")) dismissGameOver();
  });
}

wire();
Calibration.wire(send);
Connection.start(render);
