#include "report/request_html.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/critpath_format.h"
#include "report/html_escape.h"
#include "report/request_diagnosis.h"
#include "report/request_format.h"

namespace causeway::report {
namespace {

// The page: styles, an SVG timeline and pie drawn from the embedded data. Colours follow
// the cause order of requests::Cause.
constexpr char kPage[] = R"HTML(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Causeway: @TITLE@</title>
<style>
body{font:13px system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:18px;margin:0 0 4px} .sub{color:#666;margin-bottom:12px}
#legend span{display:inline-block;margin-right:12px} #legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px}
#timeline{border:1px solid #ddd;overflow-x:auto} .row:hover{fill:#f3f6ff}
#detail{display:flex;gap:24px;margin-top:16px;align-items:flex-start}
table{border-collapse:collapse} td,th{padding:2px 8px;text-align:left;border-bottom:1px solid #eee}
.label{font:11px monospace;fill:#333;cursor:pointer} .sel{font-weight:bold}
</style></head><body>
<h1>Causeway: why requests were slow</h1>
<div class="sub" id="sub"></div>
<div id="legend"></div>
<div id="timeline"></div>
<div id="detail"><svg id="pie" width="260" height="260"></svg><div id="info"></div></div>
<script type="application/json" id="data">@DATA@</script>
<script>
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const COLORS = {running:"#2e7d32",preempted:"#f9a825",blocked_by_request:"#c62828",
  waiting_for_thread:"#8e24aa",network:"#1565c0",disk:"#6d4c41",timer:"#00897b",
  interrupted:"#ef6c00",blocked:"#9e9e9e",unknown:"#cfcfcf",other:"#607d8b",
  disk_queue:"#a1887f"};
const NS = "http://www.w3.org/2000/svg";
function el(tag, attrs, parent) { const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]); if (parent) parent.appendChild(e); return e; }
function ms(ns) { return (ns / 1e6).toFixed(3) + " ms"; }
function esc(t) { return String(t).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})[c]); }
document.getElementById("sub").textContent = D.requests.length + " requests, " + D.spans +
  " spans; slowest " + (D.requests.length ? ms(Math.max(...D.requests.map(r => r.latency))) : "-") +
  (D.kernel_discarded ? "; " + D.kernel_discarded + " kernel events discarded by the tracer (UNKNOWN)" : "") +
  (D.sync_discarded ? "; " + D.sync_discarded + " user-space events discarded by the tracer" : "");
if (D.placement) { const p = document.createElement("div"); p.className = "sub";
  p.style.whiteSpace = "pre-line"; p.textContent = D.placement;
  document.getElementById("sub").after(p); }
const legend = document.getElementById("legend");
for (const c of D.causes) { const s = document.createElement("span");
  s.innerHTML = '<i style="background:' + COLORS[c] + '"></i>' + c.replace(/_/g, " "); legend.appendChild(s); }
// Timeline: one row per request in start order; x = time.
const rows = D.requests.slice().sort((a, b) => a.start - b.start);
const t0 = Math.min(...rows.map(r => r.start)), t1 = Math.max(...rows.map(r => r.end));
const LEFT = 240, W = Math.max(900, Math.min(2400, rows.length * 12)), RH = 14;
const H = rows.length * RH + 30;
const svg = el("svg", {id: "timeline-svg", width: LEFT + W + 20, height: H});
document.getElementById("timeline").appendChild(svg);
const defs = el("defs", {}, svg);
const marker = el("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5,
  markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse"}, defs);
el("path", {d: "M 0 0 L 10 5 L 0 10 z", fill: "#c62828"}, marker);
const x = t => LEFT + (t1 > t0 ? (t - t0) / (t1 - t0) * W : 0);
const rowOf = {};
rows.forEach((r, i) => rowOf[r.id] = i);
const labels = [];
rows.forEach((r, i) => {
  const y = 20 + i * RH;
  el("rect", {class: "row", x: 0, y: y - 1, width: LEFT + W + 20, height: RH, fill: "transparent"}, svg);
  const t = el("text", {class: "label", x: 4, y: y + 10}, svg);
  t.textContent = r.id.slice(0, 8) + " " + r.operation.slice(0, 14) + " " + ms(r.latency);
  t.addEventListener("click", () => select(r));
  labels.push([r, t]);
  for (const p of r.pieces) {
    const rect = el("rect", {class: "piece", x: x(p.s), y: y, width: Math.max(0.5, x(p.e) - x(p.s)),
      height: RH - 3, fill: COLORS[p.c]}, svg);
    const title = el("title", {}, rect);
    title.textContent = p.c.replace(/_/g, " ") + (p.o ? " " + p.o.slice(0, 8) : "") + " on " + p.t + ": " + ms(p.e - p.s);
  }
});
// Arrows: from the request in the way to the blocked one, at the middle of the piece.
for (const r of rows) for (const p of r.pieces) {
  if (!p.o || !(p.o in rowOf) || p.e - p.s < (t1 - t0) / 2000) continue;
  const xm = x((p.s + p.e) / 2);
  el("line", {class: "arrow", x1: xm, y1: 20 + rowOf[p.o] * RH + 5, x2: xm, y2: 20 + rowOf[r.id] * RH + 5,
    stroke: "#c62828", "stroke-width": 1, "marker-end": "url(#arrow)", opacity: 0.6}, svg);
}
function select(r) {
  for (const [q, t] of labels) t.classList.toggle("sel", q === r);
  const pie = document.getElementById("pie"); pie.innerHTML = "";
  const total = Object.values(r.by_cause).reduce((a, b) => a + b, 0) || 1;
  let angle = -Math.PI / 2; const cx = 130, cy = 130, R = 110;
  for (const c of D.causes) { const v = r.by_cause[c] || 0; if (!v) continue;
    const a2 = angle + 2 * Math.PI * v / total;
    const large = a2 - angle > Math.PI ? 1 : 0;
    const d = v >= total ? `M ${cx - R} ${cy} a ${R} ${R} 0 1 0 ${2 * R} 0 a ${R} ${R} 0 1 0 ${-2 * R} 0` :
      `M ${cx} ${cy} L ${cx + R * Math.cos(angle)} ${cy + R * Math.sin(angle)} A ${R} ${R} 0 ${large} 1 ${cx + R * Math.cos(a2)} ${cy + R * Math.sin(a2)} Z`;
    const s = el("path", {class: "slice", d: d, fill: COLORS[c], stroke: "#fff"}, pie);
    el("title", {}, s).textContent = c + ": " + ms(v) + " (" + (100 * v / total).toFixed(1) + "%)";
    angle = a2; }
  let html = "<b>" + esc(r.service + " " + r.operation) + "</b> " + esc(r.id) + "<br>latency " + ms(r.latency) +
    "<br>dominant cause: " + esc(r.diagnosis) + "<table><tr><th>cause</th><th>time</th><th>share</th></tr>";
  for (const c of D.causes) { const v = r.by_cause[c] || 0; if (!v) continue;
    html += "<tr><td>" + c.replace(/_/g, " ") + "</td><td>" + ms(v) + "</td><td>" + (100 * v / total).toFixed(1) + "%</td></tr>"; }
  document.getElementById("info").innerHTML = html + "</table>";
}
if (rows.length) select(D.requests.reduce((a, b) => b.latency > a.latency ? b : a));
</script></body></html>
)HTML";

void ReplaceAll(std::string& s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
}

// JSON text made safe inside <script> (html_escape.h). Applied to whole JSON values, so
// that no sequence is split between two of them.
std::string ForScript(const std::string& json) { return JsonForScript(json); }

// One request of the embedded data, keys in byte order (as the whole document's dump wrote
// them).
nlohmann::json RequestData(const graph::ExecutionGraph& g, const spans::SpanSet& s,
                           const requests::RequestAnalysis& a, size_t index) {
  const requests::Request& r = a.requests[index];
  const requests::RequestDetail detail = a.Detail(index);
  const spans::Span& root = s.spans[r.root];
  nlohmann::json pieces = nlohmann::json::array();
  for (const auto& p : detail.path) {
    nlohmann::json x = {
        {"s", p.start},
        {"e", p.end},
        {"c", std::string(requests::CauseName(p.cause))},
        {"t", p.worker == graph::kNoWorker ? std::string("-") : a.ThreadLabel(g, p.worker)}};
    if (p.other_request >= 0) x["o"] = spans::TraceIdHex(a.requests[p.other_request].trace);
    pieces.push_back(std::move(x));
  }
  nlohmann::json by_cause = nlohmann::json::object();
  for (int c = 0; c < requests::kNumCauses; ++c)
    if (r.by_cause[c])
      by_cause[std::string(requests::CauseName(static_cast<requests::Cause>(c)))] = r.by_cause[c];
  return {{"id", spans::TraceIdHex(r.trace)},
          {"service", *root.service},
          {"operation", *root.operation},
          {"start", r.start},
          {"end", r.end},
          {"latency", r.latency()},
          {"diagnosis", RequestDiagnosis(g, s, a, r, detail)},
          {"by_cause", by_cause},
          {"pieces", pieces}};
}

}  // namespace

bool WriteRequestsHtml(const std::function<bool(std::string_view)>& write,
                       const graph::ExecutionGraph& g, const spans::SpanSet& s,
                       const requests::RequestAnalysis& a, const std::vector<size_t>& which,
                       const std::string& title) {
  std::string page = kPage;
  ReplaceAll(page, "@TITLE@", HtmlText(title));
  const size_t data_at = page.find("@DATA@");
  // The data object, a request at a time: {"causes","kernel_discarded","placement",
  // "requests","spans","sync_discarded"}, the order nlohmann::json writes its keys in.
  nlohmann::json causes = nlohmann::json::array();
  for (int c = 0; c < requests::kNumCauses; ++c)
    causes.push_back(std::string(requests::CauseName(static_cast<requests::Cause>(c))));
  bool ok = write(std::string_view(page).substr(0, data_at));
  ok = ok &&
       write(ForScript(fmt::format(
           "{{\"causes\":{},\"kernel_discarded\":{},\"placement\":{},\"requests\":[", causes.dump(),
           a.kernel_events_discarded, nlohmann::json(SpanPlacementText(a)).dump())));
  for (size_t k = 0; ok && k < which.size(); ++k)
    ok = (k == 0 || write(",")) && write(ForScript(RequestData(g, s, a, which[k]).dump()));
  ok = ok && write(fmt::format("],\"spans\":{},\"sync_discarded\":{}}}", a.spans,
                               a.sync_events_discarded));
  return ok && write(std::string_view(page).substr(data_at + 6));
}

std::string RequestsHtml(const graph::ExecutionGraph& g, const spans::SpanSet& s,
                         const requests::RequestAnalysis& a, const std::string& title) {
  std::vector<size_t> all(a.requests.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::string page;
  WriteRequestsHtml(
      [&](std::string_view bytes) {
        page.append(bytes);
        return true;
      },
      g, s, a, all, title);
  return page;
}

}  // namespace causeway::report
