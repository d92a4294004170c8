'use strict';
// A stand-in for the OpenTelemetry Collector with an OTLP/HTTP receiver and the file
// exporter: every body posted to /v1/traces is appended to a file as one line of OTLP JSON.
// Not instrumented (it is started without otel.js), so it adds no spans of its own.
//
//   node collector.js --out FILE --port-file FILE
//
// Listens on 127.0.0.1 on a port the kernel picks and writes that port to --port-file once
// it listens. Exits on SIGTERM after the requests in flight are written.
const fs = require('node:fs');
const http = require('node:http');
const zlib = require('node:zlib');
const { parseArgs } = require('node:util');

process.title = 'otel-collector';
const { values: args } = parseArgs({
  options: { out: { type: 'string' }, 'port-file': { type: 'string' } },
});
if (!args.out || !args['port-file']) {
  console.error('usage: node collector.js --out FILE --port-file FILE');
  process.exit(2);
}

const out = fs.openSync(args.out, 'a');
let documents = 0;
let rejected = 0;

function answer(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/v1/traces') {
    rejected++;
    return answer(res, 404, { message: `only POST /v1/traces, not ${req.method} ${req.url}` });
  }
  if (!String(req.headers['content-type'] || '').startsWith('application/json')) {
    rejected++;
    return answer(res, 415, { message: 'only OTLP/HTTP JSON (http/json)' });
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body = Buffer.concat(chunks);
    try {
      if (req.headers['content-encoding'] === 'gzip') body = zlib.gunzipSync(body);
      // Parsed and written again so that a line is exactly one document, whatever
      // whitespace the sender used.
      const line = JSON.stringify(JSON.parse(body.toString('utf8'))) + '\n';
      fs.writeSync(out, line);
      documents++;
      answer(res, 200, {});
    } catch (err) {
      rejected++;
      answer(res, 400, { message: `not OTLP JSON: ${err.message}` });
    }
  });
});

server.listen(0, '127.0.0.1', () => {
  fs.writeFileSync(args['port-file'], `${server.address().port}\n`);
});

process.on('SIGTERM', () => {
  server.close(() => {
    fs.fsyncSync(out);
    fs.closeSync(out);
    console.error(`collector: ${documents} documents written to ${args.out}, ${rejected} rejected`);
    process.exit(rejected > 0 ? 1 : 0);
  });
  server.closeIdleConnections();
});
