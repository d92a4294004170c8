// causeway: why was this request slow, down to the kernel.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <system_error>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/huge_pages.h"

int main(int argc, char** argv) {
  // The commands that build the execution graph (see huge_pages.h). The readers (`events`,
  // `stats`) stream in a few MB and have nothing to gain.
  if (argc > 1 && (std::strcmp(argv[1], "requests") == 0 || std::strcmp(argv[1], "request") == 0 ||
                   std::strcmp(argv[1], "export") == 0 || std::strcmp(argv[1], "threads") == 0 ||
                   std::strcmp(argv[1], "critpath") == 0 || std::strcmp(argv[1], "index") == 0)) {
    causeway::cli::KeepFreedHeapForReuse();
    causeway::cli::AdviseHugePagesForHeap();
  }
  CLI::App app{
      "Causeway joins kernel traces with distributed-tracing spans and tells why a request was "
      "slow.\n"
      "Run `causeway COMMAND --help` for the options of a command."};
  app.name("causeway");
  app.set_version_flag("--version", "causeway 0.1.0");
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, causeway::cli::Runner>> commands;
  causeway::cli::Runner events = causeway::cli::RegisterEvents(app);
  causeway::cli::Runner stats = causeway::cli::RegisterStats(app);
  causeway::cli::Runner threads = causeway::cli::RegisterThreads(app);
  causeway::cli::Runner critpath = causeway::cli::RegisterCritpath(app);
  causeway::cli::Runner record = causeway::cli::RegisterRecord(app);
  causeway::cli::Runner snapshot = causeway::cli::RegisterSnapshot(app);
  causeway::cli::Runner sync = causeway::cli::RegisterSync(app);
  causeway::cli::Runner requests = causeway::cli::RegisterRequests(app);
  causeway::cli::Runner request = causeway::cli::RegisterRequest(app);
  causeway::cli::Runner export_ = causeway::cli::RegisterExport(app);
  causeway::cli::Runner pivot = causeway::cli::RegisterPivot(app);
  causeway::cli::Runner index = causeway::cli::RegisterIndex(app);
  const auto subcommands = app.get_subcommands([](CLI::App*) { return true; });
  const bool known = argc > 1 && std::any_of(subcommands.begin(), subcommands.end(),
                                             [&](CLI::App* c) { return c->check_name(argv[1]); });
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::fprintf(stderr,
                 "causeway: unknown command '%s' (commands: record, snapshot, events, stats, "
                 "threads, critpath, sync, requests, request, export, pivot, index; see "
                 "causeway --help)\n",
                 argv[1]);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; any usage error exits 2, as the README says.
    return app.exit(e) == 0 ? 0 : 2;
  }
  // Out of memory is an error with a message and exit 1, never an abort. Memory is bounded
  // by design where a recording's size does not bound it (report sizes, metadata); what is
  // left is a recording too large for this machine.
  try {
    if (app.got_subcommand("events")) return events();
    if (app.got_subcommand("stats")) return stats();
    if (app.got_subcommand("threads")) return threads();
    if (app.got_subcommand("critpath")) return critpath();
    if (app.got_subcommand("record")) return record();
    if (app.got_subcommand("snapshot")) return snapshot();
    if (app.got_subcommand("sync")) return sync();
    if (app.got_subcommand("requests")) return requests();
    if (app.got_subcommand("request")) return request();
    if (app.got_subcommand("export")) return export_();
    if (app.got_subcommand("pivot")) return pivot();
    if (app.got_subcommand("index")) return index();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "causeway %s: out of memory: the recording is too large for the memory this "
                 "process may use (ulimit -v, cgroup); give fewer traces, a time range or "
                 "--limit where the command has them\n",
                 argv[1]);
    return 1;
  } catch (const std::system_error& e) {
    // A thread that could not be started: under a tight address-space limit, its stack.
    std::fprintf(stderr,
                 "causeway %s: out of resources: %s (a thread could not start; ulimit -v, "
                 "ulimit -u, cgroup)\n",
                 argv[1], e.what());
    return 1;
  }
  return 2;
}
