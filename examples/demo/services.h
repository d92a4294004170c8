// The four services of the demo. Each Run* serves until SIGINT/SIGTERM and returns the
// process exit code; main.cc maps the command line onto these options.
#pragma once

#include <cstdint>
#include <string>

#include "service.h"

namespace causeway::demo {

struct CustomerOptions {
  ServiceOptions service;
  int64_t db_cpu_us = 300;     // CPU per simulated query
  int64_t db_wait_us = 10000;  // simulated wait for the database, per query
  bool lock = false;           // the `lock` fault: one global mutex held for the whole query
};
int RunCustomer(const CustomerOptions& options);

struct DriverOptions {
  ServiceOptions service;
  int drivers = 5;             // nearest drivers returned
  std::string disk_dir;        // the `disk` fault: write + fsync per request to a file here
  int64_t disk_write_kb = 32;  // per fsync
  int disk_syncs = 32;         // write + fsync rounds per request
};
int RunDriver(const DriverOptions& options);

struct RouteOptions {
  ServiceOptions service;
  int64_t cpu_us = 100;           // CPU per route
  int64_t response_bytes = 2048;  // about this much JSON per answer
};
int RunRoute(const RouteOptions& options);

struct FrontendOptions {
  ServiceOptions service;
  std::string customer_url = "http://127.0.0.1:8081";
  std::string driver_url = "http://127.0.0.1:8082";
  std::string route_url = "http://127.0.0.1:8083";
  int route_workers = 3;
};
int RunFrontend(const FrontendOptions& options);

}  // namespace causeway::demo
