// The request list: slowest first, filtered by operation and by dominant cause.
import { CAUSE_COLORS, causeLabel } from "./colors.js";
import { duration, shortId } from "./format.js";

export function fillFilters(opSelect, causeSelect, list, view) {
  const keep = (sel, options, value) => {
    sel.replaceChildren(new Option("all", ""));
    for (const [v, text] of options) sel.add(new Option(text, v));
    sel.value = value || "";
  };
  keep(opSelect, list.operations.map((o) => [o.key, `${o.key} (${o.count})`]), view.operation);
  keep(causeSelect, list.causes.map((c) => [c.cause, `${causeLabel(c.cause)} (${c.count})`]), view.cause);
}

export function drawList(tbody, list, selected, onSelect) {
  tbody.replaceChildren();
  for (const r of list.requests) {
    const tr = tbody.insertRow();
    tr.dataset.id = r.id;
    if (r.id === selected) tr.className = "selected";
    tr.insertCell().textContent = duration(r.latency);
    tr.insertCell().textContent = `${r.service} ${r.operation}`;
    const c = tr.insertCell();
    const sw = document.createElement("i");
    sw.className = "swatch";
    sw.style.background = CAUSE_COLORS[r.dominant_cause] || "#000";
    c.append(sw, " " + causeLabel(r.dominant_cause));
    tr.insertCell().textContent = shortId(r.id);
    tr.title = r.diagnosis;
    tr.addEventListener("click", () => onSelect(r.id));
  }
}
