// The zoomable, pannable timeline: a canvas with one row per request (the one looked at,
// then those in its way) and one lane per thread of its critical path, grouped by host. A
// thread's lane shows the path's pieces coloured by cause on top and the thread's own
// states in a strip below; arrows join rows (wake-ups, packets, forks, blocked by request).
// It draws what the API answered for a window at the canvas' resolution (the answer is
// already merged below a pixel) and keeps a record of what it drew (`drawn`) for tests.
import { ARROW_COLORS, CAUSE_COLORS, STATE_COLORS, causeLabel } from "./colors.js";
import { duration, offset, shortId } from "./format.js";

const LABEL_WIDTH = 240;
const RIGHT_MARGIN = 12;
const AXIS_HEIGHT = 26;
const REQUEST_ROW = 20;
const THREAD_ROW = 28;
const MIN_SPAN_NS = 200;

function niceStep(raw) {
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

export class Timeline {
  constructor(container, { onWindowChange, onSelectRequest }) {
    this.container = container;
    this.onWindowChange = onWindowChange;
    this.onSelectRequest = onSelectRequest;
    this.canvas = document.createElement("canvas");
    this.canvas.id = "timeline-canvas";
    this.tooltip = document.createElement("div");
    this.tooltip.className = "tooltip";
    container.append(this.canvas, this.tooltip);
    this.view = null;    // the request answer (rows, pieces, arrows)
    this.lanes = null;   // the threads answer (states by worker)
    this.begin = 0;      // the visible window, ns from the origin
    this.end = 1;
    this.drawn = { window: null, pieces: [], arrows: [], lanes: 0 };
    this.hits = [];
    this.installHandlers();
    new ResizeObserver(() => this.draw()).observe(container);
  }

  // Plot width in CSS pixels: the resolution asked of the API.
  get pixels() {
    return Math.max(50, Math.floor(this.container.clientWidth - LABEL_WIDTH - RIGHT_MARGIN));
  }

  setData(view, lanes) {
    this.view = view;
    this.lanes = lanes;
    this.layoutRows();
    this.draw();
  }

  setWindow(begin, end, notify = true) {
    if (end - begin < MIN_SPAN_NS) {
      const mid = (begin + end) / 2;
      begin = mid - MIN_SPAN_NS / 2;
      end = mid + MIN_SPAN_NS / 2;
    }
    this.begin = Math.round(begin);
    this.end = Math.round(end);
    this.draw();
    if (notify) this.onWindowChange(this.begin, this.end);
  }

  zoom(factor, atX) {
    const at = atX === undefined ? (this.begin + this.end) / 2 : this.timeAt(atX);
    this.setWindow(at - (at - this.begin) * factor, at + (this.end - at) * factor);
  }

  layoutRows() {
    this.rows = [];
    this.rowByKey = new Map();
    if (!this.view) return;
    const hosts = new Set(this.view.rows.filter((r) => r.host).map((r) => r.host));
    let y = AXIS_HEIGHT;
    for (const r of this.view.rows) {
      const h = r.kind === "thread" ? THREAD_ROW : REQUEST_ROW;
      let label;
      if (r.kind === "request") label = "request " + shortId(r.id) + " " + r.label;
      else if (r.kind === "blocked_by") label = "in the way: " + shortId(r.id) + " " + r.label;
      else label = (hosts.size > 1 && r.host ? r.host + " · " : "") + r.label;
      const row = { ...r, y, h, text: label };
      this.rows.push(row);
      this.rowByKey.set(r.key, row);
      y += h;
    }
    this.height = y + 8;
  }

  x(t) { return LABEL_WIDTH + ((t - this.begin) / (this.end - this.begin)) * this.pixels; }
  timeAt(x) { return this.begin + ((x - LABEL_WIDTH) / this.pixels) * (this.end - this.begin); }

  draw() {
    const width = this.container.clientWidth;
    const height = this.height || 120;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.floor(width * dpr);
    this.canvas.height = Math.floor(height * dpr);
    this.canvas.style.width = width + "px";
    this.canvas.style.height = height + "px";
    const c = this.canvas.getContext("2d");
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, width, height);
    c.font = "11px system-ui, sans-serif";
    this.hits = [];
    const drawn = { window: { begin: this.begin, end: this.end, pixels: this.pixels }, pieces: [], arrows: [], lanes: 0 };
    this.drawAxis(c, width);
    if (!this.view) { this.drawn = drawn; return; }
    const left = LABEL_WIDTH, right = LABEL_WIDTH + this.pixels;
    const clipX = (x) => Math.max(left, Math.min(right, x));
    // Row backgrounds and labels.
    for (const [i, r] of this.rows.entries()) {
      c.fillStyle = i % 2 ? "#fafafa" : "#ffffff";
      c.fillRect(0, r.y, width, r.h);
      c.fillStyle = r.kind === "thread" ? "#333" : "#000";
      c.font = r.kind === "thread" ? "11px system-ui, sans-serif" : "bold 11px system-ui, sans-serif";
      let text = r.text;
      while (text.length > 4 && c.measureText(text).width > LABEL_WIDTH - 14) text = text.slice(0, -2) + "…";
      c.fillText(text, 6, r.y + 14);
      if (r.kind !== "thread") {
        // The request's span as a bar.
        const x0 = clipX(this.x(r.start)), x1 = clipX(this.x(r.end));
        if (x1 > x0) {
          c.fillStyle = r.kind === "request" ? "#37474f" : "#b0bec5";
          c.fillRect(x0, r.y + 4, Math.max(1, x1 - x0), r.h - 8);
          this.hits.push({ x0, x1, y0: r.y, y1: r.y + r.h, text: (r.kind === "request" ? "request " : "in the way: ") + r.id + "\n" + r.label + "\n" + duration(r.end - r.start), request: r.kind === "blocked_by" ? r.id : null });
        }
      }
    }
    // Thread states under the path's pieces.
    if (this.lanes) {
      for (const lane of this.lanes.lanes) {
        const r = this.rowByKey.get("t:" + lane.worker);
        if (!r) continue;
        drawn.lanes++;
        for (const s of lane.states) {
          if (s.end < this.begin || s.start > this.end) continue;
          const x0 = clipX(this.x(s.start)), x1 = clipX(this.x(s.end));
          c.fillStyle = STATE_COLORS[s.state] || "#eee";
          c.fillRect(x0, r.y + 19, Math.max(1, x1 - x0), 6);
          this.hits.push({ x0, x1, y0: r.y + 18, y1: r.y + 26, text: r.label + ": " + s.state.replace(/_/g, " ") + (s.mixed ? " (mixed below a pixel)" : "") + "\n" + duration(s.end - s.start) });
        }
      }
    }
    // The critical path's pieces.
    for (const p of this.view.pieces) {
      const r = this.rowByKey.get(p.row);
      if (!r || p.end < this.begin || p.start > this.end) continue;
      const x0 = clipX(this.x(p.start)), x1 = clipX(this.x(p.end));
      c.fillStyle = CAUSE_COLORS[p.cause] || "#000";
      c.fillRect(x0, r.y + 3, Math.max(1, x1 - x0), 14);
      drawn.pieces.push({ row: p.row, start: p.start, end: p.end, cause: p.cause });
      this.hits.push({ x0, x1: Math.max(x0 + 1, x1), y0: r.y + 3, y1: r.y + 17, text: causeLabel(p.cause) + " (" + p.state.replace(/_/g, " ") + ")" + (p.request ? " — request " + shortId(p.request) : "") + "\n" + r.label + "\n" + duration(p.end - p.start) + (p.merged ? " (" + p.merged + " pieces below a pixel)" : ""), request: p.request || null });
    }
    // Arrows, over everything.
    for (const a of this.view.arrows) {
      const from = this.rowByKey.get(a.from.row), to = this.rowByKey.get(a.to.row);
      if (!from || !to) continue;
      if (Math.max(a.from.t, a.to.t) < this.begin || Math.min(a.from.t, a.to.t) > this.end) continue;
      const x0 = this.x(a.from.t), x1 = this.x(a.to.t);
      const y0 = from.y + (from.kind === "thread" ? 10 : from.h / 2);
      const y1 = to.y + (to.kind === "thread" ? 10 : to.h / 2);
      this.drawArrow(c, clipX(x0), y0, clipX(x1), y1, ARROW_COLORS[a.kind] || "#000", a.kind === "blocked_by_request");
      drawn.arrows.push({ kind: a.kind, from: { row: a.from.row, t: a.from.t }, to: { row: a.to.row, t: a.to.t } });
    }
    this.drawn = drawn;
    this.canvas.dataset.pieces = String(drawn.pieces.length);
    this.canvas.dataset.arrows = String(drawn.arrows.length);
    this.canvas.dataset.begin = String(this.begin);
    this.canvas.dataset.end = String(this.end);
  }

  drawAxis(c, width) {
    c.fillStyle = "#f5f5f5";
    c.fillRect(0, 0, width, AXIS_HEIGHT);
    const span = this.end - this.begin;
    const step = niceStep(span / Math.max(1, this.pixels / 110));
    c.strokeStyle = "#ddd";
    c.fillStyle = "#555";
    c.font = "10px system-ui, sans-serif";
    for (let t = Math.ceil(this.begin / step) * step; t <= this.end; t += step) {
      const x = this.x(t);
      c.beginPath();
      c.moveTo(x + 0.5, AXIS_HEIGHT - 6);
      c.lineTo(x + 0.5, (this.height || 120));
      c.stroke();
      c.fillText(offset(t, span), x + 2, 12);
    }
    c.fillStyle = "#333";
    c.fillText("window " + duration(span) + " — wheel: zoom, drag: pan", 6, 12);
  }

  drawArrow(c, x0, y0, x1, y1, color, dashed) {
    c.save();
    c.strokeStyle = color;
    c.fillStyle = color;
    c.lineWidth = 1.2;
    if (dashed) c.setLineDash([4, 3]);
    c.beginPath();
    c.moveTo(x0, y0);
    c.lineTo(x1, y1);
    c.stroke();
    c.setLineDash([]);
    const angle = Math.atan2(y1 - y0, x1 - x0 || 0.0001);
    c.beginPath();
    c.moveTo(x1, y1);
    c.lineTo(x1 - 7 * Math.cos(angle - 0.4), y1 - 7 * Math.sin(angle - 0.4));
    c.lineTo(x1 - 7 * Math.cos(angle + 0.4), y1 - 7 * Math.sin(angle + 0.4));
    c.closePath();
    c.fill();
    c.restore();
  }

  installHandlers() {
    const cv = this.canvas;
    cv.addEventListener("wheel", (e) => {
      e.preventDefault();
      const rect = cv.getBoundingClientRect();
      const x = e.clientX - rect.left;
      if (e.shiftKey) {
        const dt = (e.deltaY / this.pixels) * (this.end - this.begin);
        this.setWindow(this.begin + dt, this.end + dt);
      } else {
        this.zoom(Math.exp(e.deltaY * 0.0015), Math.max(LABEL_WIDTH, x));
      }
    }, { passive: false });
    let drag = null;
    cv.addEventListener("mousedown", (e) => {
      drag = { x: e.clientX, begin: this.begin, end: this.end, moved: false };
    });
    window.addEventListener("mousemove", (e) => {
      if (drag) {
        const dx = e.clientX - drag.x;
        if (Math.abs(dx) > 2) drag.moved = true;
        if (drag.moved) {
          const dt = (dx / this.pixels) * (drag.end - drag.begin);
          this.setWindow(drag.begin - dt, drag.end - dt);
        }
        return;
      }
      this.hover(e);
    });
    window.addEventListener("mouseup", (e) => {
      if (drag && !drag.moved) this.click(e);
      drag = null;
    });
    cv.addEventListener("dblclick", (e) => {
      const rect = cv.getBoundingClientRect();
      this.zoom(0.5, Math.max(LABEL_WIDTH, e.clientX - rect.left));
    });
    cv.addEventListener("mouseleave", () => { this.tooltip.style.display = "none"; });
  }

  hitAt(e) {
    const rect = this.canvas.getBoundingClientRect();
    const x = e.clientX - rect.left, y = e.clientY - rect.top;
    if (x < 0 || y < 0 || x > rect.width || y > rect.height) return null;
    for (let i = this.hits.length - 1; i >= 0; i--) {
      const h = this.hits[i];
      if (x >= h.x0 - 1 && x <= h.x1 + 1 && y >= h.y0 && y <= h.y1) return { h, x, y };
    }
    return null;
  }

  hover(e) {
    const found = this.hitAt(e);
    if (!found) { this.tooltip.style.display = "none"; return; }
    this.tooltip.textContent = found.h.text;
    this.tooltip.style.display = "block";
    this.tooltip.style.left = Math.min(found.x + 12, this.container.clientWidth - 260) + "px";
    this.tooltip.style.top = found.y + 14 + "px";
  }

  click(e) {
    const found = this.hitAt(e);
    if (found && found.h.request) this.onSelectRequest(found.h.request);
  }
}
