/* «Partidas anteriores» in «Ajustes»: the past games listed, with who won them, to open,
   download or delete. */
"use strict";

const PastGames = (() => {
  const $ = (sel) => document.querySelector(sel);
  const { toast } = Page;
  const { send } = Connection;

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

  /* A past game opened on the board, and «Ajustes» closed once it is. */
  function openGame(id) {
    send("POST", `/api/games/${id}/open`).then((ok) => ok && $("#dlg-settings").close());
  }

  return { list: listGames, open: openGame, remove: deleteGame };
})();
