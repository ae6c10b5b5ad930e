/* The scoreboard page: live snapshots over /ws, changes through the HTTP API with the table PIN. */
"use strict";

const CALLS = [
  "truco", "retruco", "vale cuatro", "quiero", "no quiero", "envido", "real envido",
  "falta envido", "flor", "contraflor", "contraflor al resto", "con flor quiero",
  "con flor me achico", "me voy al mazo",
];
const FLOR_CALLS = ["flor", "contraflor", "contraflor al resto", "con flor quiero", "con flor me achico"];
const PIN_KEY = "truco-referee-pin";
const PIN_MESSAGE = "Para anotar hace falta el PIN que muestra la compu que sirve la página.";
const OFFLINE = "Sin conexión con el árbitro: no se anotó. Probá de nuevo.";
// A referee that takes the tap and does not answer (its machine hung, the network dropped the
// answer) may still write it down later: the table is told to look, not that it was lost.
const ANSWER_MS = 5000;
const UNANSWERED = "unanswered";  // what ``request`` gives for such a tap
const NO_ANSWER = "El árbitro no contestó: puede que no se haya anotado. Mirá el tanteador antes de volver a tocar.";
// A PIN this page had (it was right once) refused: another tablet changed it, nobody typed wrong.
const PIN_CHANGED = "El PIN de la mesa cambió: ingresá el nuevo";
const EMPTY_NAME = "El nombre no puede quedar vacío";
// What goes inert behind the game-over screen; the dialogs open above it, the toast stays readable.
const BEHIND_GAMEOVER = "body > header, body > main, body > section";
const RESULT_GROUPS = [  // the result buttons, one labelled group each
  { label: "Ronda", kind: "round", picks: ["A", "parda", "B"] },
  { label: "Ganó la mano", kind: "hand", picks: ["A", "B"] },
  { label: "Envido", kind: "envido", picks: ["A", "B"] },
];
const $ = (sel) => document.querySelector(sel);
const $$ = (sel) => Array.from(document.querySelectorAll(sel));

const state = {
  snap: {}, seat: "A1", suggested: null, socket: null, retry: 250, heardAt: 0, dismissedWarnings: null,
  overKey: null, dismissedGameOver: null, focusBeforeOver: null,
  pin: localStorage.getItem(PIN_KEY) || "", hostPin: false, unanswered: 0,
};
window.scoreboard = { renders: [], chimes: [], get snapshot() { return state.snap; } };

/* -- live updates ------------------------------------------------------------------------- */
function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws`);
  state.socket = ws;
  ws.onopen = () => { state.retry = 250; state.heardAt = Date.now(); setConnected(true); };
  ws.onmessage = (event) => {
    state.heardAt = Date.now();
    let data;
    try { data = JSON.parse(event.data); } catch { return; }
    if (data.error) toast(Render.refusal(state.snap, data.error.code, data.error.message));
    else if (!data.ok) render(data);
  };
  ws.onclose = () => {
    setConnected(false);
    setTimeout(connect, state.retry);
    state.retry = Math.min(state.retry * 2, 3000);
  };
  ws.onerror = () => ws.close();
}

/* A server that lost its power or its network leaves the socket open on this side, silent: the
   page asks every ALIVE_MS, and with no word back for two and a half of those it says so and
   connects again, instead of showing a frozen score as «en vivo». */
const ALIVE_MS = 10000;
function watchLiveness() {
  setInterval(() => {
    const ws = state.socket;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    if (Date.now() - state.heardAt > 2.5 * ALIVE_MS) {
      ws.onclose = null;
      ws.onmessage = null;
      ws.close();
      setConnected(false);
      connect();
      return;
    }
    ws.send(JSON.stringify({ action: "ping" }));
  }, ALIVE_MS);
}

/* Offline, the board fades (``body.offline`` in style.css): a score that may be old must not
   look live from across the table. */
function setConnected(on) {
  document.body.classList.toggle("offline", !on);
  const el = $("#conn");
  el.classList.toggle("on", on);
  el.classList.toggle("off", !on);
  el.innerHTML = on ? "en vivo" : `sin conexión<span class="conn-more"> — reconectando…</span>`;
}

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
  renderGuess(snap);
  renderControls(snap);
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

/* -- changes (with the PIN) --------------------------------------------------------------- */
async function send(method, path, body, wait = ANSWER_MS) {
  if (!state.pin) await hostPinFetched;  // a tap as the page opens: the host's PIN may be on its way
  if (!state.pin && !(await askPin())) return null;
  const response = await request(method, path, body, wait);
  if (response === UNANSWERED) { state.unanswered += 1; toast(NO_ANSWER, false, 8000); return null; }
  if (!response) { toast(OFFLINE); return null; }
  if (response.ok && !(response.headers.get("content-type") || "").includes("json")) return response;  // a sound
  let data = {};
  try { data = await response.json(); } catch { /* empty answer */ }
  const error = data.error || {};
  if (response.status === 401 || response.status === 403) return sendAgain(method, path, body, wait, error);
  if (!response.ok) {
    toast(Render.refusal(state.snap, error.code, error.message) || `error ${response.status}`);
    if (error.code === "stale") fetchState();  // «fijate cómo quedó»: even if the socket missed it
    return null;
  }
  if (data && typeof data.seq === "number") render(data);
  return data;
}

/* A change refused for its PIN: the host's page fetches the new one, any other asks for it; a
   PIN that was right before and is refused now was changed on another tablet, and is asked for
   as such, not as one typed wrong. */
async function sendAgain(method, path, body, wait, error) {
  const had = state.pin;
  const changed = Boolean(had) && error.code === "wrong-pin";
  setPin("");
  if (changed && state.hostPin) {
    await fetchHostPin();
    if (state.pin && state.pin !== had) return send(method, path, body, wait);
    setPin("");
  }
  if (await askPin(changed ? PIN_CHANGED : error.message)) return send(method, path, body, wait);
  return null;
}

/* The table as it stands now, when the socket may have missed a change. */
async function fetchState() {
  try {
    const response = await fetch("/api/state");
    if (response.ok) render(await response.json());
  } catch { /* the socket brings it when the referee answers again */ }
}

/* fetch with the PIN; null when the server cannot be reached, UNANSWERED when it took the
   request and gave no answer within ``wait`` ms. */
async function request(method, path, body, wait) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), wait);
  try {
    return await fetch(path, {
      method, headers: { "Content-Type": "application/json", "X-Table-PIN": state.pin },
      body: body === undefined ? undefined : JSON.stringify(body), signal: abort.signal,
    });
  } catch {
    return abort.signal.aborted ? UNANSWERED : null;
  } finally {
    clearTimeout(timer);
  }
}

// A change carries the snapshot on screen (``?seq=``): a change from another tablet (or the
// voice) in between is refused instead of taking back a line nobody saw or scoring a round twice;
// so is a second undo, flip or swap tapped before the first one's answer came (a double tap).
// This page's events go one at a time, each with the snapshot the one before left, so that «+1»
// tapped twice quickly scores two.  One the referee did not answer drops those tapped behind it:
// the table was told to look at the score first.
const seen = (path) => (typeof state.snap.seq === "number" ? `${path}?seq=${state.snap.seq}` : path);
let lining = Promise.resolve(null);
function applyLine(line) {
  const unanswered = state.unanswered;
  const run = lining.then(() => (state.unanswered > unanswered ? null : send("POST", seen("/api/events"), { line })));
  lining = run.catch(() => null);
  return run;
}

/* One tap, one change: a finger's double tap (100–200 ms apart) on «Deshacer», a result, a call
   or a confirmation does it once.  The snapshot check above does not stop it when the first
   answer comes back before the second tap, which then carries the new snapshot: so a repeat of
   the same tap (``key``) is let go only once the first one's answer is in and ONE_TAP_MS have
   gone since it was tapped.  «+1» and «−1» are not held: each tap is a point. */
const ONE_TAP_MS = 600;
const tapping = new Set();
async function oneTap(key, run) {
  if (tapping.has(key)) return null;
  tapping.add(key);
  const until = Date.now() + ONE_TAP_MS;
  try {
    return await run();
  } finally {
    setTimeout(() => tapping.delete(key), Math.max(0, until - Date.now()));
  }
}

/* A log line tapped on a button: once per tap, but for the points, each one counts.  The same
   line on another box (``where``: «envido B» settles this hand's envido, then an earlier one's)
   is another tap. */
function tapLine(line, where = "") {
  return /^points [AB] [+-]1$/.test(line) ? applyLine(line) : oneTap(`${line} ${where}`, () => applyLine(line));
}

function setPin(pin) {
  state.pin = pin;
  if (pin) localStorage.setItem(PIN_KEY, pin); else localStorage.removeItem(PIN_KEY);
  const button = $("#btn-pin");
  button.classList.toggle("unlocked", Boolean(pin));
  button.textContent = pin ? (state.hostPin ? `PIN ${pin} ✓` : "PIN ✓") : "Ingresar PIN";
  $("#pin-show").textContent = pin ? `PIN en uso en esta pantalla: ${pin}` : "Esta pantalla todavía no tiene el PIN.";
}

function askPin(message) {
  const dialog = $("#dlg-pin");
  $("#pin-msg").textContent = message || PIN_MESSAGE;
  $("#pin-input").value = "";
  dialog.returnValue = "";  // closed with Escape, it keeps the last answer
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", async () => {
      const pin = $("#pin-input").value.trim();
      resolve(dialog.returnValue === "ok" && pin ? await checkPin(pin) : false);
    }, { once: true });
  });
}

async function checkPin(pin) {
  let check;
  try {
    check = await fetch("/api/pin/check", { method: "POST", headers: { "X-Table-PIN": pin } });
  } catch {
    toast(OFFLINE);
    return false;
  }
  if (check.ok) { setPin(pin); return true; }
  const data = await check.json().catch(() => ({}));
  return askPin((data.error || {}).message || "PIN incorrecto");
}

/* «Entrar» with the box empty keeps the dialog open and says why. */
function onPinSubmit(event) {
  if ($("#pin-input").value.trim()) return;
  event.preventDefault();
  $("#pin-msg").textContent = "Escribí el PIN de la mesa.";
  $("#pin-input").focus();
}

async function fetchHostPin() {
  try {
    const response = await fetch("/api/pin");
    if (!response.ok) return;
    state.hostPin = true;
    setPin((await response.json()).pin);
  } catch { /* not the host */ }
}

/* -- manual controls ---------------------------------------------------------------------- */
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

/* -- game over, history, settings --------------------------------------------------------- */
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

async function openSettings() {
  const form = $("#settings-form");
  const s = state.snap.settings || {};
  form.nameA.value = Render.teamName(state.snap, "A");
  form.nameB.value = Render.teamName(state.snap, "B");
  form.players.value = String(s.players || 2);
  form.points.value = String(s.points || 30);
  form.flor.checked = Boolean(s.flor);
  form.match.checked = Boolean(s.match);
  form.falta.value = s.falta || "leader";
  form.chime.checked = Chime.enabled();
  $("#awake-said").textContent = Awake.said();
  Calibration.settingsOpened(s.players);
  $("#dlg-settings").showModal();
  await listGames();
}

/* The past games, newest first, a hundred at a time: «Ver partidas más viejas» brings the next
   hundred.  A game whose rules cannot be read is listed with why, to download or delete, not to open. */
let listedGames = [];

async function listGames(before) {
  let data;
  try {
    data = await (await fetch(before ? `/api/games?before=${before}` : "/api/games")).json();
  } catch {
    $("#games-list").innerHTML = `<li class="muted">Sin conexión con el árbitro: no se pudo traer la lista.</li>`;
    return;
  }
  listedGames = [...(before ? listedGames : []), ...(data.games || [])];
  $("#games-wins").innerHTML = Render.wins(listedGames);
  const more = data.more && listedGames.length
    ? `<li><button class="btn" type="button" data-more-games="${listedGames[listedGames.length - 1].id}">Ver partidas más viejas</button></li>`
    : "";
  $("#games-list").innerHTML = listedGames.map((g) => {
    const when = new Date(g.created_at * 1000).toLocaleString("es-AR", { dateStyle: "short", timeStyle: "short" });
    const names = g.names || {};
    const inPlay = g.id === data.current;
    // the game in play is open on the board: «en curso», or «terminada · abierta» once won
    const how = g.winner ? ` · terminada${inPlay ? " · abierta" : ""}` : inPlay ? " · en curso" : "";
    const current = inPlay || g.damaged ? "" : ` <button class="btn" type="button" data-open-game="${g.id}">Abrir</button>`;
    const damaged = g.damaged ? ` · ⚠ ${Render.esc(g.damaged)}` : "";
    const keep = ` <a class="btn" href="/api/games/${g.id}/replay" download aria-label="Descargar la partida ${g.id}">Descargar</a>` +
      ` <a class="btn" href="/api/games/${g.id}/evidence" download aria-label="Descargar la partida ${g.id} con audios y fotos">Con audios</a>`;
    const drop = inPlay ? "" : ` <button class="btn danger" type="button" data-delete-game="${g.id}" aria-label="Borrar la partida ${g.id}">Borrar</button>`;
    return `<li>#${g.id} · ${when} · ${Render.esc(names.A || "A")} ${g.score.A} — ${g.score.B} ${Render.esc(names.B || "B")}${how}${damaged}${current}${keep}${drop}</li>`;
  }).join("") + more;
}

/* A past game deleted whole, once the table says so: its log, its audios and its pictures. */
async function deleteGame(id) {
  if (!confirm(`¿Borramos la partida #${id} con su registro, sus audios y sus fotos? No se puede deshacer.`)) return;
  // a store made before it kept deleted room apart is rewritten once: that may take a while
  const done = await send("DELETE", `/api/games/${id}`, undefined, 60000);
  if (!done) return;
  toast(`Partida #${id} borrada, ${freedText(done.freed)}.`, true);
  await listGames();
}

/* «con 1,5 MB de audios y fotos», or «sin audios ni fotos». */
function freedText(bytes) {
  if (!bytes) return "sin audios ni fotos";
  const mb = (bytes / 1e6).toLocaleString("es-AR", { maximumFractionDigits: 1 });
  return `con ${bytes < 5e4 ? "menos de 0,1" : mb} MB de audios y fotos`;
}

function settingsFromForm() {
  const form = $("#settings-form");
  return {
    settings: {
      players: Number(form.players.value), points: Number(form.points.value),
      flor: form.flor.checked, match: form.match.checked, falta: form.falta.value,
    },
  };
}

/* True when a new game was started (not cancelled, not refused). */
async function newGame(body) {
  if (!confirm("¿Empezamos una partida nueva? La de ahora queda guardada en «Partidas anteriores».")) return false;
  return Boolean(await send("POST", "/api/games", body || {}));
}

/* Over a modal dialog the toast goes inside it: behind, the backdrop would hide it and the
   dialog would make it inert, out of a screen reader's reach. */
function toast(message, info, ms = 3500) {
  const el = $("#toast");
  const host = $("#dlg-calibration:modal") || $("dialog:modal") || document.body;
  if (el.parentElement !== host) host.append(el);
  el.textContent = message;
  el.classList.toggle("info", Boolean(info));
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; }, ms);
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
  else if (d.seat) { state.seat = d.seat; renderControls(state.snap); $(`[data-seat="${d.seat}"]`).focus(); }
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
  else if (d.openGame) send("POST", `/api/games/${d.openGame}/open`).then((ok) => ok && $("#dlg-settings").close());
  else if (d.deleteGame) deleteGame(Number(d.deleteGame));
  else if (d.moreGames) listGames(Number(d.moreGames));
  else if ("close" in d) target.closest("dialog").close();
}

const BUTTONS = {
  "#btn-undo": undo,
  "#btn-undo2": undo,
  "#btn-flip": () => oneTap("flip", () => send("POST", seen("/api/flip"))),
  "#btn-swap": () => oneTap("swap", () => send("POST", seen("/api/swap"))),
  "#btn-controls": () => toggleControls($("#controls").hidden),
  "#unsure-notice": showUnsure,
  "#btn-controls-close": () => toggleControls(false),
  "#btn-history": openHistory,
  "#btn-table-audio": () => $("#dlg-table-audio").showModal(),
  "#btn-keep-table-audio": keepTable,
  "#btn-settings": openSettings,
  "#btn-pin": () => (state.pin ? openSettings() : askPin()),
  "#btn-new-game": () => newGame({ names: state.snap.names }),
  "#btn-declare": declarePoints,
  "#btn-go-close": dismissGameOver,
  "#pin-cancel": () => $("#dlg-pin").close("cancel"),
  "#btn-go-history": openHistory,
  "#btn-go-again": () => newGame({ names: state.snap.names }),
  "#btn-save-names": saveNames,
  "#btn-apply-rules": applyRules,
  "#btn-change-pin": changePin,
  "#btn-warnings-close": () => { state.dismissedWarnings = `${state.snap.boot}:${state.snap.game_id}`; renderWarnings(state.snap); },
};

/* «Deshacer», at the top or among the controls: one tap takes back one line. */
function undo() {
  return oneTap("undo", () => send("POST", seen("/api/undo")));
}

/* A name box takes up to ``data-chars`` characters as the server counts them (``maxlength``
   would count an emoji as two): what is typed or pasted past that is cut, the caret kept. */
function capChars(input, composing) {
  const max = Number((input.dataset || {}).chars);
  const chars = Array.from(input.value || "");
  if (!max || composing || chars.length <= max) return;
  const caret = input.selectionStart;  // in the old text, whose start is kept whole
  input.value = chars.slice(0, max).join("");
  const at = Math.min(caret ?? input.value.length, input.value.length);
  input.setSelectionRange(at, at);
}

/* The names typed in «Ajustes»; null, with the empty box put back as it was and said why, when
   one was left empty. */
function namesFromForm() {
  const form = $("#settings-form");
  const names = { A: form.nameA.value.trim(), B: form.nameB.value.trim() };
  if (names.A && names.B) return names;
  if (!names.A) form.nameA.value = Render.teamName(state.snap, "A");
  if (!names.B) form.nameB.value = Render.teamName(state.snap, "B");
  toast(EMPTY_NAME);
  return null;
}

async function saveNames() {
  const names = namesFromForm();
  if (names && await send("PUT", "/api/names", names)) toast("Nombres guardados", true);
}

async function applyRules() {
  const names = namesFromForm();
  if (names && await newGame({ ...settingsFromForm(), names })) $("#dlg-settings").close();
}

/* The points the selected seat says, typed: none typed is no declaration. */
function declarePoints() {
  const input = $("#declare-points");
  if (input.value.trim() === "") { toast("Escribí los tantos"); input.focus(); return; }
  oneTap("declare", () => applyLine(`${state.seat}: ${Number(input.value)}`));
}

async function changePin() {
  const pin = $("#settings-form").newpin.value.trim();
  if (!/^\d{4,8}$/.test(pin)) { toast("El PIN tiene que tener de 4 a 8 números"); return; }
  if (await send("PUT", "/api/pin", { pin })) { setPin(pin); toast("PIN cambiado", true); }
}

function wire() {
  buildCallButtons();
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
  for (const input of $$(".name")) {
    input.addEventListener("change", () => {
      const team = input.dataset.team;
      if (!input.value.trim()) { input.value = Render.teamName(state.snap, team); toast(EMPTY_NAME); return; }
      send("PUT", "/api/names", { A: Render.teamName(state.snap, "A"), B: Render.teamName(state.snap, "B"), [team]: input.value.trim() });
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") input.value = Render.teamName(state.snap, input.dataset.team);  // as it was
      else if (event.key !== "Enter") return;
      event.preventDefault();  // else the same Enter lands in the PIN dialog the change may open
      input.blur();
    });
  }
  document.addEventListener("input", (event) => capChars(event.target, event.isComposing));
  $("#pin-form").addEventListener("submit", onPinSubmit);
  document.addEventListener("keydown", (event) => {  // Escape on the game-over screen: «Seguir mirando»
    if (event.key === "Escape" && !$("#gameover").hidden && !$("dialog[open]")) dismissGameOver();
  });
}

wire();
Calibration.wire(send);
setPin(state.pin);
const hostPinFetched = fetchHostPin();
connect();
watchLiveness();
