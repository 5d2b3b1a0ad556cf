// Calibrate from the live camera (controller/web/setup_api.py): each picture asked for in turn with a
// drawing of where to put what, captured by the referee once the board is still and no hand is over it,
// then the quality report and the doubted places drawn on the pictures; saved under a name.
// Uses app.js's helpers (drawBoard, html, $, GAME_NAMES, state); asks the Pi only while a calibration runs.
"use strict";

const CAL_LIVE_PERIOD_MS = 500;
let cal = null;        // {game, steps, palette, place_names, current, taken: Set}
let calLiveTimer = null;

function calSay(text, error) {
  const p = $("cal-answer");
  p.textContent = text;
  p.className = error ? "error" : "";
}

async function calPost(path, body) {
  const pin = $("pin").value.trim();
  sessionStorage.setItem("referee-pin", pin);
  const headers = { "Content-Type": "application/json" };
  if (pin) headers["X-Referee-PIN"] = pin;
  const response = await fetch(withLang(path), { method: "POST", headers, body: JSON.stringify(body) });
  let data = {};
  try { data = await response.json(); } catch (err) { data = { error: String(err) }; }
  return { ok: response.ok, status: response.status, data };
}

function calRefused(answer) {
  calSay(`Refused (${answer.status}): ${answer.data.error}`, true);
}

async function calStart() {
  let answer;
  try {
    answer = await calPost("/api/calibration/start", { game: $("cal-game").value });
  } catch (err) { calSay(_("The referee did not answer: {why}", { why: String(err) }), true); return; }
  if (!answer.ok) { calRefused(answer); return; }
  const d = answer.data;
  cal = { game: d.game, steps: d.steps, palette: d.palette, place_names: d.place_names, current: 1, taken: new Set() };
  $("cal-result").hidden = true;
  $("cal-steps-box").hidden = false;
  $("cal-stop").hidden = false;
  calSay(d.message, false);
  calShowStep(1);
  calLive();
}

function calShowStep(number) {
  cal.current = number;
  const step = cal.steps[number - 1];
  $("cal-steps").replaceChildren(...cal.steps.map((s) => {
    const li = html("li", { "data-step": s.number }, null, s.title);
    if (s.number === number) li.classList.add("current");
    if (cal.taken.has(s.number)) li.classList.add("taken");
    li.onclick = () => calShowStep(s.number);
    return li;
  }));
  const box = $("cal-steps-box");
  box.dataset.step = step.number;
  box.dataset.key = step.key;
  $("cal-step-title").textContent = _("Picture {number} of {count}: {title}", { number: step.number, count: cal.steps.length, title: step.title });
  $("cal-sentence").textContent = step.sentence;
  drawBoard($("cal-drawing"), step.drawing, cal.palette, cal.game, cal.place_names, {});
  if (!step.drawing) {
    const svg = $("cal-drawing");
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    el("text", { x: 10, y: 30, "font-size": 14 }, svg, _("any order: see the sentence"));
    svg.setAttribute("viewBox", "0 0 340 50");
  }
  $("cal-drawing-text").textContent = step.drawing_text || "";
  $("cal-capture").disabled = false;
}

function calLive() {
  clearTimeout(calLiveTimer);
  if (!cal || $("cal-steps-box").hidden) return;
  if (document.visibilityState === "visible") $("cal-live").src = `/camera.jpg?t=${Date.now()}`;
  calLiveTimer = setTimeout(calLive, CAL_LIVE_PERIOD_MS);
}

async function calCapture() {
  const number = cal.current;
  $("cal-capture").disabled = true;
  calSay(_("Waiting for a still picture with no hand over the board…"), false);
  let answer;
  try {
    answer = await calPost("/api/calibration/capture", { step: number });
  } catch (err) { calSay(_("The referee did not answer: {why}", { why: String(err) }), true); $("cal-capture").disabled = false; return; }
  $("cal-capture").disabled = false;
  if (!answer.ok) {
    calRefused(answer);
    if (answer.data.picture) calShowRefused(answer.data);
    return;
  }
  $("cal-result").hidden = true;
  cal.taken.add(number);
  calSay(answer.data.message, false);
  if (answer.data.next) calShowStep(answer.data.next);
  else calFinish();
}

async function calFinish() {
  calSay(_("Learning from the pictures and reading them back…"), false);
  const answer = await calPost("/api/calibration/finish", {});
  if (!answer.ok) { calRefused(answer); return; }
  const d = answer.data;
  $("cal-steps-box").hidden = true;
  clearTimeout(calLiveTimer);
  $("cal-result").hidden = false;
  $("cal-result").dataset.ok = d.ok ? "yes" : "no";
  $("cal-problem").textContent = d.ok ? "" : _("Refused: {why}. Take the picture(s) again.", { why: d.problem });
  $("cal-report").replaceChildren(...d.report.map((line) => html("li", {}, null, line)));
  $("cal-doubts").replaceChildren(...d.doubts.map((x) =>
    html("li", { "data-step": x.step, "data-cell": `${x.row},${x.col}` }, null,
      _("picture {number}, {place}: {why}", { number: x.step, place: x.place, why: x.why }))));
  $("cal-pictures").replaceChildren(...d.pictures.map((p) => calPicture(p, d.doubts.filter((x) => x.step === p.step))));
  $("cal-save-box").hidden = !d.ok;
  if (!d.ok) {
    $("cal-steps-box").hidden = false;  // retake: the steps stay open
    calLive();
  }
  calSay(d.message, !d.ok);
}

// A picture refused when it was taken: the sentence and its doubted places circled, the step left open.
function calShowRefused(d) {
  $("cal-result").hidden = false;
  $("cal-result").dataset.ok = "no";
  $("cal-problem").textContent = _("Refused: {why}. Take the picture again.", { why: d.error });
  $("cal-report").replaceChildren();
  $("cal-doubts").replaceChildren(...d.doubts.map((x) =>
    html("li", { "data-step": x.step, "data-cell": `${x.row},${x.col}` }, null,
      _("picture {number}, {place}: {why}", { number: x.step, place: x.place, why: x.why }))));
  $("cal-pictures").replaceChildren(calPicture(d.picture, d.doubts));
  $("cal-save-box").hidden = true;
}

function calPicture(picture, doubts) {
  const step = cal.steps[picture.step - 1];
  const figure = html("figure", { class: "cal-picture", "data-step": picture.step });
  const frame = html("div", { class: "cal-frame" }, figure);  // the circles lie over the picture only
  html("img", { src: `${picture.url}?t=${Date.now()}`, alt: _("picture {number}: {title}", { number: picture.step, title: step.title }) }, frame);
  const svg = el("svg", { viewBox: `0 0 ${picture.width} ${picture.height}`, preserveAspectRatio: "none" }, frame);
  const radius = Math.max(6, picture.width / 50);
  for (const x of doubts) {
    const c = el("circle", { cx: x.x, cy: x.y, r: radius, class: "doubt", "data-cell": `${x.row},${x.col}`,
                             "vector-effect": "non-scaling-stroke" }, svg);
    el("title", {}, c, `${x.place}: ${x.why}`);
  }
  html("figcaption", {}, figure, doubts.length
    ? _n("picture {number}: {title} ({n} place doubted)", "picture {number}: {title} ({n} places doubted)", doubts.length, { number: picture.step, title: step.title })
    : _("picture {number}: {title}", { number: picture.step, title: step.title }));
  return figure;
}

async function calSave() {
  const answer = await calPost("/api/calibration/save",
    { name: $("cal-name").value.trim(), overwrite: $("cal-overwrite").checked });
  if (!answer.ok) { calRefused(answer); return; }
  $("cal-stop").hidden = true;
  calSay(answer.data.message, false);
}

async function calStop() {
  const answer = await calPost("/api/calibration/stop", {});
  if (!answer.ok) { calRefused(answer); return; }
  cal = null;
  clearTimeout(calLiveTimer);
  $("cal-steps-box").hidden = true;
  $("cal-result").hidden = true;
  $("cal-stop").hidden = true;
  calSay(answer.data.message, false);
}

window.addEventListener("DOMContentLoaded", () => {
  const select = $("cal-game");
  select.replaceChildren(...Object.entries(GAME_NAMES).map(([key, name]) => html("option", { value: key }, null, name)));
  fetch(withLang("/api/state")).then((r) => r.json()).then((s) => { if (s && s.game) select.value = s.game; }).catch(() => {});
  $("cal-start").onclick = calStart;
  $("cal-capture").onclick = calCapture;
  $("cal-save").onclick = calSave;
  $("cal-stop").onclick = calStop;
  document.addEventListener("visibilitychange", calLive);
});
