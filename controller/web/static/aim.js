// The aim drawn on the picture (GET /api/aim and the very picture it judged), and for a copy without
// markers four corner handles to drag (mouse and touch: pointer events), the lattice following live;
// "Save corners" posts them with the PIN. Asks the Pi only on a click or while "keep checking" is on.
"use strict";

const AIM_REFRESH_MS = 1000;
let aimTimer = null;
let aimData = null;
let handles = null;        // the four corner points being placed, in the picture's pixels (TL TR BR BL)
let handlesMoved = false;  // once dragged, a refresh keeps the person's corners instead of the referee's

// The homography taking the four points `src` to `dst` (each [[x, y] x4]), as a 3x3 array: the eight
// unknowns from eight linear equations, by Gaussian elimination with partial pivoting.
function homography(src, dst) {
  const a = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = src[i], [u, v] = dst[i];
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let col = 0; col < 8; col++) {
    let pivot = col;
    for (let r = col + 1; r < 8; r++) if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) pivot = r;
    [a[col], a[pivot]] = [a[pivot], a[col]];
    if (Math.abs(a[col][col]) < 1e-12) return null;
    for (let r = 0; r < 8; r++) {
      if (r === col) continue;
      const f = a[r][col] / a[col][col];
      for (let k = col; k < 9; k++) a[r][k] -= f * a[col][k];
    }
  }
  const h = a.map((row, i) => row[8] / row[i]);
  return [[h[0], h[1], h[2]], [h[3], h[4], h[5]], [h[6], h[7], 1]];
}

function project(h, x, y) {
  const w = h[2][0] * x + h[2][1] * y + h[2][2];
  return [(h[0][0] * x + h[0][1] * y + h[0][2]) / w, (h[1][0] * x + h[1][1] * y + h[1][2]) / w];
}

// A corner of the board in the page's language ("top-left").
function cornerName(corner) {
  const names = { "top-left": _("top-left"), "top-right": _("top-right"), "bottom-right": _("bottom-right"),
                  "bottom-left": _("bottom-left") };
  return names[corner] || corner;
}

// Why four corners cannot hold the lattice (the rule of controller/vision/geometry.py check_corners), or "".
function cornersProblem(pts) {
  for (let i = 0; i < 4; i++) {
    const [a, b, c] = [pts[i], pts[(i + 1) % 4], pts[(i + 2) % 4]];
    if ((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]) <= 0) {
      return _("the four corners must be given in the order top-left, top-right, bottom-right, bottom-left and form a convex quadrilateral");
    }
  }
  for (let i = 0; i < 4; i++) {
    const [a, b] = [pts[i], pts[(i + 1) % 4]];
    if (Math.hypot(b[0] - a[0], b[1] - a[1]) < 8) return _("the corners are too close together to hold a lattice");
  }
  return "";
}

function latticeCorners(rows, cols) {
  return [[0, 0], [cols - 1, 0], [cols - 1, rows - 1], [0, rows - 1]];
}

// The lattice (its row and column lines and its places) as `h` puts it, into the group `g`.
function drawLattice(g, h, rows, cols, unit) {
  while (g.firstChild) g.removeChild(g.firstChild);
  if (!h) return;
  for (let r = 0; r < rows; r++) {
    const [x1, y1] = project(h, 0, r), [x2, y2] = project(h, cols - 1, r);
    el("line", { x1, y1, x2, y2, class: "lattice-line", "stroke-width": unit }, g);
  }
  for (let c = 0; c < cols; c++) {
    const [x1, y1] = project(h, c, 0), [x2, y2] = project(h, c, rows - 1);
    el("line", { x1, y1, x2, y2, class: "lattice-line", "stroke-width": unit }, g);
  }
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const [cx, cy] = project(h, c, r);
      el("circle", { cx, cy, r: 2.5 * unit, class: "lattice-place", "data-cell": `${r},${c}` }, g);
    }
  }
}

function drawAim(data) {
  const svg = $("aim-svg");
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const [w, hgt] = data.size;
  svg.setAttribute("viewBox", `0 0 ${w} ${hgt}`);
  const unit = Math.max(1, w / 400);
  const lattice = el("g", { id: "aim-lattice" }, svg);
  const placing = data.placed_by !== "markers";
  if (!placing) drawLattice(lattice, data.homography, data.rows, data.cols, unit);
  for (const m of data.markers) {
    if (!m.quad) continue;
    const g = el("g", { class: `marker ${m.found ? "found" : "missing"}`, "data-corner": m.corner }, svg);
    el("polygon", { points: m.quad.map((p) => p.join(",")).join(" "), "stroke-width": 2 * unit }, g);
    const [x, y] = m.quad[0];
    el("text", { x, y: y - 3 * unit, "font-size": 9 * unit }, g, m.found ? _("{corner}: found", { corner: cornerName(m.corner) }) : _("{corner}: missing", { corner: cornerName(m.corner) }));
  }
  if (data.homography) {
    const [ax, ay] = project(data.homography, 0, 0), [bx, by] = project(data.homography, 1, 0);
    const pitch = Math.hypot(bx - ax, by - ay);
    for (const spot of data.glare) {
      const [cx, cy] = project(data.homography, spot.place[1], spot.place[0]);
      const g = el("g", { class: "glare", "data-cell": spot.place.join(",") }, svg);
      el("title", {}, g, _("glare on {place}", { place: spot.name }));
      el("circle", { cx, cy, r: 0.45 * pitch, "stroke-width": 2 * unit }, g);
    }
  }
  $("corners-box").hidden = !placing;
  if (placing) {
    if (!handlesMoved || !handles) {
      handles = data.lattice_corners || [[0.3 * w, 0.25 * hgt], [0.7 * w, 0.25 * hgt], [0.7 * w, 0.75 * hgt], [0.3 * w, 0.75 * hgt]];
    }
    drawHandles(svg, lattice, unit);
  }
}

function drawHandles(svg, lattice, unit) {
  const data = aimData;
  const redraw = () => {
    const problem = cornersProblem(handles);
    $("corners-warning").textContent = problem;
    drawLattice(lattice, problem ? null : homography(latticeCorners(data.rows, data.cols), handles), data.rows, data.cols, unit);
  };
  ["top-left", "top-right", "bottom-right", "bottom-left"].forEach((name, i) => {
    const handle = el("circle", { cx: handles[i][0], cy: handles[i][1], r: 9 * unit, class: "corner-handle",
                                  "data-corner": name }, svg);
    el("title", {}, handle, _("{corner} corner: drag it onto the {corner} place", { corner: cornerName(name) }));
    handle.addEventListener("pointerdown", (e) => {
      handle.setPointerCapture(e.pointerId);
      handle.classList.add("dragging");
      e.preventDefault();
    });
    handle.addEventListener("pointermove", (e) => {
      if (!handle.hasPointerCapture(e.pointerId)) return;
      const p = svg.createSVGPoint();
      p.x = e.clientX; p.y = e.clientY;
      const at = p.matrixTransform(svg.getScreenCTM().inverse());
      handles[i] = [at.x, at.y];
      handlesMoved = true;
      handle.setAttribute("cx", at.x); handle.setAttribute("cy", at.y);
      redraw();
    });
    const drop = (e) => { if (handle.hasPointerCapture(e.pointerId)) handle.releasePointerCapture(e.pointerId); handle.classList.remove("dragging"); };
    handle.addEventListener("pointerup", drop);
    handle.addEventListener("pointercancel", drop);
  });
  redraw();
}

async function checkAim() {
  clearTimeout(aimTimer);
  if (document.querySelector(".corner-handle.dragging")) {  // never redraw under a finger
    aimTimer = setTimeout(checkAim, AIM_REFRESH_MS);
    return;
  }
  const list = $("aim-lines");
  try {
    const response = await fetch(withLang("/api/aim"));
    const data = await response.json();
    if (!response.ok) {
      list.replaceChildren(html("li", { class: "advice" }, null, data.error));
    } else {
      await new Promise((resolve) => {  // the picture first, so the advice, drawing and picture change together
        const img = $("aim-picture");
        img.onload = resolve;
        img.onerror = resolve;
        img.src = `/api/aim/picture.jpg?t=${Date.now()}`;
      });
      aimData = data;
      $("aim-view").hidden = false;
      drawAim(data);
      list.replaceChildren(...data.lines.map((line) => html("li", { class: data.ok ? "ok" : "advice" }, null, line)));
      const m = data.measures;
      const parts = [_("markers found: {corners}", { corners: data.markers_found.map(cornerName).join(", ") || _("none") }),
        _("board mean grey {grey}", { grey: Math.round(m.mean) }),
        _("clipped white {percent}", { percent: formatNumber(100 * m.clipped_white, 1) + "\u00a0%" })];
      if (m.blur_px !== undefined) parts.push(_("blur about {pixels} px", { pixels: formatNumber(m.blur_px, 1) }));
      $("aim-figures").textContent = parts.join("; ");
    }
  } catch (err) {
    list.replaceChildren(html("li", { class: "advice" }, null, _("The referee did not answer: {why}", { why: String(err) })));
  }
  if ($("aim-live").checked && document.visibilityState === "visible") {
    aimTimer = setTimeout(checkAim, AIM_REFRESH_MS);
  }
}

async function saveCorners() {
  const answer = $("corners-answer");
  const problem = handles ? cornersProblem(handles) : _("check the aim first");
  if (problem) { answer.className = "error"; answer.textContent = problem; return; }
  const corners = handles.map(([x, y]) => [Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
  const data = await postWithPin("/api/corners", { name: $("corners-name").value.trim(), corners }, answer);
  if (data) { handlesMoved = false; checkAim(); }
}

window.addEventListener("DOMContentLoaded", () => {
  $("aim-check").onclick = checkAim;
  $("aim-live").onchange = () => { if ($("aim-live").checked) checkAim(); else clearTimeout(aimTimer); };
  $("corners-save").onclick = saveCorners;
});
