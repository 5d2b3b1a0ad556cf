// The referee's live page: state pushed over a WebSocket, the board drawn in SVG, controls with a PIN.
// Everything comes from the Pi itself (no CDN), so it works on a network without internet.
"use strict";

// The built-in games, for the page's calibration panel (setup.js); the live view takes a game's title
// and variants from the state, as the game declares them.
const GAME_NAMES = { colorpop: "Colorpop", blockers: "Blockers!", flipop: "Flipop", "stay-alive": "Stay Alive" };
const SVG = "http://www.w3.org/2000/svg";
const CAMERA_PERIOD_MS = 200;  // at most 5 pictures a second, and only while the picture is visible

let state = null;
let cameraVisible = true;
let formGame = null;

const $ = (id) => document.getElementById(id);

function el(name, attrs, parent, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function html(name, attrs, parent, text) {
  const node = document.createElement(name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

const VARIANT_WORDS = {
  standard: () => _("standard"),
  solo: () => _("solo"),
  "two-colours": () => _("two colours"),
  teams: () => _("teams"),
  "two-player": () => _("two players (expert)"),
};

function variantName(variant) {
  return VARIANT_WORDS[variant] ? VARIANT_WORDS[variant]() : variant;
}

function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

// --- seeing the colours: patterns and letters, the colour of a pointed place (remembered per browser) ---
const PATTERN_KEY = "referee-patterns";
const SPEAK_KEY = "referee-speak";

function remembered(key) {
  try { return localStorage.getItem(key) === "yes"; } catch (err) { return false; }
}

function remember(key, on) {
  try { localStorage.setItem(key, on ? "yes" : "no"); } catch (err) { /* this visit only */ }
}

function patternsOn() {
  const box = $("patterns");
  return Boolean(box && box.checked);
}

// Each colour's short letters in the page's language (the colour word's first letter, two where two colours
// would share one: French jaune and joker are "Ja" and "Jo").
function colourLetters(palette) {
  const names = Object.fromEntries(Object.entries(palette).map(([k, p]) => [k, (p.name || k).toUpperCase()]));
  const first = {};
  Object.values(names).forEach((n) => { first[n[0]] = (first[n[0]] || 0) + 1; });
  return Object.fromEntries(Object.entries(names).map(([k, n]) =>
    [k, first[n[0]] > 1 ? n[0] + n.slice(1, 2).toLowerCase() : n[0]]));
}

// One pattern per colour, in the palette's order: lines of several directions, dots, a check, rings. Bold
// enough to tell two colours apart by their pattern alone (tests/test_colour_vision.py measures it through
// simulated colour-blind eyes).
const PATTERNS = [
  (p, ink) => el("path", { d: "M-2,2 L2,-2 M0,8 L8,0 M6,10 L10,6", stroke: ink, "stroke-width": 2.4 }, p),
  (p, ink) => el("circle", { cx: 4, cy: 4, r: 2.2, fill: ink }, p),
  (p, ink) => el("path", { d: "M0,4 L8,4", stroke: ink, "stroke-width": 2.4 }, p),
  (p, ink) => el("path", { d: "M4,0 L4,8", stroke: ink, "stroke-width": 2.4 }, p),
  (p, ink) => el("path", { d: "M0,0 L8,8 M0,8 L8,0", stroke: ink, "stroke-width": 1.8 }, p),
  (p, ink) => el("rect", { x: 0, y: 0, width: 4, height: 4, fill: ink }, p),
  (p, ink) => el("circle", { cx: 4, cy: 4, r: 2.5, fill: "none", stroke: ink, "stroke-width": 1.6 }, p),
];

function patternDefs(svg, palette) {
  const defs = el("defs", {}, svg);
  Object.keys(palette).forEach((letter, i) => {
    const p = el("pattern", { id: `${svg.id}-pattern-${letter}`, width: 8, height: 8, patternUnits: "userSpaceOnUse" }, defs);
    const dark = ink(palette, letter) === "#000";
    PATTERNS[i % PATTERNS.length](p, dark ? "rgba(0,0,0,0.65)" : "rgba(255,255,255,0.95)");
  });
}

// Over a piece drawn in its colour: its pattern, and its colour's letters in the page's language.
function patternOver(svg, g, palette, letter, shape, cx, cy, fontSize, letters) {
  if (!palette[letter]) return;
  el(shape.tag, Object.assign({ fill: `url(#${svg.id}-pattern-${letter})`, class: "pattern" }, shape.attrs), g);
  if (letters) {
    el("text", { x: cx, y: cy + fontSize * 0.35, "text-anchor": "middle", "font-size": fontSize, "font-weight": 700,
                 fill: ink(palette, letter), stroke: ink(palette, letter) === "#000" ? "#fff" : "#000",
                 "stroke-width": 0.6, "paint-order": "stroke", class: "colour-letter" }, g, letters[letter]);
  }
}

function rgb(palette, letter) {
  const p = palette[letter];
  return p ? `rgb(${p.rgb.join(",")})` : "#888";
}

function ink(palette, letter) {
  const p = palette[letter];
  if (!p) return "#000";
  const [r, g, b] = p.rgb;
  return 0.299 * r + 0.587 * g + 0.114 * b > 140 ? "#000" : "#fff";
}

// --- the board ------------------------------------------------------------------------------------
const VALUE_LINE = 20;  // the height of a line shown as a value under the board
const SLIDERS = ["rows", "columns"];  // the kinds of line drawn as a slider per row or per column

// Writing on the board's background: dark on the light boards, light on the others.
function boardInk(game) {
  return game === "blockers" || game === "flipop" ? "#3b2f1e" : "#e8ecf6";
}

function drawBoard(svg, board, palette, game, names, marks) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  if (!board) {
    el("text", { x: 10, y: 30, "font-size": 14 }, svg, _("no board yet: set up the board in front of the camera"));
    svg.setAttribute("viewBox", "0 0 340 50");
    return;
  }
  marks = marks || {};
  // The rows and columns as players count them (docs/rules.md §6), along the board's edges: top and
  // left, or (a game with sliders there: Stay Alive's slides) bottom and right.
  const axes = marks.axes || (state && state.game === game ? state.axes : null);
  // The game's lines besides the grid, drawn as it declares them (state.lines): sliders in the near
  // margins (the row and column labels then go to the far sides), marks on the posts, values under the board.
  const declared = marks.lines || (state && state.game === game ? state.lines : null) || [];
  const lines = declared.filter((l) => board[l.key]);
  const far = declared.some((l) => SLIDERS.includes(l.kind));
  const S = 32, M = far ? 40 : 8, LB = axes ? 16 : 0;
  const ox = M + (far ? 0 : LB), oy = M + (far ? 0 : LB);
  const values = lines.filter((l) => l.kind === "value");
  const W = board.cols * S + 2 * M + LB, H = board.rows * S + 2 * M + LB + values.length * VALUE_LINE;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.dataset.game = game;
  const back = { colorpop: "#28345f", blockers: "#e2d6ba", flipop: "#cea674", "stay-alive": "#2e52a2" }[game];
  el("rect", { x: 0, y: 0, width: W, height: H, fill: back, rx: 6 }, svg);
  if (axes) {
    const g = el("g", { class: "axes", fill: boardInk(game), "font-size": 11, "font-weight": 700, "text-anchor": "middle" }, svg);
    const colY = far ? oy + board.rows * S + LB - 4 : oy - 5;
    const rowX = far ? ox + board.cols * S + LB / 2 : ox - LB / 2;
    axes.cols.forEach((label, c) => el("text", { x: ox + c * S + S / 2, y: colY, class: "col-label" }, g, label));
    axes.rows.forEach((label, r) => el("text", { x: rowX, y: oy + r * S + S / 2 + 4, class: "row-label" }, g, label));
  }
  const illegal = new Set((marks.illegal || []).map((c) => c.join(",")));
  const shown = new Set((marks.shown || []).map((c) => c.join(",")));
  const unsure = new Set((marks.unsure || []).map((c) => c.join(",")));
  const patterned = patternsOn() && palette;
  const letters = patterned ? colourLetters(palette) : null;
  if (patterned) patternDefs(svg, palette);
  svg.classList.toggle("patterned", Boolean(patterned));
  for (let r = 0; r < board.rows; r++) {
    for (let c = 0; c < board.cols; c++) {
      const x = ox + c * S, y = oy + r * S, cx = x + S / 2, cy = y + S / 2;
      const v = board.cells[r][c];
      const g = el("g", { class: "place", "data-cell": `${r},${c}`, "data-piece": v }, svg);
      el("title", {}, g, names && names[r] ? names[r][c] : `${r},${c}`);
      if (game === "colorpop") {
        el("circle", { cx, cy, r: S * 0.42, fill: "#3a3a40" }, g);
        if (v !== ".") {
          el("circle", { cx, cy, r: S * 0.4, fill: rgb(palette, v), class: "piece" }, g);
          if (patterned) patternOver(svg, g, palette, v, { tag: "circle", attrs: { cx, cy, r: S * 0.4 } }, cx, cy, 11, letters);
          else if (v === "J") el("text", { x: cx, y: cy + 4, "text-anchor": "middle", "font-size": 11 }, g, "J");
        }
      } else if (game === "blockers") {
        el("rect", { x: x + 1, y: y + 1, width: S - 2, height: S - 2, fill: "none", stroke: "#b9ab8a" }, g);
        if (v !== ".") {
          el("rect", { x: x + 3, y: y + 3, width: S - 6, height: S - 6, rx: 4, fill: rgb(palette, v[0]), class: "piece" }, g);
          if (patterned) {
            patternOver(svg, g, palette, v[0], { tag: "rect", attrs: { x: x + 3, y: y + 3, width: S - 6, height: S - 6, rx: 4 } },
              x + 8, y + 10, 7, letters);
          }
          const symbols = marks.symbols || (state && state.game === game ? state.symbols : null) || {};
          glyphMark(g, palette, v[0], v[1], symbols[v[1]], x, y, 14);
        }
      } else if (game === "flipop") {
        el("rect", { x: x + 1, y: y + 1, width: S - 2, height: S - 2, fill: "#c39a68", stroke: "#8a6a44" }, g);
        if (v !== ".") {
          el("circle", { cx, cy, r: S * 0.34, fill: rgb(palette, v), stroke: "#555", class: "piece" }, g);
          if (patterned) patternOver(svg, g, palette, v, { tag: "circle", attrs: { cx, cy, r: S * 0.34 } }, cx, cy, 11, letters);
        }
      } else {
        el("circle", { cx, cy, r: S * 0.3, fill: "#e0e0da", stroke: "#1d2f5e" }, g);
        if (v !== ".") {
          el("circle", { cx, cy, r: S * 0.36, fill: rgb(palette, v), stroke: "#222", class: "piece" }, g);
          if (patterned) patternOver(svg, g, palette, v, { tag: "circle", attrs: { cx, cy, r: S * 0.36 } }, cx, cy, 11, letters);
        }
      }
      if (v === "?" || unsure.has(`${r},${c}`)) {
        g.classList.add("unsure");
        el("rect", { x: x + 2, y: y + 2, width: S - 4, height: S - 4, fill: "none", stroke: "#ffaa00",
                     "stroke-width": 3, "stroke-dasharray": "4 3" }, g);
      }
      if (shown.has(`${r},${c}`)) {
        // the computer's move to make, a hint, or a legal move picked in the list
        g.classList.add("shown");
        el("rect", { x: x + 1, y: y + 1, width: S - 2, height: S - 2, fill: "none", stroke: "#1e88e5", "stroke-width": 4,
                     "stroke-dasharray": "6 3" }, g);
      }
      if (illegal.has(`${r},${c}`)) {
        g.classList.add("illegal");
        el("rect", { x: x + 1, y: y + 1, width: S - 2, height: S - 2, fill: "none", stroke: "#e02020", "stroke-width": 4 }, g);
      }
    }
  }
  lines.filter((l) => l.kind === "posts").forEach((line) => {
    // one token per post between four places, row-major: an arm towards each compass letter it holds
    const perRow = board.cols - 1;
    board[line.key].forEach((door, k) => {
      const i = Math.floor(k / perRow), j = k % perRow;
      const px = ox + (j + 1) * S, py = oy + (i + 1) * S;
      const g = el("g", { class: "door", "data-post": k }, svg);
      el("title", {}, g, _("post ({row},{column}): {wings}", { row: String(i + 1), column: String(j + 1), wings: door }));
      const arm = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };
      for (const w of door) {
        if (!arm[w]) continue;
        el("line", { x1: px, y1: py, x2: px + arm[w][0] * S * 0.95, y2: py + arm[w][1] * S * 0.95,
                     stroke: "#1b3b8f", "stroke-width": 4, "stroke-linecap": "round" }, g);
      }
      el("circle", { cx: px, cy: py, r: 4, fill: door === line.unknown ? "#ffaa00" : "#1b3b8f" }, g);
    });
  });
  values.forEach((line, i) => {
    // "Light: bright" under the board, each token in the game's words; an unread one as the unsure places are
    const tokens = board[line.key];
    const value = tokens.map((t) => line.words[t] || t).join(" ");
    const unread = tokens.includes(line.unknown);
    const y = board.rows * S + 2 * M + LB + i * VALUE_LINE + VALUE_LINE * 0.7;
    const g = el("g", { class: unread ? "board-line unsure" : "board-line", "data-line": line.key }, svg);
    el("text", { x: M, y, "font-size": 13, "font-weight": 700, fill: unread ? "#ffaa00" : boardInk(game) }, g,
      line.label ? _("{label}: {value}", { label: capital(line.label), value }) : value);
  });
  // A slider per row (in the margin left of it) or per column (above it), Stay Alive's slides: its
  // position drawn as the line's notches (the first nearest the grid), the one it is at filled: letters
  // there would read as coordinates; its name and position are in its tooltip.
  const slide = (pos, x, y, line, key, across, label) => {
    const g = el("g", { class: "slide", "data-position": pos || "?", "data-slide": key }, svg);
    el("title", {}, g, `${label}: ${pos || "?"}`);
    const moved = marks.moved && marks.moved.has(key);
    if (moved) g.classList.add("moved");
    el("rect", { x: x - 13, y: y - 10, width: 26, height: 20, rx: 4, fill: line.colour,
                 stroke: moved ? "#e02020" : "#222", "stroke-width": moved ? 3 : 1 }, g);
    [...line.notches].forEach((notch, k) => {
      const d = ((line.notches.length - 1) / 2 - k) * 7;
      const at = across ? { cx: x + d, cy: y } : { cx: x, cy: y + d };
      el("circle", Object.assign(at, { r: 2.6, fill: notch === pos ? "#111" : "none", stroke: "#111" }), g);
    });
    if (!pos) el("text", { x, y: y + 4, "text-anchor": "middle", "font-size": 11, "font-weight": 700 }, g, "?");
  };
  lines.filter((l) => SLIDERS.includes(l.kind)).forEach((line) => {
    const across = line.kind === "rows";
    board[line.key].forEach((p, i) => slide(p, across ? M / 2 - 4 : ox + i * S + S / 2, across ? oy + i * S + S / 2 : M / 2 - 4,
      line, `${line.key} ${i + 1}`, across, line.names[i] || `${line.key} ${i + 1}`));
  });
}

// --- the state ------------------------------------------------------------------------------------
function render(s) {
  state = s;
  const game = s.title;  // as players of the page's language know it (Stay Alive is Pièges in French)
  document.title = _("{game}: referee", { game });
  $("title").textContent = _("{game}, game {number}", { game, number: String(s.game_id) });
  let turn;
  if (!s.started) turn = _("Set up the board: the referee checks the starting position.");
  else if (s.over) turn = capital(s.result_line || _("game over"));
  else if (s.to_move_name) turn = _("{player} to move", { player: s.to_move_name });
  else turn = "";
  $("turn").textContent = turn;
  const status = $("status");
  status.className = "";
  if (s.paused) {
    status.textContent = _("Paused: {why}.", { why: s.paused });
    status.className = "pending";
  } else if (s.illegal && s.doubtful) {
    status.textContent = _("Doubtful reading: no player is blamed. Check the places shown and the camera's view; if the board is right, press \u201cThis board is right\u201d.");
    status.className = "illegal";
  } else if (s.illegal) { status.textContent = _("Illegal move: put the board back as listed below."); status.className = "illegal"; }
  else if (s.pending) { status.textContent = _("Move under way: finish it."); status.className = "pending"; }
  else if (s.unreadable) { status.textContent = _("Board not read: {why}.", { why: s.unreadable }); status.className = "unreadable"; }
  else status.textContent = "";
  // a new doubt clears the last answer to "This board is right" (shown below the box, which then hides)
  if (s.can_accept && $("accept-box").hidden) $("accept-answer").textContent = "";
  $("accept-box").hidden = !s.can_accept;
  const faults = $("faults");
  faults.replaceChildren(...s.faults.map((f) => { const li = document.createElement("li"); li.textContent = f; return li; }));

  // Stay Alive: the slides as the switches say now; one that differs from the judged board is outlined.
  let board = s.board;
  const moved = new Set();
  if (board && s.slides && s.slides.link_ok && s.slides.orange.length) {
    ["orange", "white"].forEach((line) => (board[line] || []).forEach((p, i) => {
      if (s.slides[line][i] !== p) moved.add(`${line} ${i + 1}`);
    }));
    board = Object.assign({}, board, { orange: s.slides.orange, white: s.slides.white });
  }
  const computer = s.computer || {};
  const computerLine = $("computer-move");
  if (computer.move) {
    computerLine.textContent = _("The computer plays {player}: {move}. Make its move on the board (marked in blue).",
      { player: computer.move.name, move: computer.move.words });
  } else if (computer.thinking) computerLine.textContent = _("The computer ({player}) is thinking\u2026", { player: s.to_move_name });
  const waiting = (computer.racks || []).filter((r) => r.missing && r.seat === s.to_move);
  if (!computer.move && waiting.length) {
    computerLine.textContent = _("The computer ({player}) waits for its tiles: draw them from its pile and tap them below.",
      { player: waiting[0].name });
  }
  computerLine.hidden = !(computer.move || computer.thinking || waiting.length);
  renderRacks(computer.racks || [], s.palette);
  const coachOpen = s.started && !s.over && computer.coach !== false &&
    !(computer.seats || []).some((c) => c.seat === s.to_move);
  $("coach-box").hidden = !coachOpen;
  renderOwnTiles(coachOpen ? computer.own_tiles || [] : [], s.palette, s.to_move);
  if (movesFor !== null && (!coachOpen || movesFor !== s.verdict_count)) {
    $("legal-moves").replaceChildren(); picked = null; movesFor = null; $("coach-answer").textContent = "";
  }
  if (hintShown && !computer.hint) { hintShown = false; $("coach-answer").textContent = ""; }
  const shown = computer.move ? computer.move.cells : (computer.hint ? computer.hint.cells : (picked || []));
  drawBoard($("board"), board, s.palette, s.game, s.place_names, { illegal: s.illegal_cells, moved, shown });
  const slides = $("slides-health");
  if (s.slides) {
    slides.textContent = s.slides.link_ok
      ? _("Slide switches: connected (orange {orange}, white {white})", { orange: s.slides.orange.join(" "), white: s.slides.white.join(" ") })
      : _("Slide switches: not answering: check the USB cable of the switch board");
    slides.className = s.slides.link_ok ? "" : "illegal";
  } else slides.textContent = "";

  const box = $("correction-box");
  if (s.correction) {
    box.hidden = false;
    const list = $("corrections");
    list.replaceChildren(...s.correction.steps.map((step) => {
      const li = document.createElement("li");
      li.textContent = step.text;
      if (step.done) li.className = "done";
      return li;
    }));
    if (!s.correction.steps.length) {
      const li = document.createElement("li");
      li.textContent = _("Nothing left to correct that the camera can see: wait for the referee to look again.");
      list.appendChild(li);
    }
    drawBoard($("legal-board"), s.correction.legal, s.palette, s.game, s.place_names, {});
    drawBoard($("seen-board"), s.correction.seen, s.palette, s.game, s.place_names,
      { illegal: s.correction.steps.filter((x) => !x.done).flatMap((x) => x.cells) });
  } else box.hidden = true;

  const scores = (s.result && s.result.scores) || [];
  const winners = new Set(((s.result && s.result.winners) || []));
  $("seats").tBodies[0].replaceChildren(...s.seats.map((seat) => {
    const tr = document.createElement("tr");
    if (s.started && !s.over && s.to_move === seat.seat) tr.className = "to-move";
    if (s.over && winners.has(seat.seat)) tr.className = "winner";
    const name = document.createElement("td");
    name.textContent = seat.name;
    const score = document.createElement("td");
    const v = scores[seat.seat];
    score.textContent = v === undefined || v === null ? "" : (typeof v === "object" ? JSON.stringify(v) : String(v));
    tr.append(name, score);
    return tr;
  }));
  $("result").textContent = s.result && s.result.reason ? s.result.reason : "";

  const firstNumber = s.verdict_count - s.verdicts.length + 1;
  $("history").replaceChildren(...s.verdicts.map((v, i) => {
    const li = document.createElement("li");
    li.dataset.n = String(firstNumber + i);
    li.className = v.json.verdict;
    li.title = JSON.stringify(v.json);
    if (v.picture) li.append(verdictPicture(v.picture, v.line));
    li.append(html("span", { class: "line" }, null, v.line));
    if (v.rule) li.append(ruleDetails(v.rule));
    return li;
  }).reverse());
  const lastIllegal = s.illegal ? [...s.verdicts].reverse().find((v) => v.json.verdict === "illegal") : null;
  const ruleBox = $("rule-box");
  ruleBox.replaceChildren(...(lastIllegal && lastIllegal.rule ? [ruleDetails(lastIllegal.rule)] : []));
  ruleBox.hidden = !(lastIllegal && lastIllegal.rule);
  speakNews(s, turn);

  const reading = s.reading;
  let text = reading.problem ? _("Last look: {why}.", { why: reading.problem }) : "";
  if (reading.unsure.length) text += " " + _("Unsure of {places}.", { places: reading.unsure.join(", ") });
  $("reading").textContent = text;

  $("reveal-box").hidden = !s.can_reveal;
  $("end-box").hidden = !s.ends_by_agreement;
  $("switch-box").hidden = !s.slides;
  $("record").href = `/api/record?game=${s.game_id}`;
  if (formGame !== `${s.game}:${s.game_id}:${I18N.language}`) fillForm(s);
}

// The rule an illegal verdict breaks: its short line, opening onto where rules.md and the rule book say it.
function ruleDetails(rule) {
  const details = html("details", { class: "rule", "data-rule": rule.id });
  html("summary", {}, details, rule.line);
  html("p", { class: "small" }, details, _("docs/rules.md {section} ({rule})", { section: rule.section, rule: rule.id }));
  html("p", { class: "book" }, details, rule.book
    ? _("The rule book says: \u00ab\u00a0{sentence}\u00a0\u00bb", { sentence: rule.book })
    : _("The rule book does not say it; docs/rules.md decides."));
  return details;
}

// --- the page's voice: the browser's speech synthesis, in the page's language, newest line only ------
let spokenCount = null;
let spokenOver = null;

function speakOn() {
  const box = $("speak");
  return Boolean(box && box.checked && "speechSynthesis" in window);
}

function say(text) {
  if (!text || !speakOn()) return;
  const utterance = new SpeechSynthesisUtterance(text);
  utterance.lang = I18N.language === "fr" ? "fr-FR" : "en-GB";
  const voice = speechSynthesis.getVoices().find((v) => v.lang && v.lang.toLowerCase().startsWith(I18N.language));
  if (voice) utterance.voice = voice;
  speechSynthesis.cancel();  // a line not yet said is stale once a newer one comes: never fall behind
  speechSynthesis.speak(utterance);
}

// Says the newest verdict (with whose turn it is after a move) and the end of the game, once each; what
// was there before the page opened is not read out.
function speakNews(s, turn) {
  const first = spokenCount === null;
  const fresh = !first && s.verdict_count > spokenCount && s.verdicts.length;
  spokenCount = s.verdict_count;
  const overKey = s.over ? `${s.game_id}:${s.result_line}` : null;
  const endNews = !first && overKey && overKey !== spokenOver;
  spokenOver = overKey;
  if (first) return;
  const parts = [];
  if (fresh) {
    const newest = s.verdicts[s.verdicts.length - 1];
    parts.push(newest.line);
    if (!s.over && s.to_move_name && ["legal", "setup-ok"].includes(newest.json.verdict)) parts.push(turn);
  }
  if (endNews) parts.push(capital(s.result_line));
  if (parts.length) say(parts.join(". "));
}

// "Which colour is this?": a place pointed on the board, named with its piece's colour in words.
function pointAt(event) {
  const place = event.target.closest && event.target.closest("g.place");
  if (!place || !state) return;
  const [r, c] = place.dataset.cell.split(",").map(Number);
  const name = state.place_names && state.place_names[r] ? state.place_names[r][c] : `${r + 1},${c + 1}`;
  const piece = place.dataset.piece || ".";
  const colour = state.palette[piece[0]];
  let text;
  if (piece === "?") text = _("{place}: not read", { place: name });
  else if (piece === ".") text = _("{place}: empty", { place: name });
  else text = _("{place}: {piece}", { place: name, piece: colour ? colour.the_piece : piece });
  $("pointed").textContent = text;
  say(text);
}

function fillForm(s) {
  formGame = `${s.game}:${s.game_id}:${I18N.language}`;
  const select = $("ng-variant");
  select.replaceChildren(...s.variants.map((v) => {
    const o = document.createElement("option"); o.value = v; o.textContent = variantName(v); return o;
  }));
  select.value = s.variant;
  $("ng-players").value = s.players;
  $("ng-first").value = s.first + 1;
  const choices = [["", _("nobody")]];
  for (let k = 0; k < s.players; k++) choices.push([String(k), _("player {number}", { number: k + 1 })]);
  $("ng-computer").replaceChildren(...choices.map(([value, text]) => {
    const o = document.createElement("option"); o.value = value; o.textContent = text; return o;
  }));
  const playing = (s.computer && s.computer.seats) || [];
  $("ng-computer").value = playing.length ? String(playing[0].seat) : "";
  if (playing.length) $("ng-level").value = playing[0].level;
  $("ng-coach").checked = !s.computer || s.computer.coach !== false;
  const seats = s.keys.seats;
  $("ng-seats").value = Array.isArray(seats) ? seats.map((x) => (Array.isArray(x) ? x.join("") : x)).join(" ") : "";
}

// --- live updates ---------------------------------------------------------------------------------
let socket = null;

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws?lang=${I18N.language}`);
  socket = ws;
  ws.onopen = () => {
    $("link").textContent = _("live"); $("link").className = "link on";
    $("offline").hidden = true;
    document.body.classList.remove("offline");
  };
  ws.onmessage = (e) => {
    const message = JSON.parse(e.data);
    if (message.type === "state") render(message.state);
  };
  ws.onclose = () => {
    if (ws.replaced) return;  // the page asked for another language: a new socket took its place
    $("link").textContent = _("offline"); $("link").className = "link off";
    if ($("offline").hidden) {
      const since = new Date().toLocaleTimeString(I18N.language);
      $("offline").textContent = _("The referee has stopped or cannot be reached (since {time}): nothing below is live any more. This page reconnects by itself once the referee runs again.", { time: since });
      $("offline").hidden = false;
      document.body.classList.add("offline");
    }
    setTimeout(connect, 2000);
  };
}

function refreshCamera() {
  const img = $("camera");
  const wanted = document.visibilityState === "visible" && cameraVisible && $("camera-on").checked;
  if (!wanted) { setTimeout(refreshCamera, CAMERA_PERIOD_MS); return; }
  const started = Date.now();
  const next = () => setTimeout(refreshCamera, Math.max(0, CAMERA_PERIOD_MS - (Date.now() - started)));
  img.onload = next;
  img.onerror = () => setTimeout(refreshCamera, 1000);
  img.src = `/camera.jpg?t=${started}`;
}

// --- controls -------------------------------------------------------------------------------------
// A changing request with the PIN; shows the answer (or why it was refused) in `answer`; returns the data or null.
async function postWithPin(path, body, answer) {
  const pin = $("pin").value.trim();
  sessionStorage.setItem("referee-pin", pin);
  const headers = { "Content-Type": "application/json" };
  if (pin) headers["X-Referee-PIN"] = pin;
  try {
    const response = await fetch(withLang(path), { method: "POST", headers, body: JSON.stringify(body) });
    const data = await response.json();
    answer.className = response.ok ? "" : "error";
    answer.textContent = response.ok ? (data.message || _("done")) : _("Refused ({status}): {why}", { status: String(response.status), why: data.error });
    return response.ok ? data : null;
  } catch (err) {
    answer.className = "error";
    answer.textContent = _("The referee did not answer: {why}", { why: String(err) });
    return null;
  }
}

function control(path, body) {
  return postWithPin(path, body, $("control-answer"));
}

function seatsValue(text) {
  const tokens = text.trim().split(/[\s,]+/).filter(Boolean);
  if (!tokens.length) return undefined;
  return tokens.map((t) => (t.length > 1 ? t.split("") : t));
}

// Colorpop's secret colours, one per seat, "-" for a seat whose colour the referee is not told
// (against the computer: every person's, or the computer's own drawn for it at the table).
function secretsValue(text) {
  const tokens = text.trim().split(/[\s,]+/).filter(Boolean);
  if (!tokens.length) return undefined;
  return tokens.map((t) => (t === "-" ? null : (t.length > 1 ? t.toUpperCase().split("") : t.toUpperCase())));
}

function newGame() {
  const body = {
    game: state ? state.game : undefined,
    variant: $("ng-variant").value,
    players: Number($("ng-players").value),
    first: Number($("ng-first").value) - 1,
  };
  const seats = seatsValue($("ng-seats").value);
  if (seats) body.seats = seats;
  if (state && state.keys.targets) body.targets = state.keys.targets;
  const secrets = secretsValue($("ng-secrets").value);
  if (secrets) body.secrets = secrets;
  const seat = $("ng-computer").value;
  if (seat !== "" && Number(seat) < body.players) {
    body.computer = Array.from({ length: body.players }, (unused, k) => (k === Number(seat) ? $("ng-level").value : null));
  } else body.computer = null;
  body.coach = $("ng-coach").checked;
  control("/api/new-game", body);
}

// --- the computer's rack (Blockers!): a person draws its tiles from its pile and taps them here ---------
// Each colour's tiles as pictures (its colour, its pattern and letters when asked for, the glyph; a symbol
// drawn and named), the ones on its rack pressed. The person presses the tiles it holds and gives them:
// the referee checks them (a tile already played is refused, with why), writes them in one order (digits, letters, symbols, wild) and the computer plays from them.
const SYMBOL_PICTURES = { moon: "\u263E", sun: "\u2600", star: "\u2605", heart: "\u2665", anchor: "\u2693",
  key: "\u26B7", crown: "\u265B", leaf: "\u2618" };
// Symbols no common font draws (a phone's emoji would do, a Pi's DejaVu has none): as a path.
const SYMBOL_PATHS = { bell: "M16 6c-4.5 0-6.5 3.5-6.5 8v4l-2.5 3.5h18l-2.5-3.5v-4c0-4.5-2-8-6.5-8zM13.5 23a2.5 2.5 0 0 0 5 0z" };
const rackPicks = {};  // colour -> { held: the rack the picks started from, picks: the glyphs pressed }

function tilePicture(palette, colour, tile, id) {
  const svg = el("svg", { viewBox: "0 0 32 32", id, role: "img", "aria-hidden": "true" });
  const patterned = patternsOn() && palette;
  if (patterned) patternDefs(svg, palette);
  const shape = { x: 1, y: 1, width: 30, height: 30, rx: 5 };
  el("rect", Object.assign({ fill: rgb(palette, colour), stroke: "#555" }, shape), svg);
  if (patterned) patternOver(svg, svg, palette, colour, { tag: "rect", attrs: shape }, 7, 9, 7, colourLetters(palette));
  glyphMark(svg, palette, colour, tile.glyph, tile.symbol, 0, 0, 17);
  return svg;
}

// A Blockers! tile's glyph as printed on it, in a 32-unit square at (x, y): a digit or a letter, its
// symbol's picture (the symbol named by the board's profile), "B!" for the wild tile ("BLOCKERS!").
function glyphMark(parent, palette, colour, glyph, symbol, x, y, size) {
  const fill = ink(palette, colour), halo = fill === "#000" ? "#fff" : "#000";
  if (symbol && SYMBOL_PATHS[symbol]) {
    el("path", { d: SYMBOL_PATHS[symbol], transform: `translate(${x} ${y})`, fill, stroke: halo, "stroke-width": 0.6 }, parent);
    return;
  }
  const mark = glyph === "*" ? "B!" : (symbol && SYMBOL_PICTURES[symbol]) || glyph;
  el("text", { x: x + 16, y: y + 16 + size * 0.36, "text-anchor": "middle", "font-size": glyph === "*" ? size * 0.7 : size,
               "font-weight": 700, fill, stroke: halo, "stroke-width": 0.6, "paint-order": "stroke" }, parent, mark);
}

function renderRacks(racks, palette) {
  $("rack-box").hidden = !racks.length;
  const box = $("racks");
  const open = new Set(Array.from(box.querySelectorAll("details[open]")).map((d) => d.dataset.colour));
  box.replaceChildren(...racks.map((rack) => {
    const key = rack.held.join(" ");
    if (!rackPicks[rack.colour] || rackPicks[rack.colour].held !== key) {
      rackPicks[rack.colour] = { held: key, picks: new Set(rack.held) };
    }
    const picks = rackPicks[rack.colour].picks;
    const full = rack.held.length + rack.missing;
    const details = html("details", { class: "rack", "data-colour": rack.colour });
    details.open = rack.missing > 0 || open.has(rack.colour);
    html("summary", {}, details, rack.missing
      ? _n("{colour} tiles of {player}: draw {n} tile from its pile and tap it",
        "{colour} tiles of {player}: draw {n} tiles from its pile and tap them", rack.missing,
        { colour: rack.colour_name, player: rack.name })
      : _("{colour} tiles of {player}: its rack is complete", { colour: rack.colour_name, player: rack.name }));
    details.firstChild.textContent = capital(details.firstChild.textContent);
    const tiles = html("div", { class: "rack-tiles" }, details);
    rack.tiles.forEach((tile) => {
      const button = html("button", { type: "button", class: "tile" + (tile.possible ? "" : " played"),
        "data-glyph": tile.glyph, "aria-pressed": String(picks.has(tile.glyph)), title: tile.words,
        "aria-label": tile.words }, tiles);
      button.appendChild(tilePicture(palette, rack.colour, tile, `rack-${rack.colour}-${rack.tiles.indexOf(tile)}`));
      html("span", {}, button, tile.glyph === "*" ? "Blockers!" : tile.caption);
      button.addEventListener("click", () => {
        if (picks.has(tile.glyph)) picks.delete(tile.glyph); else picks.add(tile.glyph);
        if (state) render(state);
      });
    });
    const give = html("button", { type: "button", class: "give-rack" }, details,
      _("Give the computer these tiles ({chosen} of {full})", { chosen: String(picks.size), full: String(full) }));
    give.disabled = picks.size === 0;
    give.addEventListener("click", async () => {
      const tilesText = rack.tiles.filter((t) => picks.has(t.glyph)).map((t) => rack.colour + t.glyph).join(" ");
      await postWithPin("/api/rack", { tiles: tilesText }, $("rack-answer"));
    });
    return details;
  }));
}

// --- the coach: a hint (journalled, with the PIN) or every legal move (each can be drawn) -------------
let picked = null;    // the places of the legal move picked in the list, drawn on the board
let movesFor = null;  // the verdict count the list was made for: a new verdict clears it
let hintShown = false;  // the hint's words stay shown while the board has not changed since

// The person to move may tap their own tiles (Blockers!) for a hint from them: kept for their turn only.
let ownPicks = { seat: null, picks: new Set() };  // the tiles (`R3`) pressed, for the seat to move

function renderOwnTiles(own, palette, seat) {
  $("own-tiles-box").hidden = !own.length;
  if (ownPicks.seat !== seat) ownPicks = { seat, picks: new Set() };
  const picks = ownPicks.picks;
  $("own-tiles").replaceChildren(...own.map((rack) => {
    const group = html("div", { class: "rack-tiles", "data-colour": rack.colour });
    group.setAttribute("aria-label", rack.colour_name);
    rack.tiles.filter((tile) => tile.possible).forEach((tile) => {
      const code = rack.colour + tile.glyph;
      const button = html("button", { type: "button", class: "tile", "data-tile": code,
        "aria-pressed": String(picks.has(code)), title: tile.words, "aria-label": tile.words }, group);
      button.appendChild(tilePicture(palette, rack.colour, tile, `own-${code}`));
      html("span", {}, button, tile.glyph === "*" ? "Blockers!" : tile.caption);
      button.addEventListener("click", () => {
        if (picks.has(code)) picks.delete(code); else picks.add(code);
        if (state) render(state);
      });
    });
    return group;
  }));
}

async function askHint() {
  const answer = $("coach-answer");
  $("legal-moves").replaceChildren(); picked = null; movesFor = null;  // the hint replaces the list
  answer.textContent = _("The coach is thinking\u2026");
  const tiles = Array.from(ownPicks.picks).join(" ");
  const data = await postWithPin(withLang("/api/hint"), tiles ? { tiles } : {}, answer);
  if (data) {
    answer.textContent = data.why
      ? _("Hint: {move} ({why})", { move: data.words || data.move, why: data.why })
      : _("Hint: {move}", { move: data.words || data.move });
    hintShown = true;
  }
}

async function showMoves() {
  const answer = $("coach-answer");
  const response = await fetch(withLang("/api/moves"));
  const data = await response.json();
  if (!response.ok) { answer.className = "error"; answer.textContent = data.error; return; }
  answer.className = "";
  answer.textContent = _n("{n} legal move: pick it to see it on the board.",
    "{n} legal moves: pick one to see it on the board.", data.moves.length);
  movesFor = state ? state.verdict_count : null;
  $("legal-moves").replaceChildren(...data.moves.map((m) => {
    const li = document.createElement("li");
    const button = html("button", { type: "button", class: "move" }, li, m.words);
    button.addEventListener("click", () => { picked = m.cells; if (state) render(state); });
    return li;
  }));
}

// --- setting up a copy: lights and buzzer, switches (the aim: aim.js; the holes: holes.js) ---------
// Each panel asks the Pi only while a person uses it (a button, or the switch test on).
const SWITCH_PERIOD_MS = 300;
let switchTimer = null;

async function loadLights() {
  const box = $("lights-buttons");
  const response = await fetch(withLang("/api/lights-test"));
  const data = await response.json();
  if (!response.ok) { box.replaceChildren(html("span", { class: "small" }, null, data.error)); return; }
  box.replaceChildren(...data.patterns.map((p) => {
    const button = html("button", { type: "button" }, null, p.label);
    button.onclick = () => control("/api/lights-test", { pattern: p.pattern });
    return button;
  }));
}

async function pollSwitches(start) {
  clearTimeout(switchTimer);
  let data = null;
  try {
    const response = await fetch(withLang(start ? "/api/switches?start=1" : "/api/switches"));
    data = await response.json();
    if (!response.ok) {
      $("switch-problems").replaceChildren(html("li", {}, null, data.error));
      stopSwitches();
      return;
    }
  } catch (err) {
    $("switch-problems").replaceChildren(html("li", {}, null, _("The referee did not answer: {why}", { why: String(err) })));
  }
  if (data) {
    const rows = data.slides.map((s) => {
      const tr = html("tr", { class: s.both_switches ? "problem" : (s.never_changed ? "" : "moved") });
      html("td", {}, tr, s.name);
      html("td", {}, tr, s.position === null ? _("both switches!") : s.position);
      html("td", { class: "small" }, tr, _("seen {positions}", { positions: s.seen.join(" ") || "-" }));
      return tr;
    });
    $("switch-table").tBodies[0].replaceChildren(...rows);
    const problems = data.slides.flatMap((s) => s.problems);
    if (!data.link_ok) problems.unshift(data.trouble || _("the switch board does not answer"));
    if (data.all_moved) problems.length = 0;
    if (!data.touched && data.link_ok && !problems.length) {
      $("switch-problems").replaceChildren(html("li", { class: "ok" }, null,
        _("move each slide through A, B and C: this list says which ones the referee has not seen move")));
      switchTimer = setTimeout(() => pollSwitches(false), SWITCH_PERIOD_MS);
      return;
    }
    $("switch-problems").replaceChildren(...(data.all_moved
      ? [html("li", { class: "ok" }, null, _("every slide went through A, B and C"))]
      : problems.map((p) => html("li", {}, null, p))));
  }
  switchTimer = setTimeout(() => pollSwitches(false), SWITCH_PERIOD_MS);
}

function stopSwitches() {
  clearTimeout(switchTimer);
  switchTimer = null;
  $("switch-start").hidden = false;
  $("switch-stop").hidden = true;
}

// The picture behind a verdict: the board as the camera saw it when judging; a tap opens it large.
function verdictPicture(url, line) {
  const link = document.createElement("a");
  link.href = url;
  link.target = "_blank";
  link.className = "verdict-picture";
  const img = document.createElement("img");
  img.src = url;
  img.loading = "lazy";
  img.alt = _("what the camera saw: {line}", { line });
  link.append(img);
  return link;
}

// --- past games -----------------------------------------------------------------------------------
let past = null;

async function loadGames() {
  const data = await (await fetch(withLang("/api/games"))).json();
  $("games").replaceChildren(...data.games.map((g) => {
    const li = document.createElement("li");
    const when = new Date(g.started_at * 1000).toLocaleString(I18N.language);
    const args = { number: String(g.id), game: g.title, when };
    li.textContent = g.closed_at
      ? _n("game {number}: {game}, {n} entry, {when}", "game {number}: {game}, {n} entries, {when}", g.entries, args)
      : _n("game {number}: {game}, {n} entry, {when} (being played)", "game {number}: {game}, {n} entries, {when} (being played)", g.entries, args);
    li.onclick = () => openGame(g.id);
    return li;
  }));
}

async function openGame(id) {
  past = await (await fetch(withLang(`/api/games/${id}`))).json();
  $("stepper").hidden = false;
  $("step-range").max = Math.max(0, past.steps.length - 1);
  showStep(past.steps.length ? 0 : -1);
}

function showStep(i) {
  if (!past) return;
  $("step-title").textContent = past.steps.length
    ? _("game {number}: verdict {index} of {count}", { number: String(past.id), index: i + 1, count: past.steps.length })
    : _("game {number}: no verdict yet", { number: String(past.id) });
  $("step-range").value = i;
  const step = past.steps[i];
  drawBoard($("step-board"), step ? step.board : null, past.palette, past.game, past.place_names,
    { illegal: step && step.verdict.verdict === "illegal" ? step.verdict.cells || [] : [], axes: past.axes,
      lines: past.lines });
  $("step-line").textContent = step ? step.line : "";
  const picture = $("step-picture");
  picture.hidden = !(step && step.picture);
  if (step && step.picture) {
    picture.src = step.picture;
    picture.alt = _("what the camera saw: {line}", { line: step.line });
  } else {
    picture.removeAttribute("src");
  }
}

// --- start ----------------------------------------------------------------------------------------
window.addEventListener("DOMContentLoaded", () => {
  $("pin").value = sessionStorage.getItem("referee-pin") || "";
  $("patterns").checked = remembered(PATTERN_KEY);
  $("speak").checked = remembered(SPEAK_KEY);
  $("patterns").onchange = () => { remember(PATTERN_KEY, $("patterns").checked); if (state) render(state); };
  $("speak").onchange = () => {
    remember(SPEAK_KEY, $("speak").checked);
    if ($("speak").checked) say(_("The referee will speak."));
    else if ("speechSynthesis" in window) speechSynthesis.cancel();
  };
  $("board").addEventListener("click", pointAt);
  $("new-game").onclick = newGame;
  $("reveal").onclick = () => control("/api/reveal", {
    seat: Number($("rv-seat").value) - 1,
    colours: $("rv-colours").value.trim().toUpperCase().split(/[\s,]*/).filter(Boolean),
  });
  $("end").onclick = () => control("/api/end", {});
  $("accept").onclick = () => postWithPin("/api/accept-board", {}, $("accept-answer"));
  $("hint").onclick = askHint;
  $("moves").onclick = showMoves;
  $("load-games").onclick = loadGames;
  $("lights-load").onclick = loadLights;
  $("switch-start").onclick = () => { $("switch-start").hidden = true; $("switch-stop").hidden = false; pollSwitches(true); };
  $("switch-stop").onclick = stopSwitches;
  $("step-prev").onclick = () => showStep(Math.max(0, Number($("step-range").value) - 1));
  $("step-next").onclick = () => showStep(Math.min(past.steps.length - 1, Number($("step-range").value) + 1));
  $("step-range").oninput = (e) => showStep(Number(e.target.value));
  if ("IntersectionObserver" in window) {
    new IntersectionObserver((entries) => { cameraVisible = entries[0].isIntersecting; }).observe($("camera"));
  }
  let started = false;
  onLanguage(() => {  // the page's language changed: the live state again, in it
    if (!started) return;
    if (socket) { socket.replaced = true; socket.close(); }
    fetch(withLang("/api/state")).then((r) => r.json()).then(render).catch(() => {});
    connect();
    if (past) openGame(past.id);
  });
  I18N.ready.then(() => {
    started = true;
    fetch(withLang("/api/state")).then((r) => r.json()).then(render).catch(() => {});
    connect();
  });
  refreshCamera();
});
