/* The strip of the referee's microphones and camera (render.js draws it) opened whole by a tap:
   on a bar with no room for it (a phone on its side; one held upright, with two badges or more)
   it shows as a count, «⚠ 2», and on a
   landscape tablet each badge shows its reason on one line, cut; the tap shows every badge with
   its whole reason under the bar.  A tap on it, outside it, or Escape closes it. */
"use strict";

const SourcesStrip = (() => {
  const bar = () => document.querySelector("header.top");
  const toggle = () => document.querySelector("#sources-toggle");

  function open(yes) {
    bar().classList.toggle("sources-open", yes);
    toggle().setAttribute("aria-expanded", String(yes));
  }

  function wire() {
    document.addEventListener("click", (event) => {
      const shown = bar().classList.contains("sources-open");
      const onStrip = event.target.closest("#sources, #sources-toggle");
      if (onStrip) open(!shown);
      else if (shown) open(false);
    });
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && bar().classList.contains("sources-open")) {
        open(false);
        toggle().focus({ preventScroll: true });
      }
    });
  }

  return { wire, open };
})();
