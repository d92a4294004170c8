'use strict';
// Plain work the services do on their event loop: no OpenTelemetry, no Causeway.

// Runs the CPU for `ms` milliseconds without yielding to the event loop.
function spinFor(ms) {
  const end = process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
  let x = 0;
  while (process.hrtime.bigint() < end) x = (x * 31 + 7) % 1000003;
  return x;
}

// The port a service listens on is chosen by the kernel and written to a file, so that the
// runner learns it without racing for a free port.
function listenOnLoopback(server, portFile) {
  const fs = require('node:fs');
  server.listen(0, '127.0.0.1', () => {
    fs.writeFileSync(portFile, `${server.address().port}\n`);
  });
}

module.exports = { spinFor, listenOnLoopback };
