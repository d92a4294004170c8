// `causeway-demo run`: the whole demo in one command, and `cleanup`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "load.h"

namespace causeway::demo {

struct RunOptions {
  LoadOptions load;
  std::vector<std::string> faults;  // lock, cpu, disk, net
  std::string tracing = "spans";    // none | spans
  std::string trace_dir;            // default: $CAUSEWAY_TRACE_DIR
  std::string spans_dir;            // default: <trace_dir>/spans, else causeway-demo-out/spans
  std::string format = "text";      // text | json
  int base_port = 0;                // 0: each service picks a free port
  int threads = 32;                 // request threads per service
  std::string disk_dir = "/var/tmp";
  int64_t disk_write_kb = 32;
  int disk_syncs = 32;
  int64_t cpu_quota_us = 5000;  // per 100 ms period
  std::string net_rate = "1mbit";
  int64_t db_wait_us = 10000;
  int64_t route_cpu_us = 100;
  int64_t route_bytes = 2048;
  int route_workers = 3;
};

inline const std::vector<std::string> kFaults = {"lock", "cpu", "disk", "net"};

// Sets up the faults, starts the services, runs the load, stops and cleans everything, and
// prints the summary. Returns the exit code (0 all requests succeeded, 1 failure, 130 after
// SIGINT).
int RunDemo(const RunOptions& options);

// Removes what a killed run left behind (`causeway-demo cleanup`). Returns the exit code.
int CleanupLeftovers();

}  // namespace causeway::demo
