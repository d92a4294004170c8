// Causeway's web UI: the request list, one request's timeline (critical path, thread
// lanes, arrows), its pie and levels. The view lives in the URL's hash (view_url.js).
// Window `causeway` is the page's state for tests: `drawn` is what the timeline last drew,
// `idle` is true when what is drawn is the answer for the window shown.
import { fetchRequest, fetchRequests, fetchThreads } from "./api.js";
import { CAUSE_COLORS, causeLabel } from "./colors.js";
import { duration } from "./format.js";
import { drawLevels } from "./levels.js";
import { drawList, fillFilters } from "./list.js";
import { drawPie } from "./pie.js";
import { Timeline } from "./timeline.js";
import { readView, writeView } from "./view_url.js";

const $ = (id) => document.getElementById(id);
const app = { view: readView(), list: null, request: null, pending: 0, timer: null };
window.causeway = { get drawn() { return timeline.drawn; }, idle: false, errors: [] };

function setBusy(busy) {
  window.causeway.idle = !busy;
  document.body.dataset.state = busy ? "loading" : "idle";
}

function showError(e) {
  window.causeway.errors.push(String(e.message || e));
  $("error").textContent = String(e.message || e);
}

const timeline = new Timeline($("timeline"), {
  onWindowChange: (begin, end) => {
    app.view.begin = begin;
    app.view.end = end;
    writeView(app.view);
    setBusy(true);
    clearTimeout(app.timer);
    app.timer = setTimeout(() => loadWindow(), 120);
  },
  onSelectRequest: (id) => selectRequest(id),
});

async function loadList() {
  const list = await fetchRequests({ operation: app.view.operation, cause: app.view.cause, limit: 500 });
  app.list = list;
  fillFilters($("operation"), $("cause"), list, app.view);
  $("summary").textContent = `${list.total} requests, ${list.matched} shown` +
    (list.requests.length ? `; slowest ${duration(list.requests[0].latency)}` : "");
  drawList($("requests").tBodies[0], list, app.view.request, selectRequest);
}

// The request and lanes for the window shown (or the request's default window).
async function loadWindow() {
  const id = app.view.request;
  if (!id) { setBusy(false); return; }
  const ticket = ++app.pending;
  setBusy(true);
  try {
    const pixels = timeline.pixels;
    const w = app.view.begin !== undefined && app.view.end !== undefined ? { begin: app.view.begin, end: app.view.end } : {};
    const view = await fetchRequest(id, { ...w, pixels });
    const workers = view.rows.filter((r) => r.worker !== undefined).map((r) => r.worker);
    const lanes = workers.length ? await fetchThreads(workers, { begin: view.window.begin, end: view.window.end, pixels }) : null;
    if (ticket !== app.pending) return;  // a newer window was asked for meanwhile
    const first = !app.request || app.request.request.id !== view.request.id;
    app.request = view;
    app.view.begin = view.window.begin;
    app.view.end = view.window.end;
    writeView(app.view);
    timeline.setWindow(view.window.begin, view.window.end, false);
    timeline.setData(view, lanes);
    if (first) showRequest(view);
    $("error").textContent = "";
    setBusy(false);
  } catch (e) {
    if (ticket === app.pending) { showError(e); setBusy(false); }
  }
}

function showRequest(view) {
  const r = view.request;
  $("title").textContent = `${r.service} ${r.operation} — ${duration(r.latency)}`;
  $("diagnosis").textContent = `${causeLabel(r.dominant_cause)}: ${r.diagnosis}`;
  $("request-id").textContent = r.id;
  drawPie($("pie"), $("pie-table"), view.pie);
  drawLevels($("levels"), view.report);
  for (const tr of $("requests").tBodies[0].rows) tr.classList.toggle("selected", tr.dataset.id === r.id);
}

function selectRequest(id) {
  app.view = { ...app.view, request: id, begin: undefined, end: undefined };
  writeView(app.view);
  app.request = null;
  loadWindow();
}

function fit() {
  if (!app.request) return;
  const r = app.request.request, m = Math.max(1, Math.round((r.end - r.start) / 20));
  timeline.setWindow(r.start - m, r.end + m);
}

function drawLegend() {
  const legend = $("legend");
  for (const [c, color] of Object.entries(CAUSE_COLORS)) {
    const s = document.createElement("span");
    const sw = document.createElement("i");
    sw.className = "swatch";
    sw.style.background = color;
    s.append(sw, " " + causeLabel(c));
    legend.appendChild(s);
  }
  const arrows = document.createElement("span");
  arrows.textContent = "arrows: wake-up (grey), packet (blue), blocked by request (red, dashed)";
  legend.appendChild(arrows);
}
drawLegend();

$("zoom-in").addEventListener("click", () => timeline.zoom(0.5));
$("zoom-out").addEventListener("click", () => timeline.zoom(2));
$("fit").addEventListener("click", fit);
for (const id of ["operation", "cause"]) {
  $(id).addEventListener("change", () => {
    app.view[id] = $(id).value || undefined;
    writeView(app.view);
    loadList().catch(showError);
  });
}
window.addEventListener("hashchange", () => {
  const v = readView();
  if (v.request === app.view.request && v.begin === app.view.begin && v.end === app.view.end) return;
  app.view = v;
  loadList().then(loadWindow).catch(showError);
});

(async () => {
  setBusy(true);
  try {
    await loadList();
    if (!app.view.request && app.list.requests.length) app.view.request = app.list.requests[0].id;
    await loadWindow();
  } catch (e) {
    showError(e);
    setBusy(false);
  }
})();
