/* The page's words: seats and teams by their names, cards and log lines in words, and the
   engine's notes and refusals as a player reads them.  Plain text or HTML; nothing drawn here. */
"use strict";

const Words = (() => {
  const SUITS = { o: "oros", c: "copas", e: "espadas", b: "bastos" };
  const RULES = {
    players: "jugadores", points: "a", flor: "flor", falta: "falta envido", envido_credit: "tantos",
    mazo_extra: "mazo en primera", pica_pica: "pica-pica", match: "partido a chicos",
    contraflor_points: "contraflor", resto: "al resto",
  };
  const RULE_VALUES = {
    on: "sí", off: "no", true: "sí", false: "no", leader: "lo que le falta al que va ganando",
    malas: "en malas, el partido", "dos-faltas": "dos faltas", winner: "lo que le falta al ganador",
    settled: "al decidirse", "hand-end": "al final de la mano", "falta+flores": "falta y flores",
  };

  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => (
    { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  const teamOf = (seat) => (String(seat || "")[0] === "B" ? "B" : "A");

  function teamName(snap, team) {
    const names = snap.names || {};
    return names[team] || (team === "A" ? "Nosotros" : "Ellos");
  }

  /* A seat for people: its team's name, numbered at a table of four or six («Nosotros 2»); a seat
     the table has not (a typed «B2» at a table of two) keeps its code. */
  function seatName(snap, seat) {
    if (!seat) return "";
    const seats = snap.seats || [];
    if (seats.length && !seats.includes(seat)) return seat;
    const name = teamName(snap, teamOf(seat));
    return seats.length > 2 ? `${name} ${String(seat).slice(1)}` : name;
  }

  const tag = (snap, team, text, kind = "") => `<span class="t-${team === "B" ? "B" : "A"}${kind}">${esc(text ?? teamName(snap, team))}</span>`;
  /* A seat named in running text, kept whole on its line: «Nosotros 2», not «Nosotros» then «2». */
  const seatTag = (snap, seat) => tag(snap, teamOf(seat), seatName(snap, seat), " seat");

  function cardText(text) {
    const m = /^(\d+)([ocebOCEB])$/.exec(String(text || ""));
    return m ? `${m[1]} de ${SUITS[m[2].toLowerCase()]}` : String(text ?? "");
  }
  const card = (text) => esc(cardText(text));

  /* "el 7 de oros, el 6 de oros y el 5 de oros" */
  function cardList(cards) {
    const named = cards.map((c) => `el ${cardText(c)}`);
    return named.length > 1 ? `${named.slice(0, -1).join(", ")} y ${named[named.length - 1]}` : named.join("");
  }

  /* A line of the log (``points A +2``, ``A1 plays 7o``) in words, for people; plain text.
     The stored log keeps its notation: this is for showing only. */
  function logText(snap, line) {
    const text = String(line ?? "").trim();
    const seat = (code) => seatName(snap, code.toUpperCase());
    const spoken = /^([AB][1-3])\s*:\s*(.*)$/i.exec(text);
    if (spoken) return `${seat(spoken[1])} dice ${spoken[2]}`;
    const w = text.split(/\s+/);
    const head = (w[0] || "").toLowerCase();
    const team = (word) => (/^[ab]$/i.test(word || "") ? teamName(snap, word.toUpperCase()) : word);
    const duel = (code) => (code ? ` (duelo de ${seat(code)})` : "");
    if (/^[AB][1-3]$/i.test(w[0] || "") && w.length >= 3) {
      const who = seat(w[0]), verb = w[1].toLowerCase();
      if (["plays", "juega"].includes(verb) && w.length === 3) return `${who} juega ${cardList(w.slice(2))}`;
      if (["shows", "muestra"].includes(verb)) return `${who} muestra ${cardList(w.slice(2))}`;
    }
    if (["hand", "mano"].includes(head)) return w.length === 1 ? "mano nueva" : `mano para ${team(w[1])}${duel(w[2])}`;
    if (["round", "vuelta"].includes(head) && w.length > 1) {
      return `${w[1].toLowerCase() === "parda" ? "vuelta parda" : `vuelta para ${team(w[1])}`}${duel(w[2])}`;
    }
    if (head === "envido" && /^(aside|aparte)$/i.test(w[1] || "")) return `envido aparte${duel(w[2])}`;
    if (head === "envido" && w.length > 1) return `envido para ${team(w[1])}${duel(w[2])}`;
    if (["points", "puntos"].includes(head) && w.length === 3) {
      const n = Number(w[2]);
      return Number.isFinite(n) ? `${team(w[1])} ${n < 0 ? "−" : "+"}${Math.abs(n)}` : text;
    }
    if (head === "set" && w.length === 3) {
      const value = RULE_VALUES[w[2].toLowerCase()] ?? w[2];
      return `regla: ${RULES[w[1].toLowerCase()] || w[1]} ${value}`;
    }
    return text;
  }

  /* The seat (``A2``) and team (``A``) codes of a text from the server (a note or refusal of the
     engine, what the camera saw) as the players' names, each drawn by ``draw(team, name)``; what
     it quotes («A1: truco», words said or to be typed) stays as written. */
  const CALL = "(?:real envido|falta envido|envido)";
  const CODES = new RegExp(`«[^»]*»|\\b${CALL}(?: ${CALL})+\\b|\\b[AB][1-3]?\\b`, "g");
  const nameCodes = (snap, text, draw) => text.replace(CODES, (code) => (code[0] === "«" ? code :
    code.length > 2 ? chain(code) : draw(teamOf(code), code.length > 1 ? seatName(snap, code) : teamName(snap, code))));
  /* An envido chain as the board writes it: «envido real envido» is «envido + real envido». */
  const chain = (calls) => calls.match(new RegExp(CALL, "g")).join(" + ");

  /* A note or refusal from the engine with its seats and teams named, in their colours. */
  const note = (snap, text) => nameCodes(snap, esc(text), (team, name) => tag(snap, team, name));

  /* ``note`` as plain text, for a message box. */
  const named = (snap, text) => nameCodes(snap, String(text ?? ""), (team, name) => name);

  /* -- refusals --------------------------------------------------------------------------- */
  /* The codes of a refusal of the rules, whose words begin with the event refused in the
     engine's Spanish notation (``in_spanish``): «A1: quiero: todavía no se repartió la mano»;
     ``passed``, a doubtful call no longer confirmed, quotes one such refusal between brackets. */
  const RULES_REFUSED = new Set(["line-rejected", "flip-refused", "seat-refused", "swap-refused", "passed"]);

  /* How a refusal is written: as plain text (a message box) or drawn (escaped, the seats and
     teams in their colours). */
  const PLAIN = { words: (s) => s, named, seat: seatName };
  const DRAWN = { words: esc, named: note, seat: seatTag };

  /* How such a refusal reads, by the event it begins with: [its notation, the words before why]. */
  const REFUSED_EVENTS = [
    [/^([AB][1-3]): ([^:«»]+)$/, (snap, m, as) => `No vale el «${as.words(m[2])}» de ${as.seat(snap, m[1])}`],
    [/^(?:[AB][1-3] (?:juega|muestra) |(?:mano|vuelta|envido|puntos|set)\b)[^:«»]*$/,
      (snap, m, as) => `No se puede anotar «${as.words(logText(snap, m[0]))}»`],
  ];

  /* A refusal of the rules whose text begins with the event refused, in words, then why
     («No vale el «quiero» de Nosotros: todavía no se repartió la mano»); null for any other text. */
  function refused(snap, text, as) {
    const cut = text.indexOf(": ", /^[AB][1-3]: /.test(text) ? 4 : 0);
    if (cut < 0) return null;
    const event = text.slice(0, cut);
    for (const [pattern, words] of REFUSED_EVENTS) {
      const m = pattern.exec(event);
      if (m) return `${words(snap, m, as)}: ${as.named(snap, text.slice(cut + 2))}`;
    }
    return null;
  }

  /* A reason that is, or quotes at its end between brackets, a refusal of the rules, read as
     ``refused`` reads it («… después se anotó «truco» (No vale el «quiero» de Ellos: …)»); any
     other text only named. */
  function ruled(snap, text, as) {
    const whole = refused(snap, text, as);
    if (whole !== null) return whole;
    const quoted = /^(.*\((?:antes: )?)([^()]+)\)$/.exec(text);
    const inner = quoted && refused(snap, quoted[2], as);
    return inner ? `${as.named(snap, quoted[1])}${inner})` : as.named(snap, text);
  }

  /* A refusal from the server as a player reads it, for a message box: what was refused, in
     words, then why, with the seats and teams named; any other message (a typing hint, the disk)
     only named.  ``code`` is the server's: only the rules' refusals begin with an event. */
  const refusal = (snap, code, text) => (RULES_REFUSED.has(code) ?
    ruled(snap, String(text ?? ""), PLAIN) : named(snap, String(text ?? "")));

  /* The reason a heard call was refused, or waits, drawn on the page as a toast says it. */
  const reason = (snap, text) => ruled(snap, String(text ?? ""), DRAWN);

  return { esc, teamOf, teamName, seatName, tag, seatTag, card, logText, note, named, refusal, reason };
})();
