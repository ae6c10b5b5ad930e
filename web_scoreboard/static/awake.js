/* The tablet's screen kept on while the scoreboard is shown (the Screen Wake Lock), where the
   browser allows it: on the machine that serves it, or over https. A tablet that opens it
   over the local network at http:// gets no such lock from its browser; Ajustes → Esta tablet
   then says how to keep its screen on. */
"use strict";

const Awake = (() => {
  let lock = null;
  let asking = false;  // one request at a time: taps come faster than the browser answers
  let state = "none";  // "on" (held), "refused" (the browser said no), "none" (no such lock here)

  async function hold() {
    if (!("wakeLock" in navigator) || document.visibilityState !== "visible" || lock || asking) return;
    asking = true;
    try {
      lock = await navigator.wakeLock.request("screen");
      state = "on";
      lock.addEventListener("release", () => { lock = null; });
    } catch {
      state = "refused";  // low battery, or a browser policy: the screen goes off as the tablet says
    } finally {
      asking = false;
    }
  }

  /* In words, for Ajustes → Esta tablet. */
  function said() {
    return state === "on" ? "La pantalla queda prendida mientras se ve el tanteador." :
      "Esta tablet puede apagar la pantalla sola: en sus ajustes, poné que no se apague " +
      "(o el tiempo de pantalla más largo) mientras se juega.";
  }

  function wire() {
    hold();
    document.addEventListener("visibilitychange", hold);  // a lock goes when the page is hidden
    document.addEventListener("pointerdown", hold);
  }

  return { wire, said, get state() { return state; } };
})();
