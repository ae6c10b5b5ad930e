/* The voices' calibration from the tablet: «Voces» in the settings starts it, and while the
   server calibrates a modal panel on every page shows each player what to say.  The snapshot's
   ``calibration`` is null when this server cannot calibrate: then nothing of it shows. */
"use strict";

const Calibration = (() => {
  const $ = (sel) => document.querySelector(sel);
  // What the panel shows in each state: [title, the step line, the big line, the small line,
  // the buttons (``data-calibration`` actions)].
  const VIEWS = {
    listening: (c) => ["Calibrar las voces", `${who(c)} · ${c.index}/${c.total}`,
      `Decí: «${c.prompt}»`, c.last, ["skip", "cancel"]],
    ready: (c) => ["Calibrar las voces", "",
      `${who(c)}: cuando estés listo, tocá Empezar`, c.last, ["next", "cancel"]],
    fitting: (c) => ["Calibrar las voces", "", c.message || `Calibrando con ${c.heard} frases…`, "", []],
    done: (c) => ["Calibración de las voces", "", c.message, unnamed(c) ? "Para saber de quién es cada voz, escribí sus nombres en Ajustes → Voces." : "", ["close"]],
    failed: (c) => ["⚠ No se pudo calibrar", "", c.message, "", ["close"]],
  };
  // Who is saying the prompts: a player of the table, or one who sat down after it calibrated,
  // by their name once they gave it («Ana, jugador 1 de 2»).
  const who = (c) => {
    const role = c.adding ? "jugador nuevo" : "jugador";
    const named = c.name ? `${c.name}, ${role}` : role[0].toUpperCase() + role.slice(1);
    return named + (c.adding && c.players === 1 ? "" : ` ${c.player} de ${c.players}`);
  };
  const players = (n) => (n === 1 ? "un jugador" : `${n} jugadores`);
  // Several players kept, some of them known only by their number.
  const unnamed = (c) => c.kept > 1 && (c.names || []).slice(0, c.kept).some((name) => !name);
  let send = null;  // connection.js's send(method, path, body): the PIN, the refusals shown
  let shown = null;  // the calibration on screen, null or its state
  let busy = false;  // a tap on its way: a second one would skip the next prompt too

  /* The panel is open on every page while the server is doing something, and only then. */
  const panelOpen = (cal) => Boolean(cal) && cal.state !== "idle";

  function render(snap) {
    const cal = snap.calibration || null;
    shown = cal;
    renderSettings(cal);
    renderPanel(cal);
    renderMic(cal, snap.sources);
  }

  /* A microphone that stopped hearing while the players are recorded: the panel says so, and
     that the prompt shown waits for it (nothing is counted while it hears nothing). */
  function renderMic(cal, sources) {
    const waiting = panelOpen(cal) && ["listening", "ready"].includes(cal.state);
    const lost = (sources || []).filter((s) => String(s.key).startsWith("mic") && ["trouble", "off"].includes(s.state));
    const el = $("#cal-mic");
    el.textContent = waiting && lost.length
      ? `⚠ El micrófono no escucha: ${lost.map((s) => s.message).join("; ")}. La calibración sigue cuando vuelva.`
      : "";
    el.hidden = !el.textContent;
  }

  function renderSettings(cal) {
    // While nothing was heard, a table whose voices are not calibrated is told where to do it.
    if (cal && !cal.calibrated) $("#heard-list").dataset.hint = "Para que oiga mejor, calibrá las voces: Ajustes → Voces.";
    else delete $("#heard-list").dataset.hint;
    $("#voices").hidden = !cal;
    if (!cal) return;
    $("#btn-calibrate").disabled = cal.state !== "idle";
    $("#calibrated").textContent = !cal.calibrated ? "Todavía sin calibrar."
      : cal.kept ? `Las voces de la mesa están calibradas (${players(cal.kept)}). Si se sienta alguien nuevo, sumalo: con una calibración hecha sin su voz se lo oye peor. Si alguien se va, su voz puede quedar (a los demás se los oye igual) o la podés sacar: se borran sus grabaciones.`
      : "Las voces de la mesa están calibradas.";
    $("#btn-add-voice").hidden = !cal.calibrated || !cal.kept || cal.state !== "idle";
    renderKept(cal);
    $("#btn-forget-voices").hidden = !cal.calibrated || cal.state !== "idle";
  }

  /* Each player whose recordings the calibration keeps: their name (written there, kept when
     it changes), their voice, to tell who is who, and «Sacar» for one who left the table. */
  function renderKept(cal) {
    const list = $("#kept-voices");
    const count = cal.calibrated && cal.state === "idle" ? cal.kept : 0;
    if (list.children.length !== count) {
      list.replaceChildren(...Array.from({ length: count }, (_, k) => keptPlayer(k + 1)));
    }
    for (const [k, row] of Array.from(list.children).entries()) {
      const name = (cal.names || [])[k] || "";
      const input = row.querySelector("input");
      if (input !== document.activeElement) input.value = name;  // not while it is written
      row.querySelector("[data-voice]").setAttribute("aria-label", `Escuchar ${voiceOf(k + 1, name)}`);
      row.querySelector("[data-calibration]").setAttribute("aria-label", `Sacar ${voiceOf(k + 1, name)} de la calibración`);
    }
    list.hidden = !count;
  }

  const voiceOf = (player, name) => (name ? `la voz de ${name}` : `la voz del jugador ${player}`);

  function keptPlayer(player) {
    const row = document.createElement("li");
    const name = document.createElement("input");
    Object.assign(name, { type: "text", placeholder: `Jugador ${player}`, autocomplete: "off" });
    name.dataset.chars = "30";  // characters, as the server counts them (settings.js ``capChars``)
    name.dataset.player = String(player);
    name.setAttribute("aria-label", `Nombre del jugador ${player}`);
    const listen = button("▶");
    listen.dataset.voice = String(player);
    const remove = button("Sacar");
    remove.classList.add("danger");
    Object.assign(remove.dataset, { calibration: "remove", player: String(player) });
    row.append(name, listen, remove);
    return row;
  }

  function button(words) {
    const el = document.createElement("button");
    Object.assign(el, { type: "button", className: "btn", textContent: words });
    return el;
  }

  function renderPanel(cal) {
    const dialog = $("#dlg-calibration");
    if (!panelOpen(cal)) {
      if (dialog.open) dialog.close();
      return;
    }
    const focused = document.activeElement;  // before its button may hide
    const [title, step, say, last, actions] = (VIEWS[cal.state] || VIEWS.fitting)(cal);
    $("#cal-title").textContent = title;
    for (const [sel, words] of [["#cal-step", step], ["#cal-say", say], ["#cal-last", last]]) {
      $(sel).textContent = words || "";
      $(sel).hidden = !words;
    }
    $("#cal-say").classList.toggle("prompt", cal.state === "listening");
    // the player saying the prompts (or the next one to) may give a name, kept with their voice
    $("#cal-name-row").hidden = !["listening", "ready"].includes(cal.state);
    if ($("#cal-name") !== document.activeElement) $("#cal-name").value = cal.name || "";
    dialog.classList.toggle("trouble", cal.state === "failed");
    for (const button of dialog.querySelectorAll("[data-calibration]")) {
      button.hidden = !actions.includes(button.dataset.calibration);
    }
    const first = dialog.querySelector("[data-calibration]:not([hidden])");
    if (!dialog.open) {  // the first button takes the focus, not the name (a tablet's keyboard)
      dialog.showModal();
      if (first) first.focus();
    } else if (dialog.contains(focused) && focused.hidden && first) first.focus();  // its button gone
  }

  /* A tap on «Calibrar las voces», on a kept player (``player``; a ``name`` written for them)
     or on the panel; the answer is the new snapshot. */
  async function act(action, player, name) {
    if (busy) return;
    if (action === "forget" && !confirm("¿Olvidamos la calibración de las voces? Se vuelve a escuchar sin ella.")) return;
    if (action === "remove" && !confirm(`¿Sacamos ${voiceOf(player, (shown.names || [])[player - 1])}? Se borran sus grabaciones y se calibra de nuevo con las de los demás.`)) return;
    busy = true;
    try {
      const body = { action };
      if (action === "start") body.players = Number($("#calibrate-players").value) || 1;
      if (action === "add") body.players = 1;
      if (action === "skip" && shown) body.index = shown.index;  // the server may have moved on
      if (["remove", "rename"].includes(action)) Object.assign(body, { index: Number(player), kept: shown.kept });
      if (["rename", "name"].includes(action)) body.name = name.trim();
      const snap = await send("POST", "/api/calibration", body);
      if (snap && ["start", "add", "remove"].includes(action) && $("#dlg-settings").open) $("#dlg-settings").close();
    } finally {
      busy = false;
    }
  }

  /* The settings opened: as many players as the table has, to begin with. */
  function settingsOpened(players) {
    const count = Math.min(Math.max(Number(players) || 1, 1), 6);
    $("#calibrate-players").value = String(count);
  }

  /* Escape must not leave a panel closed while the server still listens: it does nothing, and
     a panel the browser closes all the same (a second Escape) opens again. */
  function wire(sendChange) {
    send = sendChange;
    const dialog = $("#dlg-calibration");
    dialog.addEventListener("cancel", (event) => event.preventDefault());
    dialog.addEventListener("keydown", (event) => { if (event.key === "Escape") event.preventDefault(); });
    dialog.addEventListener("close", () => { if (panelOpen(shown)) renderPanel(shown); });
    // a kept player's name, kept once written (Enter or leaving the field); refused, shown again
    $("#kept-voices").addEventListener("change", async (event) => {
      const input = event.target;
      await act("rename", input.dataset.player, input.value);
      if (shown) renderKept(shown);
    });
    $("#kept-voices").addEventListener("keydown", (event) => {
      if (event.key === "Enter" && event.target.matches("input")) { event.preventDefault(); event.target.blur(); }
    });
    // the name of the player saying the prompts: kept once written; Enter goes on to the panel's
    // buttons (the focus stays in the panel, where Escape is held)
    $("#cal-name").addEventListener("change", (event) => act("name", null, event.target.value));
    $("#cal-name").addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      const first = dialog.querySelector("[data-calibration]:not([hidden])");
      if (first) first.focus(); else event.target.blur();
    });
  }

  return { render, act, settingsOpened, wire };
})();
