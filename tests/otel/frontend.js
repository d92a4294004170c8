'use strict';
// The frontend: GET /api/{disk,cpu,sleep,lock} calls the backend's route of the same name
// over HTTP (the http instrumentation sends traceparent), then does a small fixed CPU step
// (STEP_MS) of its own before answering. With concurrent requests on this one event loop,
// that step belongs to the request whose backend answer it handles, not to another one.
//
//   node --require ./otel.js frontend.js --port-file FILE --backend http://127.0.0.1:PORT
const http = require('node:http');
const { parseArgs } = require('node:util');
const { spinFor, listenOnLoopback } = require('./work');

process.title = 'otel-frontend';
const { values: args } = parseArgs({
  options: { 'port-file': { type: 'string' }, backend: { type: 'string' } },
});
if (!args['port-file'] || !args.backend) {
  console.error('usage: node frontend.js --port-file FILE --backend URL');
  process.exit(2);
}
const STEP_MS = process.env.STEP_MS ? Number(process.env.STEP_MS) : 1.5;
const ROUTES = new Set(['disk', 'cpu', 'sleep', 'lock']);
// Kept-alive connections to the backend, as Node 20's default agent has them and Node 18's
// does not: the same on both, and several requests in turn on one connection.
const backendAgent = new http.Agent({ keepAlive: true });

function callBackend(route) {
  return new Promise((resolve, reject) => {
    const req = http.get(`${args.backend}/${route}`, { agent: backendAgent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode === 200) resolve(JSON.parse(body));
        else reject(new Error(`backend /${route}: ${res.statusCode} ${body}`));
      });
    });
    req.on('error', reject);
  });
}

const server = http.createServer((req, res) => {
  const match = /^\/api\/([a-z]+)$/.exec(new URL(req.url, 'http://frontend').pathname);
  if (!match || !ROUTES.has(match[1])) {
    res.writeHead(404).end();
    return;
  }
  callBackend(match[1]).then(
    (backend) => {
      spinFor(STEP_MS);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ route: match[1], backend }));
    },
    (err) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(err));
    },
  );
});
listenOnLoopback(server, args['port-file']);
