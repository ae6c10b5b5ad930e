/* The connection to the referee: live snapshots over /ws, kept alive, and changes through the
   HTTP API with the table PIN, one tap at a time. */
"use strict";

const Connection = (() => {
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
  const $ = (sel) => document.querySelector(sel);
  const { state, toast } = Page;
  let socket = null;
  let retry = 250;
  let heardAt = 0;
  let unanswered = 0;  // taps the referee took and did not answer
  let pin = localStorage.getItem(PIN_KEY) || "";
  let hostPin = false;
  let render = null;  // app.js's: draws a snapshot newer than the one on screen
  let hostPinFetched = null;

  /* -- live updates ----------------------------------------------------------------------- */
  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws`);
    socket = ws;
    ws.onopen = () => { retry = 250; heardAt = Date.now(); setConnected(true); };
    ws.onmessage = (event) => {
      heardAt = Date.now();
      let data;
      try { data = JSON.parse(event.data); } catch { return; }
      if (data.error) toast(Render.refusal(state.snap, data.error.code, data.error.message));
      else if (!data.ok) render(data);
    };
    ws.onclose = () => {
      setConnected(false);
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 3000);
    };
    ws.onerror = () => ws.close();
  }

  /* A server that lost its power or its network leaves the socket open on this side, silent: the
     page asks every ALIVE_MS, and with no word back for two and a half of those it says so and
     connects again, instead of showing a frozen score as «en vivo». */
  const ALIVE_MS = 10000;
  function watchLiveness() {
    setInterval(() => {
      const ws = socket;
      if (!ws || ws.readyState !== WebSocket.OPEN) return;
      if (Date.now() - heardAt > 2.5 * ALIVE_MS) {
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

  /* -- changes (with the PIN) ------------------------------------------------------------- */
  async function send(method, path, body, wait = ANSWER_MS) {
    if (!pin) await hostPinFetched;  // a tap as the page opens: the host's PIN may be on its way
    if (!pin && !(await askPin())) return null;
    const response = await request(method, path, body, wait);
    if (response === UNANSWERED) { unanswered += 1; toast(NO_ANSWER, false, 8000); return null; }
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
    const had = pin;
    const changed = Boolean(had) && error.code === "wrong-pin";
    setPin("");
    if (changed && hostPin) {
      await fetchHostPin();
      if (pin && pin !== had) return send(method, path, body, wait);
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
        method, headers: { "Content-Type": "application/json", "X-Table-PIN": pin },
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
    const before = unanswered;
    const run = lining.then(() => (unanswered > before ? null : send("POST", seen("/api/events"), { line })));
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

  function setPin(given) {
    pin = given;
    if (pin) localStorage.setItem(PIN_KEY, pin); else localStorage.removeItem(PIN_KEY);
    const button = $("#btn-pin");
    button.classList.toggle("unlocked", Boolean(pin));
    button.textContent = pin ? (hostPin ? `PIN ${pin} ✓` : "PIN ✓") : "Ingresar PIN";
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
        const typed = $("#pin-input").value.trim();
        resolve(dialog.returnValue === "ok" && typed ? await checkPin(typed) : false);
      }, { once: true });
    });
  }

  async function checkPin(typed) {
    let check;
    try {
      check = await fetch("/api/pin/check", { method: "POST", headers: { "X-Table-PIN": typed } });
    } catch {
      toast(OFFLINE);
      return false;
    }
    if (check.ok) { setPin(typed); return true; }
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
      hostPin = true;
      setPin((await response.json()).pin);
    } catch { /* not the host */ }
  }

  /* Start: the PIN this page has, the host's fetched, the socket opened and watched; ``draw``
     is given each snapshot that comes. */
  function start(draw) {
    render = draw;
    setPin(pin);
    hostPinFetched = fetchHostPin();
    connect();
    watchLiveness();
  }

  return { start, send, seen, applyLine, oneTap, tapLine, setPin, askPin, onPinSubmit, get pin() { return pin; } };
})();
