'use strict';
// OpenTelemetry set up the way a Node.js user does it, with nothing that knows about
// Causeway. Loaded before the service: `node --require ./otel.js backend.js`.
//
// Configured by the standard variables: OTEL_SERVICE_NAME (service.name) and
// OTEL_EXPORTER_OTLP_ENDPOINT (the exporter posts OTLP/HTTP JSON to ENDPOINT/v1/traces).
// NodeSDK's default resource detectors (env, process, host) add process.pid and host.name.
const { NodeSDK } = require('@opentelemetry/sdk-node');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');

const sdk = new NodeSDK({
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  instrumentations: [new HttpInstrumentation()],
});
sdk.start();

// The batch processor holds spans for up to 5 s: flush them before exiting.
process.on('SIGTERM', () => {
  sdk
    .shutdown()
    .catch((err) => console.error('OpenTelemetry shutdown failed:', err))
    .finally(() => process.exit(0));
});
