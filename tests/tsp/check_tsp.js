// Drives `causeway serve` with the real TSP client (tsp-typescript-client, as the Theia and
// VS Code Trace Viewer extensions use it) and prints what it got as one JSON object, which
// tests/serve_tsp_test.cc checks against the CLI's own answers.
//   node check_tsp.js http://127.0.0.1:PORT/tsp/api TRACE_DIR
'use strict';
const { HttpTspClient } = require('tsp-typescript-client/lib/protocol/http-tsp-client');
const { Query } = require('tsp-typescript-client/lib/models/query/query');
const { QueryHelper } = require('tsp-typescript-client/lib/models/query/query-helper');

const [base, tracePath] = process.argv.slice(2);
const client = new HttpTspClient(base);
const out = { errors: [] };

function model(what, response) {
  if (!response.isOk()) {
    out.errors.push(`${what}: ${response.getStatusCode()} ${response.getStatusMessage()}`);
    return undefined;
  }
  const m = response.getModel();
  // Output endpoints wrap their model in a GenericResponse.
  return m && m.status !== undefined && m.model !== undefined ? m.model : m;
}

async function main() {
  out.health = model('health', await client.checkHealth()).status;

  const trace = model('openTrace', await client.openTrace(new Query({ uri: tracePath, name: 'tsp-test' })));
  const exp = model('createExperiment',
    await client.createExperiment(new Query({ name: 'tsp-test', traces: [trace.UUID] })));
  out.experiment = { nbEvents: Number(exp.nbEvents), start: exp.start.toString(), end: exp.end.toString(),
                     traces: exp.traces.length };
  const outputs = model('outputs', await client.experimentOutputs(exp.UUID));
  out.outputs = outputs.map(o => `${o.id}:${o.type}`);
  const start = BigInt(exp.start), end = BigInt(exp.end);

  // Threads: the tree, then states of every thread at 200 samples, then arrows.
  const tree = model('threads tree', await client.fetchTimeGraphTree(exp.UUID, 'causeway.threads',
    QueryHelper.timeRangeQuery(start, end)));
  const threads = tree.entries.filter(e => e.hasData);
  out.threads = { entries: tree.entries.length, threads: threads.length,
                  headers: tree.headers.map(h => h.name) };
  const nbTimes = 200;
  const states = model('threads states', await client.fetchTimeGraphStates(exp.UUID, 'causeway.threads',
    QueryHelper.selectionTimeRangeQuery(start, end, nbTimes, threads.map(t => Number(t.id)))));
  let maxStates = 0, total = 0, merged = 0, running = 0, ordered = true;
  for (const row of states.rows) {
    maxStates = Math.max(maxStates, row.states.length);
    total += row.states.length;
    let last = -1n;
    for (const s of row.states) {
      const key = s.style && s.style.parentKey;
      if (key.endsWith(',MULTIPLE')) merged++;
      if (key === 'RUNNING') running++;
      if (BigInt(s.start) < last || BigInt(s.end) < BigInt(s.start)) ordered = false;
      last = BigInt(s.end);
    }
  }
  out.threads.rows = states.rows.length;
  out.threads.nbTimes = nbTimes;
  out.threads.maxStatesPerRow = maxStates;
  out.threads.states = total;
  out.threads.merged = merged;
  out.threads.running = running;
  out.threads.ordered = ordered;
  // Zoomed in on the middle tenth: more states per row than zoomed out, never more than the samples allow.
  const span = end - start;
  const zs = start + span * 45n / 100n, ze = start + span * 55n / 100n;
  const zoom = model('threads zoom', await client.fetchTimeGraphStates(exp.UUID, 'causeway.threads',
    QueryHelper.selectionTimeRangeQuery(zs, ze, nbTimes, threads.map(t => Number(t.id)))));
  out.threads.zoomMaxStatesPerRow = Math.max(...zoom.rows.map(r => r.states.length));
  out.threads.zoomStatesInRange = zoom.rows.every(r => r.states.every(s => BigInt(s.end) >= zs && BigInt(s.start) <= ze));
  const arrows = model('threads arrows', await client.fetchTimeGraphArrows(exp.UUID, 'causeway.threads',
    QueryHelper.timeRangeQuery(start, end, nbTimes)));
  const ids = new Set(threads.map(t => Number(t.id)));
  out.threads.arrows = arrows.length;
  out.threads.arrowKinds = [...new Set(arrows.map(a => a.style.parentKey))].sort();
  out.threads.arrowsBetweenKnownRows = arrows.every(a => ids.has(Number(a.sourceId)) && ids.has(Number(a.targetId)));

  // The requests data tree: slowest first.
  const reqs = model('requests tree', await client.fetchDataTree(exp.UUID, 'causeway.requests',
    new Query({})));
  const roots = reqs.entries.filter(e => Number(e.parentId) === -1);
  out.requests = { count: roots.length, headers: reqs.headers.map(h => h.name),
                   slowestTrace: roots[0].labels[0], slowestLatency: roots[0].labels[2],
                   slowestCause: roots[0].labels[3],
                   sorted: roots.every((r, i) => i === 0 || Number(roots[i - 1].labels[2]) >= Number(r.labels[2])) };

  // The slowest request's critical path.
  const cp = model('critpath tree', await client.fetchTimeGraphTree(exp.UUID, 'causeway.critical_path',
    new Query({ request: out.requests.slowestTrace })));
  const cpRoot = cp.entries.find(e => Number(e.parentId) === -1);
  const rs = BigInt(cpRoot.start), re = BigInt(cpRoot.end);
  const cpStates = model('critpath states', await client.fetchTimeGraphStates(exp.UUID, 'causeway.critical_path',
    QueryHelper.selectionTimeRangeQuery(rs, re, 1000, cp.entries.map(e => Number(e.id)))));
  const cpArrows = model('critpath arrows', await client.fetchTimeGraphArrows(exp.UUID, 'causeway.critical_path',
    QueryHelper.timeRangeQuery(rs, re, 1000, { request: out.requests.slowestTrace })));
  const requestRow = cpStates.rows.find(r => BigInt(r.entryId) === BigInt(cpRoot.id));
  const byCause = {};
  for (const s of requestRow.states) {
    const k = s.style.parentKey;
    byCause[k] = (byCause[k] || 0n) + (BigInt(s.end) - BigInt(s.start));
  }
  out.critpath = { label: cpRoot.labels[0], rows: cp.entries.length,
                   latency: (re - rs).toString(), arrows: cpArrows.length,
                   blockedArrows: cpArrows.filter(a => a.style.parentKey === 'BLOCKED_BY_REQUEST').length,
                   requestRowCovered: requestRow.states.reduce((t, s) => t + (BigInt(s.end) - BigInt(s.start)), 0n).toString(),
                   byCause: Object.fromEntries(Object.entries(byCause).map(([k, v]) => [k, v.toString()])) };

  // CPU usage of every CPU at 100 samples.
  const xyTree = model('xy tree', await client.fetchXYTree(exp.UUID, 'causeway.cpu_usage', new Query({})));
  const cpus = xyTree.entries.filter(e => e.labels[0].startsWith('CPU '));
  const xy = model('xy', await client.fetchXY(exp.UUID, 'causeway.cpu_usage',
    QueryHelper.selectionTimeRangeQuery(start, end, 100, cpus.map(c => Number(c.id)))));
  const ys = xy.series.flatMap(s => s.yValues);
  out.xy = { cpus: cpus.length, series: xy.series.length, points: xy.series.map(s => s.yValues.length),
             xPoints: xy.series.map(s => s.xValues.length),
             min: Math.min(...ys), max: Math.max(...ys), mean: ys.reduce((a, b) => a + b, 0) / ys.length };

  // Events: columns, then two pages.
  const columns = model('columns', await client.fetchTableColumns(exp.UUID, 'causeway.events', new Query({})));
  const page1 = model('lines', await client.fetchTableLines(exp.UUID, 'causeway.events',
    QueryHelper.tableQuery(columns.map(c => Number(c.id)), 0, 50)));
  const page2 = model('lines 2', await client.fetchTableLines(exp.UUID, 'causeway.events',
    QueryHelper.tableQuery(columns.map(c => Number(c.id)), 50, 50)));
  const lines = [...page1.lines, ...page2.lines];
  out.table = { columns: columns.map(c => c.name), size: Number(page1.size), lines: lines.length,
                indexes: lines.every((l, i) => Number(l.index) === i),
                timesOrdered: lines.every((l, i) => i === 0 || BigInt(lines[i - 1].cells[0].content) <= BigInt(l.cells[0].content)),
                firstName: lines[0].cells[3].content };
}

main().catch(e => out.errors.push(String(e && e.stack || e))).finally(() => {
  console.log(JSON.stringify(out));
});
