/* What the page's parts share: the table on screen and their own choices (``state``), and the
   toast that tells the table what happened to a tap. */
"use strict";

const Page = (() => {
  const $ = (sel) => document.querySelector(sel);
  const state = {
    snap: {}, seat: "A1", suggested: null, dismissedWarnings: null,
    overKey: null, dismissedGameOver: null, focusBeforeOver: null,
  };
  window.scoreboard = { renders: [], chimes: [], get snapshot() { return state.snap; } };

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

  return { state, toast };
})();
