// Stay Alive's holes, guided (the API: controller/web/holes_api.py): the nine steps asked in turn,
// capture (the Pi checks the board is still and no hand is in view), the derivation's report, the
// contradicting points circled and named on the last picture, and save into a named profile.
"use strict";

let holes = null;

function showHoles(data) {
  holes = data;
  $("holes-box").hidden = !data.available;
  if (!data.available || !data.active) return;
  const due = data.next_step;
  $("holes-instruction").textContent = due
    ? _("Step {step} of {steps}: {instruction}, take your hands away, then capture.", { step: due, steps: data.steps_total, instruction: data.instruction })
    : _("All nine steps taken.");
  $("holes-instruction").dataset.step = due || "";
  $("holes-capture").hidden = !due;
  $("holes-steps").replaceChildren(...data.steps.map((s) => {
    const li = html("li", { class: s.taken ? "taken" : "", "data-step": s.step }, null,
      (s.taken ? _n("{instruction}: {n} open point", "{instruction}: {n} open points", s.open_points, { instruction: s.instruction })
               : _("{instruction}: not taken yet", { instruction: s.instruction })) + " ");
    if (s.taken) {
      const again = html("button", { type: "button", class: "retake" }, li, _("take again"));
      again.onclick = () => capture(s.step);
    }
    return li;
  }));
  const derivation = data.derivation;
  $("holes-report").textContent = derivation ? derivation.report : "";
  $("holes-save-box").hidden = !(derivation && derivation.ok);
  const svg = $("holes-svg");
  while (svg.firstChild) svg.removeChild(svg.firstChild);  // the circles belong to the picture that follows
  if (data.picture) {
    const img = $("holes-picture");
    img.onload = () => drawContradictions(data);
    img.src = `/api/holes/picture.jpg?t=${Date.now()}`;
    $("holes-view").hidden = false;
  } else $("holes-view").hidden = true;
}

function drawContradictions(data) {
  const svg = $("holes-svg");
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const [w, h] = data.size;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const unit = Math.max(1, w / 400);
  for (const c of (data.derivation && data.derivation.contradictions) || []) {
    if (!c.at) continue;
    const g = el("g", { class: "contradiction", "data-point": c.point.join(",") }, svg);
    el("title", {}, g, _("{point} ({slides}): open in {steps}", { point: c.name, slides: c.slides, steps: c.open_in.join(", ") || _("none") }));
    el("circle", { cx: c.at[0], cy: c.at[1], r: data.derivation.radius || 10 * unit, "stroke-width": 3 * unit }, g);
    el("text", { x: c.at[0] + data.derivation.radius, y: c.at[1] - data.derivation.radius, "font-size": 11 * unit }, g, c.name);
  }
}

async function loadHoles() {
  try {
    const response = await fetch(withLang("/api/holes"));
    if (response.ok) showHoles(await response.json());
  } catch (err) { /* the page works without this panel */ }
}

async function capture(step) {
  $("holes-capture").disabled = true;
  const data = await postWithPin("/api/holes/capture", { step }, $("holes-answer"));
  $("holes-capture").disabled = false;
  if (data) showHoles(data);
}

window.addEventListener("DOMContentLoaded", () => {
  $("holes-start").onclick = async () => {
    const data = await postWithPin("/api/holes/start", {}, $("holes-answer"));
    if (data) showHoles(data);
  };
  $("holes-capture").onclick = () => capture(holes && holes.next_step);
  $("holes-save").onclick = async () => {
    const data = await postWithPin("/api/holes/save", { name: $("holes-name").value.trim() }, $("holes-answer"));
    if (data) showHoles(data);
  };
  loadHoles();
});
