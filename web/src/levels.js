// A request's top-down levels, from the `report` of /api/requests/ID (the JSON of
// `causeway request ID --format json`): the levels of `causeway diagnose` when the report
// carries them (`levels`: verdict, walk, states, below, system calls), else the levels the
// request analysis itself gives: dominant cause -> requests in the way -> their threads'
// states, and who held the CPU.
import { causeLabel } from "./colors.js";
import { duration, shortId } from "./format.js";

function item(parent, text, cls) {
  const li = document.createElement("li");
  if (cls === "head") li.appendChild(document.createElement("b")).textContent = text;
  else li.textContent = text;
  if (cls) li.className = cls;
  parent.appendChild(li);
  return li;
}

function sublist(li) {
  const ul = document.createElement("ul");
  li.appendChild(ul);
  return ul;
}

function amounts(parent, title, list) {
  if (!Array.isArray(list) || !list.length) return;
  const ul = sublist(item(parent, title));
  for (const a of list)
    item(ul, `${a.name}: ${duration(a.ns)}` + (a.normal_ns !== undefined && a.normal_ns !== null ? ` (normal ${duration(a.normal_ns)})` : ""));
}

export function drawLevels(root, report) {
  root.replaceChildren();
  const ul = document.createElement("ul");
  ul.className = "levels";
  root.appendChild(ul);
  if (!report) return;
  const levels = report.levels;
  if (levels && typeof levels === "object") {
    item(ul, `verdict: ${levels.verdict}` + (levels.ratio_to_median ? ` (${Number(levels.ratio_to_median).toFixed(1)}× the median)` : ""), "head");
    if (levels.summary) item(ul, levels.summary);
    if (Array.isArray(levels.walk) && levels.walk.length) {
      let at = ul;
      for (const s of levels.walk) {
        const li = item(at, `${s.level}: ${s.name} ${duration(s.ns)}` + (s.normal_ns !== undefined ? ` (normal ${duration(s.normal_ns)})` : ""));
        at = sublist(li);
      }
    }
    amounts(ul, "states", levels.states);
    amounts(ul, "below", levels.below);
    amounts(ul, "devices", levels.devices);
    if (Array.isArray(levels.syscalls)) amounts(ul, "system calls", levels.syscalls);
    return;
  }
  // The request analysis' own levels.
  const total = report.latency_ns || 1;
  const causes = Object.entries(report.by_cause || {}).sort((a, b) => b[1] - a[1]);
  const top = item(ul, `latency ${duration(report.latency_ns)} — dominant: ${causeLabel(report.dominant_cause)}`, "head");
  const byCause = sublist(top);
  for (const [cause, ns] of causes) {
    const li = item(byCause, `${causeLabel(cause)}: ${duration(ns)} (${((100 * ns) / total).toFixed(1)}%)`);
    if (cause === "blocked_by_request" && Array.isArray(report.blocked_by_requests)) {
      const by = sublist(li);
      for (const b of report.blocked_by_requests) {
        const id = b.trace_id || b.id || "";
        item(by, `request ${shortId(id)} ${b.service || ""} ${b.operation || ""}: ${duration(b.ns || 0)}`);
      }
      const states = report.blocked_by_requests_states;
      if (states && typeof states === "object") {
        const st = sublist(item(by, "meanwhile their threads were"));
        for (const [s, ns] of Object.entries(states).sort((a, b) => b[1] - a[1]))
          item(st, `${s.toLowerCase().replace(/_/g, " ")}: ${duration(ns)}`);
      }
    }
    if (cause === "preempted" && report.cpu_wait && Array.isArray(report.cpu_wait.held_by)) {
      const h = sublist(li);
      for (const x of report.cpu_wait.held_by.slice(0, 5))
        item(h, `CPU held by tid ${x.tid} (${x.name}): ${duration(x.ns || 0)}`);
      if (report.cpu_wait.throttled_ns) item(h, `throttled by a cgroup quota: ${duration(report.cpu_wait.throttled_ns)}`);
    }
  }
  item(ul, "deeper levels (system calls, devices, page cache): `causeway diagnose` adds them to this report", "note");
}
