'use strict';
// The load: requests to the frontend as a browser sends them, without traceparent (this
// script loads no OpenTelemetry). Counts are fixed and the order comes from --seed, so two
// runs with the same options send the same requests in the same order.
//
//   node load.js --url http://127.0.0.1:PORT [--rounds N] [--bursts N]
//                [--burst-routes lock,sleep] [--burst-size 4] [--seed N]
//
// Phase 1: --rounds rounds, each one request per route, one at a time, routes shuffled.
// Phase 2: for each of --burst-routes, --bursts bursts of --burst-size concurrent requests.
// Prints a summary per route and exits 1 when any request failed.
const http = require('node:http');
const { parseArgs } = require('node:util');

process.title = 'otel-load';
const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    rounds: { type: 'string', default: '10' },
    bursts: { type: 'string', default: '5' },
    'burst-routes': { type: 'string', default: 'lock,sleep' },
    'burst-size': { type: 'string', default: '4' },
    seed: { type: 'string', default: '1' },
  },
});
if (!args.url) {
  console.error('usage: node load.js --url URL [--rounds N] [--bursts N] [--burst-routes a,b] [--burst-size N] [--seed N]');
  process.exit(2);
}
const ROUTES = ['disk', 'cpu', 'sleep', 'lock'];
const burstSize = Number(args['burst-size']);
const burstRoutes = args['burst-routes'] ? args['burst-routes'].split(',') : [];
for (const r of burstRoutes) {
  if (!ROUTES.includes(r)) {
    console.error(`load: unknown route ${r} (routes: ${ROUTES.join(', ')})`);
    process.exit(2);
  }
}

// A small linear congruential generator: the same seed gives the same order everywhere.
let state = Number(args.seed) >>> 0 || 1;
function nextRandom() {
  state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
  return state / 2 ** 32;
}
function shuffled(list) {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(nextRandom() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// Like a browser: kept-alive connections, up to burstSize of them at once.
const agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(burstSize, 1) });
const stats = new Map();
function record(key, ok, ms) {
  const s = stats.get(key) || { count: 0, errors: 0, totalMs: 0, maxMs: 0 };
  s.count++;
  if (!ok) s.errors++;
  s.totalMs += ms;
  s.maxMs = Math.max(s.maxMs, ms);
  stats.set(key, s);
}

function request(route, phase) {
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const finish = (ok, why) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      record(`${phase} /api/${route}`, ok, ms);
      if (!ok) console.error(`load: ${phase} /api/${route}: ${why}`);
      resolve();
    };
    const req = http.get(`${args.url}/api/${route}`, { agent }, (res) => {
      res.resume();
      res.on('end', () => finish(res.statusCode === 200, `status ${res.statusCode}`));
    });
    req.on('error', (err) => finish(false, err.message));
  });
}

async function main() {
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const route of shuffled(ROUTES)) await request(route, 'sequential');
  }
  for (const route of burstRoutes) {
    for (let b = 0; b < Number(args.bursts); b++) {
      await Promise.all(Array.from({ length: burstSize }, () => request(route, 'burst')));
    }
  }
  agent.destroy();
  let errors = 0;
  let total = 0;
  for (const [key, s] of [...stats].sort()) {
    total += s.count;
    errors += s.errors;
    console.log(
      `${key.padEnd(24)} ${String(s.count).padStart(4)} requests  ${String(s.errors).padStart(3)} errors  ` +
        `mean ${(s.totalMs / s.count).toFixed(1)} ms  max ${s.maxMs.toFixed(1)} ms`,
    );
  }
  console.log(`total ${total} requests, ${errors} errors`);
  process.exit(errors > 0 ? 1 : 0);
}
main();
