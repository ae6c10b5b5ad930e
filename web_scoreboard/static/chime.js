/* A short chime on this tablet when the voice referee writes down a call it heard, another when
   what it heard waits for a tap: the table knows it was heard without looking. Off until it is
   turned on in Ajustes, on each tablet by itself (only the one beside the deck should sound).
   The referee does not hear its own chime as speech (tests/referee/test_chime_not_heard.py). */
"use strict";

const Chime = (() => {
  const KEY = "truco-referee.chime";
  // What each kind sounds like: its notes, [hertz, seconds], one after another.
  const NOTES = {"anotado": [[660, 0.09], [990, 0.14]], "dudoso": [[740, 0.09], [0, 0.06], [740, 0.09]]};
  const LEVEL = 0.2;  // of full scale: heard across a table, not over it
  let context = null;
  let newest = null;  // the newest heard item's id this page has seen (null: no snapshot yet)

  function enabled() { return localStorage.getItem(KEY) === "1"; }

  /* Turned on or off from a tap (which lets the page make sound), and sounded once to hear it. */
  function set(on) {
    if (on) localStorage.setItem(KEY, "1"); else localStorage.removeItem(KEY);
    if (on) play("anotado");
  }

  /* Browsers keep a page silent until someone touches it: the first tap wakes the sound. */
  function wake() {
    if (context && context.state === "suspended") context.resume().catch(() => {});
  }

  function play(kind) {
    const chimes = window.scoreboard.chimes;  // what sounded, for the page's tests
    chimes.push(kind);
    if (chimes.length > 500) chimes.splice(0, 250);
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    context = context || new Ctx();
    wake();
    let at = context.currentTime + 0.02;
    for (const [hz, seconds] of NOTES[kind]) {
      if (hz) {
        const tone = context.createOscillator();
        const gain = context.createGain();
        tone.frequency.value = hz;
        gain.gain.setValueAtTime(LEVEL, at);
        gain.gain.exponentialRampToValueAtTime(0.001, at + seconds);  // a soft end, no click
        tone.connect(gain).connect(context.destination);
        tone.start(at);
        tone.stop(at + seconds);
      }
      at += seconds;
    }
  }

  /* On each snapshot: a chime for the voice's newest items, if there are new ones (none for
     what was there when the page opened, a game opened again, the camera or a kept sound). */
  function heard(snap) {
    const items = snap.heard || [];
    const ids = items.map((h) => Number(h.id)).filter(Number.isFinite);
    const before = newest;
    newest = Math.max(newest ?? 0, ...ids);
    if (before === null || !enabled()) return;
    const fresh = items.filter((h) => Number(h.id) > before && !(h.extra && h.extra.seen));
    if (fresh.some((h) => h.status === "unsure")) play("dudoso");
    else if (fresh.some((h) => h.status === "accepted")) play("anotado");
  }

  return { enabled, set, wake, heard };
})();
