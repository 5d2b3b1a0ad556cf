"""The club's page: phone-sized, read-only, live through Server-Sent Events (`/events`)."""

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Club tables</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;padding:.5rem;background:#f4f4f1;color:#222;max-width:60rem}
h1{font-size:1.2rem;margin:.3rem 0} h2{font-size:1rem;margin:1rem 0 .3rem}
#tables{display:grid;grid-template-columns:repeat(auto-fill,minmax(17rem,1fr));gap:.5rem}
.t{background:#fff;border-radius:.5rem;padding:.5rem .7rem;box-shadow:0 1px 2px #0002}
.t header{display:flex;justify-content:space-between;font-weight:600}
.on{color:#1a7f37}.off{color:#b42318}.fault{color:#b42318}.muted{color:#666;font-size:.9rem}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{padding:.25rem .4rem;text-align:left;border-bottom:1px solid #ddd;font-size:.95rem}
td.n{text-align:right}
</style></head><body>
<h1>Club tables</h1>
<p id="broker" class="fault" role="alert" hidden></p>
<div id="tables"></div>
<h2>Standings <a class="muted" href="/standings.csv">CSV</a></h2>
<table><thead><tr><th>#</th><th>Player</th><th>Played</th><th>W</th><th>D</th><th>L</th><th>Points</th></tr></thead>
<tbody id="standings"></tbody></table>
<script>
const tables = {};
function el(tag, cls, text){const e=document.createElement(tag); if(cls) e.className=cls;
  if(text!==undefined&&text!==null) e.textContent=text; return e;}
function card(t){
  const c=el("div","t"); c.id="t-"+t.table;
  const h=el("header"); h.append(el("span","",t.table));
  h.append(el("span", t.online===false?"off":"on", t.online===false?"offline":(t.online?"online":"")));
  c.append(h);
  const variant=t.variant&&t.variant!=="standard"?" ("+t.variant+")":"";
  if(t.game) c.append(el("div","", t.game+variant+", game "+t.game_id));
  if(t.names&&t.names.length) c.append(el("div","muted", t.names.join(", ")));
  if(t.over) c.append(el("div","", "Game over"+(t.winners_words?": "+t.winners_words+" won":"")));
  else if(t.turn_words) c.append(el("div","", "To move: "+t.turn_words));
  if(t.scores) c.append(el("div","muted","Scores: "+t.scores.map(s=>s===null?"?":s).join(" / ")));
  if(t.last_verdict) c.append(el("div","", "Last: "+t.last_verdict));
  if(t.unreadable) c.append(el("div","muted","Board not read: "+t.unreadable));
  for(const f of t.faults||[]) c.append(el("div","fault","Fault: "+f));
  return c;
}
function showTable(t){tables[t.table]=t; const old=document.getElementById("t-"+t.table); const c=card(t);
  if(old) old.replaceWith(c); else {const box=document.getElementById("tables"); box.append(c);
    [...box.children].sort((a,b)=>a.id.localeCompare(b.id)).forEach(x=>box.append(x));}}
function showStandings(rows){const body=document.getElementById("standings"); body.textContent="";
  for(const s of rows){const tr=el("tr"); tr.append(el("td","n",s.rank), el("td","",s.name), el("td","n",s.played),
    el("td","n",s.wins), el("td","n",s.draws), el("td","n",s.losses), el("td","n",s.points)); body.append(tr);}}
async function broker(){try{const b=await (await fetch("/api/broker")).json();
  const p=document.getElementById("broker"); p.hidden=!b.problem; p.textContent=b.problem?"Fault: "+b.problem:"";}
  catch(e){} setTimeout(broker, 3000);}
broker();
const live=new EventSource("/events");
live.addEventListener("table", e=>showTable(JSON.parse(e.data)));
live.addEventListener("standings", e=>showStandings(JSON.parse(e.data)));
</script></body></html>
"""
