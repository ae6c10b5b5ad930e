/* «Ajustes»: the teams' names (in the dialog and on the board), the rules of a new game, the
   PIN; the past games are games.js's. */
"use strict";

const Settings = (() => {
  const EMPTY_NAME = "El nombre no puede quedar vacío";
  const SAME_NAME = (a, b) => `Los dos equipos no pueden llamarse igual («${a}» y «${b}»): cambiá uno, así el tablero dice de quién habla`;
  const $ = (sel) => document.querySelector(sel);
  const $$ = (sel) => Array.from(document.querySelectorAll(sel));
  const { state, toast } = Page;
  const { send, setPin } = Connection;

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
    await PastGames.list();
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

  /* A name box takes up to ``data-chars`` characters as the server counts them (``maxlength``
     would count an emoji as two): what is typed or pasted past that is cut, the caret kept. */
  function capChars(input, composing) {
    const max = Number((input.dataset || {}).chars);
    const chars = Array.from((input.value || "").normalize("NFC"));  // «í» typed as i + ´: one
    if (!max || composing || chars.length <= max) return;
    const caret = input.selectionStart;  // in the old text, whose start is kept whole
    input.value = chars.slice(0, max).join("");
    const at = Math.min(caret ?? input.value.length, input.value.length);
    input.setSelectionRange(at, at);
  }

  /* What a name is compared by, as the server does (referee/names.py ``name_key``): on one line,
     spaces collapsed, in any case or Unicode form (upper then lower: «ß» is «ss», as casefold). */
  function nameKey(name) {
    const clean = name.normalize("NFC").replace(/[\p{C}\s]+/gu, " ").trim();
    return clean.normalize("NFD").toUpperCase().toLowerCase().normalize("NFD");
  }

  /* Why two teams' names cannot be kept, shown as the toast; "" when they can. */
  function namesRefused(names) {
    if (!names.A || !names.B) return EMPTY_NAME;
    return nameKey(names.A) === nameKey(names.B) ? SAME_NAME(names.A, names.B) : "";
  }

  /* The names typed in «Ajustes»; null, said why, when one was left empty (the box put back as
     it was) or both are one name (the second box to change, as typed). */
  function namesFromForm() {
    const form = $("#settings-form");
    const names = { A: form.nameA.value.trim(), B: form.nameB.value.trim() };
    const refused = namesRefused(names);
    if (!refused) return names;
    if (!names.A) form.nameA.value = Render.teamName(state.snap, "A");
    if (!names.B) form.nameB.value = Render.teamName(state.snap, "B");
    if (names.A && names.B) form.nameB.focus();
    toast(refused);
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

  async function changePin() {
    const pin = $("#settings-form").newpin.value.trim();
    if (!/^\d{4,8}$/.test(pin)) { toast("El PIN tiene que tener de 4 a 8 números"); return; }
    if (await send("PUT", "/api/pin", { pin })) { setPin(pin); toast("PIN cambiado", true); }
  }

  /* The names on the board: a name typed there is saved as the settings' are; an empty one, or
     the other team's, is put back as it was and said why; and every name box is held to its
     ``data-chars``. */
  function wire() {
    for (const input of $$(".name")) {
      input.addEventListener("change", () => {
        const team = input.dataset.team;
        const names = { A: Render.teamName(state.snap, "A"), B: Render.teamName(state.snap, "B"), [team]: input.value.trim() };
        const refused = namesRefused(names);
        if (refused) { input.value = Render.teamName(state.snap, team); toast(refused); return; }
        send("PUT", "/api/names", names);
      });
      input.addEventListener("keydown", (event) => {
        if (event.key === "Escape") input.value = Render.teamName(state.snap, input.dataset.team);  // as it was
        else if (event.key !== "Enter") return;
        event.preventDefault();  // else the same Enter lands in the PIN dialog the change may open
        input.blur();
      });
    }
    document.addEventListener("input", (event) => capChars(event.target, event.isComposing));
  }

  return { wire, open: openSettings, newGame, saveNames, applyRules, changePin };
})();
