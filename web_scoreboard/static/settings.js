/* «Ajustes»: the teams' names (in the dialog and on the board), the rules of a new game, the
   PIN; the past games are games.js's. */
"use strict";

const Settings = (() => {
  const EMPTY_NAME = "El nombre no puede quedar vacío";
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

  async function changePin() {
    const pin = $("#settings-form").newpin.value.trim();
    if (!/^\d{4,8}$/.test(pin)) { toast("El PIN tiene que tener de 4 a 8 números"); return; }
    if (await send("PUT", "/api/pin", { pin })) { setPin(pin); toast("PIN cambiado", true); }
  }

  /* The names on the board: a name typed there is saved as the settings' are, none is put back;
     and every name box is held to its ``data-chars``. */
  function wire() {
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
  }

  return { wire, open: openSettings, newGame, saveNames, applyRules, changePin };
})();
