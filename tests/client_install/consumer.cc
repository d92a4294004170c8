// An application of causeway-client as an outsider builds it: against the installed headers
// and archives, through pkg-config. Writes a few spans to the Jaeger and OTLP files named on
// its command line; what it wrote is checked by install_test.sh.
#include <cstdio>

#include <causeway/client.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: consumer JAEGER_FILE OTLP_FILE\n");
    return 2;
  }
  causeway::client::TracerOptions options;
  options.service_name = "install-check";
  options.jaeger_json_file = argv[1];
  options.otlp_json_file = argv[2];
  causeway::client::Tracer& tracer = causeway::client::Tracer::Init(options);
  for (int i = 0; i < 3; ++i) {
    causeway::client::Span request =
        tracer.StartSpan("GET /installed", nullptr, causeway::client::kServer);
    request.SetAttribute("request.number", static_cast<int64_t>(i));
    const causeway::client::SpanContext context = request.context();
    causeway::client::Span query = tracer.StartSpan("installed query", &context);
    query.SetAttribute("db.statement", "SELECT 1");
  }
  tracer.Shutdown();
  const causeway::client::TracerStats stats = tracer.stats();
  std::printf("spans finished: %llu\n", static_cast<unsigned long long>(stats.spans_finished));
  return stats.spans_finished == 6 ? 0 : 1;
}
