// A scripted TSP client for scripts/bench_serve.sh: what a time-graph viewer asks while an
// engineer opens a trace, zooms and pans. Plain HTTP (Node's fetch), one JSON line out.
//   node bench/serve_client.js BASE_URL [ZOOMS (100)] [CLIENTS (20)]
'use strict';
const [base, zoomsArg, clientsArg] = process.argv.slice(2);
const api = base + '/tsp/api';
const zooms = Number(zoomsArg || 100), clients = Number(clientsArg || 20);
const ROWS = 100, WIDTH = 1000;  // visible thread rows, pixels

async function post(path, parameters) {
  const t0 = performance.now();
  const r = await fetch(api + path, { method: 'POST', headers: { 'Content-Type': 'application/json' },
                                      body: JSON.stringify({ parameters }) });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${text.slice(0, 200)}`);
  const timing = /dur=([0-9.]+)/.exec(r.headers.get('server-timing') || '');
  return { ms: performance.now() - t0, server_ms: timing ? Number(timing[1]) : NaN,
           body: JSON.parse(text), bytes: text.length };
}

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))];
}

// Numbers as JSON numbers: timestamps are below 2^63 but above 2^53, so they are sent as
// the strings the server also accepts, never rounded by a double.
function range(start, end, n) { return { start: start.toString(), end: end.toString(), nbTimes: n }; }

async function view(exp, rows, start, end) {
  const out = `/experiments/${exp}/outputs`;
  const [states, arrows] = await Promise.all([
    post(`${out}/timeGraph/causeway.threads/states`, { requested_timerange: range(start, end, WIDTH), requested_items: rows }),
    post(`${out}/timeGraph/causeway.threads/arrows`, { requested_timerange: range(start, end, WIDTH) })]);
  return { ms: Math.max(states.ms, arrows.ms), server_ms: Math.max(states.server_ms, arrows.server_ms), states: states.body.model.rows.reduce((n, r) => n + r.states.length, 0),
           bytes: states.bytes + arrows.bytes, states_server_ms: states.server_ms, arrows_server_ms: arrows.server_ms,
           arrows: arrows.body.model.length, span_ns: (end - start).toString() };
}

async function main() {
  const result = {};
  const exps = await (await fetch(api + '/experiments')).json();
  const exp = exps[0].UUID;
  // Times as BigInt from the raw text (JSON.parse would round them).
  const raw = await (await fetch(api + '/experiments/' + exp)).text();
  const s0 = BigInt(/"start":(\d+)/.exec(raw)[1]), e0 = BigInt(/"end":(\d+)/.exec(raw)[1]);

  // First view: the thread tree, the first ROWS threads' states over the whole trace, the
  // arrows, and the CPU usage.
  const t0 = performance.now();
  const tree = await post(`/experiments/${exp}/outputs/timeGraph/causeway.threads/tree`, {});
  const threads = tree.body.model.entries.filter(e => e.hasData).map(e => e.id);
  const rows = threads.slice(0, ROWS);
  const xyTree = await post(`/experiments/${exp}/outputs/XY/causeway.cpu_usage/tree`, {});
  const cpus = xyTree.body.model.entries.filter(e => e.isDefault).map(e => e.id);
  const [first] = await Promise.all([view(exp, rows, s0, e0),
    post(`/experiments/${exp}/outputs/XY/causeway.cpu_usage/xy`, { requested_timerange: range(s0, e0, WIDTH), requested_items: cpus })]);
  result.first_view_ms = performance.now() - t0;
  result.threads = threads.length;
  result.first_view_states = first.states;

  // Zoom and pan: each step zooms in or out by 2x or pans by half a view, at random.
  let rnd = 12345;
  const random = () => ((rnd = (rnd * 1103515245 + 12345) % 2147483648) / 2147483648);
  async function session(n) {
    const times = [], server = [];
    let slowest = null;
    let s = s0, e = e0;
    for (let i = 0; i < n; i++) {
      const span = e - s, r = random();
      if (r < 0.4 && span > 2000n) { const c = s + span / 2n; s = c - span / 4n; e = c + span / 4n; }
      else if (r < 0.6) { s = s - span / 2n; e = e + span / 2n; }
      else { const d = (r < 0.8 ? 1n : -1n) * span / 2n; s += d; e += d; }
      if (s < s0) { e += s0 - s; s = s0; }
      if (e > e0) { s -= e - e0; e = e0; if (s < s0) s = s0; }
      const v = await view(exp, rows, s, e);
      times.push(v.ms);
      server.push(v.server_ms);
      if (!slowest || v.server_ms > slowest.server_ms)
        slowest = { server_ms: v.server_ms, states_server_ms: v.states_server_ms, arrows_server_ms: v.arrows_server_ms,
                    states: v.states, arrows: v.arrows, bytes: v.bytes, span_ns: v.span_ns };
    }
    return { times, server, slowest };
  }
  const single = await session(zooms);
  result.zoom_pan = { views: single.times.length, server_p50_ms: pct(single.server, 0.5), server_p99_ms: pct(single.server, 0.99),
                      round_trip_p50_ms: pct(single.times, 0.5), round_trip_p99_ms: pct(single.times, 0.99),
                      slowest: single.slowest };

  // Concurrent clients, each its own zoom/pan session.
  let errors = 0;
  const tc = performance.now();
  const all = await Promise.all(Array.from({ length: clients }, () =>
    session(Math.max(10, zooms / 5)).catch(err => { errors++; console.error(String(err)); return { times: [], server: [] }; })));
  const flat = all.flatMap(a => a.times), flatServer = all.flatMap(a => a.server);
  result.concurrent = { clients, views: flat.length, errors, server_p50_ms: pct(flatServer, 0.5), server_p99_ms: pct(flatServer, 0.99),
                        round_trip_p50_ms: pct(flat, 0.5), round_trip_p99_ms: pct(flat, 0.99), wall_ms: performance.now() - tc };
  const h = await fetch(api + '/health');
  result.health_after = h.status;
  console.log(JSON.stringify(result));
}
main().catch(e => { console.error(e); process.exit(1); });
