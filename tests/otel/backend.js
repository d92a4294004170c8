'use strict';
// The backend: one route per kind of wait that Causeway should name.
//
//   GET /disk   writes DISK_KB KB and fsyncs, DISK_FSYNCS times    -> disk
//   GET /cpu    a CPU loop of CPU_MS ms                             -> running
//   GET /sleep  a timer of SLEEP_MS ms                              -> timer
//   GET /lock   a synchronous CPU-bound critical section of LOCK_MS -> concurrent requests
//               queue behind it on the event loop (blocked by request)
//
//   node --require ./otel.js backend.js --port-file FILE --data-dir DIR
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { spinFor, listenOnLoopback } = require('./work');

process.title = 'otel-backend';
const { values: args } = parseArgs({
  options: { 'port-file': { type: 'string' }, 'data-dir': { type: 'string' } },
});
if (!args['port-file'] || !args['data-dir']) {
  console.error('usage: node backend.js --port-file FILE --data-dir DIR');
  process.exit(2);
}

function numberFromEnv(name, fallback) {
  const v = process.env[name];
  return v === undefined || v === '' ? fallback : Number(v);
}
const DISK_KB = numberFromEnv('DISK_KB', 8);
const DISK_FSYNCS = numberFromEnv('DISK_FSYNCS', 3);
const CPU_MS = numberFromEnv('CPU_MS', 20);
const SLEEP_MS = numberFromEnv('SLEEP_MS', 20);
const LOCK_MS = numberFromEnv('LOCK_MS', 10);

let diskFiles = 0;
// fs.promises as a Node service writes: the writes and fsyncs run on libuv's thread pool
// while the event loop waits for them.
async function writeAndSync() {
  const file = path.join(args['data-dir'], `disk-${process.pid}-${diskFiles++}.dat`);
  const block = Buffer.alloc(DISK_KB * 1024, 0x61);
  const handle = await fs.promises.open(file, 'w');
  try {
    for (let i = 0; i < DISK_FSYNCS; i++) {
      await handle.write(block);
      await handle.sync();
    }
  } finally {
    await handle.close();
    await fs.promises.unlink(file);
  }
  return { kb: DISK_KB * DISK_FSYNCS, fsyncs: DISK_FSYNCS };
}

const routes = {
  '/disk': writeAndSync,
  '/cpu': async () => ({ spun_ms: CPU_MS, x: spinFor(CPU_MS) }),
  '/sleep': () => new Promise((resolve) => setTimeout(() => resolve({ slept_ms: SLEEP_MS }), SLEEP_MS)),
  '/lock': async () => ({ held_ms: LOCK_MS, x: spinFor(LOCK_MS) }),
};

const server = http.createServer((req, res) => {
  const route = routes[new URL(req.url, 'http://backend').pathname];
  if (!route) {
    res.writeHead(404).end();
    return;
  }
  route().then(
    (body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    },
    (err) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    },
  );
});
listenOnLoopback(server, args['port-file']);
