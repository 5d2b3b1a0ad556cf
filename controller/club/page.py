"""The club's page: phone-sized, read-only, live through Server-Sent Events (`/events`).

Said in the reader's language (`lang=`, the page's own links, else the browser's `Accept-Language`,
else the club's `--language`): the server fills the page's words in (`page_in(language)`), and hands
its script the sentences it builds as a JSON data block; the script itself is the same in every
language, so the Content-Security-Policy names it by one hash.
"""

from __future__ import annotations

import html
import json
import re

from controller.language import LANGUAGES, NAMES, _, _p, said

#: The page; `@@name@@` is one of `words(language)`, filled in by `page_in`. The inline `<script>` and
#: `<style>` have no field: their hashes are the policy's.
TEMPLATE = """<!doctype html>
<html lang="@@lang@@"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@@title@@</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;padding:.5rem;background:#f4f4f1;color:#222;max-width:60rem}
h1{font-size:1.2rem;margin:.3rem 0} h2{font-size:1rem;margin:1rem 0 .3rem}
#tables{display:grid;grid-template-columns:repeat(auto-fill,minmax(17rem,1fr));gap:.5rem}
.t{background:#fff;border-radius:.5rem;padding:.5rem .7rem;box-shadow:0 1px 2px #0002}
.t header{display:flex;justify-content:space-between;font-weight:600}
.on{color:#1a7f37}.off{color:#b42318}.fault{color:#b42318}.muted{color:#666;font-size:.9rem}
nav{float:right;font-size:.9rem} nav a{margin-left:.4rem}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{padding:.25rem .4rem;text-align:left;border-bottom:1px solid #ddd;font-size:.95rem}
td.n{text-align:right} .help{color:#8a4b00} tr.apart td{background:#fff7e6}
</style></head><body>
<nav aria-label="@@language@@">@@languages@@</nav>
<h1>@@title@@</h1>
<p id="broker" class="fault" role="alert" hidden></p>
<div id="tables"></div>
<h2>@@standings@@ <a class="muted" href="/standings.csv?lang=@@lang@@">CSV</a></h2>
<table><thead><tr><th>#</th><th>@@player@@</th><th>@@played@@</th><th title="@@wins@@">@@w@@</th>\
<th title="@@draws@@">@@d@@</th><th title="@@losses@@">@@l@@</th><th>@@points@@</th>\
<th title="@@helped_title@@">@@helped@@</th><th title="@@computer_title@@">@@computer@@</th></tr></thead>
<tbody id="standings"></tbody></table>
<p class="muted">@@apart@@</p>
<h2>@@games@@</h2>
<table><thead><tr><th>@@table@@</th><th>@@game@@</th><th>@@players@@</th><th>@@result@@</th><th>@@help@@</th></tr></thead>
<tbody id="games"></tbody></table>
<script type="application/json" id="words">@@script_words@@</script>
<script>
const W = JSON.parse(document.getElementById("words").textContent);
const LANG = document.documentElement.lang;
const tables = {};
function say(text, args){return text.replace(/\\{(\\w+)\\}/g, (all, k) => k in args ? String(args[k]) : all);}
function el(tag, cls, text){const e=document.createElement(tag); if(cls) e.className=cls;
  if(text!==undefined&&text!==null) e.textContent=text; return e;}
function card(t){
  const c=el("div","t"); c.id="t-"+t.table;
  const h=el("header"); h.append(el("span","",t.table));
  h.append(el("span", t.online===false?"off":"on", t.online===false?W.offline:(t.online?W.online:"")));
  c.append(h);
  if(t.game) c.append(el("div","", t.game_words||t.game));
  const who=t.players_words&&t.players_words.length?t.players_words:t.names;
  if(who&&who.length) c.append(el("div","muted", who.join(", ")));
  if(t.help_words) c.append(el("div","help", t.help_words));
  if(t.over) c.append(el("div","", t.winners_words?say(W.won,{winners:t.winners_words}):W.over));
  else if(t.turn_words) c.append(el("div","", say(W.turn,{player:t.turn_words})));
  if(t.scores) c.append(el("div","muted",say(W.scores,{scores:t.scores.map(s=>s===null?"?":s).join(" / ")})));
  if(t.last_verdict) c.append(el("div","", say(W.last,{verdict:t.last_verdict})));
  if(t.unreadable) c.append(el("div","muted",say(W.unreadable,{places:t.unreadable})));
  for(const f of t.faults||[]) c.append(el("div","fault",say(W.fault,{fault:f})));
  return c;
}
function showTable(t){tables[t.table]=t; const old=document.getElementById("t-"+t.table); const c=card(t);
  if(old) old.replaceWith(c); else {const box=document.getElementById("tables"); box.append(c);
    [...box.children].sort((a,b)=>a.id.localeCompare(b.id)).forEach(x=>box.append(x));}}
function showStandings(rows){const body=document.getElementById("standings"); body.textContent="";
  for(const s of rows){const tr=el("tr"); tr.append(el("td","n",s.rank), el("td","",s.name), el("td","n",s.played),
    el("td","n",s.wins), el("td","n",s.draws), el("td","n",s.losses), el("td","n",s.points),
    el("td","n",s.helped), el("td","n",s.against_computer)); body.append(tr);}}
function showGames(rows){const body=document.getElementById("games"); body.textContent="";
  for(const g of rows){const tr=el("tr", g.help_words?"apart":""); tr.dataset.game=g.table+"/"+g.game_id;
    tr.append(el("td","",g.table), el("td","",g.game_words), el("td","",g.players_words),
    el("td","",g.result_words), el("td","help",g.help_words||"")); body.append(tr);}}
async function broker(){try{const b=await (await fetch("/api/broker?lang="+LANG)).json();
  const p=document.getElementById("broker"); p.hidden=!b.problem;
  p.textContent=b.problem?say(W.fault,{fault:b.problem}):"";}
  catch(e){} setTimeout(broker, 3000);}
broker();
const live=new EventSource("/events?lang="+LANG);
live.addEventListener("table", e=>showTable(JSON.parse(e.data)));
live.addEventListener("standings", e=>showStandings(JSON.parse(e.data)));
live.addEventListener("games", e=>showGames(JSON.parse(e.data)));
</script></body></html>
"""

#: The page before any language is filled in (its inline blocks are what the policy hashes).
PAGE = TEMPLATE


def _html_words(code: str) -> dict[str, str]:
    """The words of the page's HTML, in `code`."""
    return {
        "title": said(_("Club tables"), code),
        "language": said(_("Language"), code),
        "standings": said(_("Standings"), code),
        "player": said(_p("standings", "Player"), code),
        "played": said(_p("standings", "Played"), code),
        "w": said(_p("standings: the initial of wins", "W"), code),
        "d": said(_p("standings: the initial of draws", "D"), code),
        "l": said(_p("standings: the initial of losses", "L"), code),
        "wins": said(_p("standings", "wins"), code),
        "draws": said(_p("standings", "draws"), code),
        "losses": said(_p("standings", "losses"), code),
        "points": said(_p("standings", "Points"), code),
        "helped": said(_p("standings: games with hints, set apart", "Hints"), code),
        "helped_title": said(_p("standings", "Games with hints: not counted"), code),
        "computer": said(_p("standings: games against the computer, set apart", "Computer"), code),
        "computer_title": said(_p("standings", "Games against the computer: not counted"), code),
        "apart": said(
            _(
                "A game against the computer, or in which a player took hints from the coach, is listed "
                "below and set apart: it counts in nobody's points."
            ),
            code,
        ),
        "games": said(_("Latest games"), code),
        "table": said(_p("games", "Table"), code),
        "game": said(_p("games", "Game"), code),
        "players": said(_p("games", "Players"), code),
        "result": said(_p("games", "Result"), code),
        "help": said(_p("games", "Help"), code),
    }


def script_words(code: str) -> dict[str, str]:
    """The sentences the page's script builds, in `code` (`{field}`s filled in by the script)."""
    return {
        "online": said(_("online"), code),
        "offline": said(_("offline"), code),
        "over": said(_("Game over"), code),
        "won": said(_("Game over, won by {winners}", winners="{winners}"), code),
        "turn": said(_("To move: {player}", player="{player}"), code),
        "scores": said(_("Scores: {scores}", scores="{scores}"), code),
        "last": said(_("Last: {verdict}", verdict="{verdict}"), code),
        "unreadable": said(_("Board not read: {places}", places="{places}"), code),
        "fault": said(_("Fault: {fault}", fault="{fault}"), code),
    }


def page_in(code: str) -> str:
    """The club's page in the language `code`, with links to the others."""
    values = {k: html.escape(v) for k, v in _html_words(code).items()}
    values["lang"] = code
    current = ' aria-current="page"'
    values["languages"] = " ".join(
        f'<a href="/?lang={c}" hreflang="{c}" lang="{c}"{current if c == code else ""}>{html.escape(NAMES[c])}</a>'
        for c in LANGUAGES
    )
    # a data block, never run: `<` escaped so no sentence can close it
    values["script_words"] = json.dumps(script_words(code), ensure_ascii=False).replace("<", "\\u003c")
    return re.sub(r"@@(\w+)@@", lambda m: values[m.group(1)], TEMPLATE)
