// A request's time by cause as an SVG pie, and the same figures as a table.
import { CAUSE_COLORS, causeLabel } from "./colors.js";
import { duration } from "./format.js";

const NS = "http://www.w3.org/2000/svg";

function el(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

export function drawPie(svg, table, byCause) {
  svg.replaceChildren();
  table.replaceChildren();
  const entries = Object.entries(byCause).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
  const total = entries.reduce((s, [, v]) => s + v, 0) || 1;
  const cx = 100, cy = 100, R = 90;
  let angle = -Math.PI / 2;
  for (const [cause, v] of entries) {
    const a2 = angle + (2 * Math.PI * v) / total;
    const d = v >= total
      ? `M ${cx - R} ${cy} a ${R} ${R} 0 1 0 ${2 * R} 0 a ${R} ${R} 0 1 0 ${-2 * R} 0`
      : `M ${cx} ${cy} L ${cx + R * Math.cos(angle)} ${cy + R * Math.sin(angle)} A ${R} ${R} 0 ${a2 - angle > Math.PI ? 1 : 0} 1 ${cx + R * Math.cos(a2)} ${cy + R * Math.sin(a2)} Z`;
    const s = el("path", { class: "slice", d, fill: CAUSE_COLORS[cause] || "#000", stroke: "#fff", "data-cause": cause }, svg);
    el("title", {}, s).textContent = `${causeLabel(cause)}: ${duration(v)} (${((100 * v) / total).toFixed(1)}%)`;
    angle = a2;
    const tr = table.insertRow();
    const sw = document.createElement("i");
    sw.className = "swatch";
    sw.style.background = CAUSE_COLORS[cause] || "#000";
    tr.insertCell().append(sw, " " + causeLabel(cause));
    tr.insertCell().textContent = duration(v);
    tr.insertCell().textContent = ((100 * v) / total).toFixed(1) + "%";
  }
}
