// The Pivot Tracing agent of an instrumented process (protocol.h says what goes over NATS).
//
//   auto agent = causeway::pivot::StartAgentFromEnvironment("frontend");  // CAUSEWAY_PIVOT_NATS
//   ...serve...
//   agent->reset();  // or let it go out of scope: publishes the last results, unweaves
//
// Start() connects, subscribes to the install/uninstall commands, then asks the running
// `causeway pivot` commands (hello) for their queries and weaves them before returning, so a
// process started while a query runs counts from its first request. Each installed query is
// compiled and woven through QueryRunner; every interval its rows go to the subject the CLI
// named. A query whose CLI stops refreshing it (lease) is removed. The destructor publishes
// each query's last rows (final=true) and removes all advice: the results of a process that
// exits normally are complete.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "pivot/protocol.h"

namespace causeway::pivot {

struct AgentOptions {
  std::string nats_url = "nats://127.0.0.1:4222";
  std::string service;  // the process's role, reported with every message
  std::string subject_prefix{kDefaultSubjectPrefix};
  // How long Start() waits for a running CLI to answer the hello.
  std::chrono::milliseconds hello_timeout{500};
  std::chrono::milliseconds status_interval{1000};
};

struct AgentQuery {
  std::string id;
  std::string query;
  int64_t woven = 0;
  QueryStats stats;
};

class Agent {
 public:
  static StatusOr<std::unique_ptr<Agent>> Start(AgentOptions options);
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  const AgentIdentity& identity() const;
  std::vector<AgentQuery> queries() const;

 private:
  class Impl;
  explicit Agent(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Starts an agent when CAUSEWAY_PIVOT_NATS names a NATS server (nullptr when it is unset or
// empty). CAUSEWAY_PIVOT_SUBJECT overrides the subject prefix.
StatusOr<std::unique_ptr<Agent>> StartAgentFromEnvironment(std::string_view service);

}  // namespace causeway::pivot
