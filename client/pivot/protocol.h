// The agent protocol: what `causeway pivot` and the agents in instrumented processes say to
// each other over NATS. Every message is one JSON object.
//
//   <prefix>.install    CLI -> agents, reply subject = the CLI's ack inbox.
//                       {"id","query","interval_ms","lease_ms","results"}: compile and weave
//                       the query (or, if already woven, extend its lease); reply with an
//                       InstallReply. The CLI sends it again every interval: agents that start
//                       later get it, and an agent drops a query whose lease ran out (its CLI
//                       died without uninstalling).
//   <prefix>.uninstall  CLI -> agents, reply subject = the CLI's final inbox. {"id"}: unweave;
//                       reply with the last interval's results (ResultsMessage, final=true).
//   <prefix>.hello      agent -> CLIs, a request sent when an agent starts; a CLI replies with
//                       {"queries":[install...]}, so the agent weaves them before its process
//                       serves anything.
//   <results>           agent -> the CLI that installed the query (the subject named in the
//                       install): every interval, the rows aggregated since the last one
//                       (ResultsMessage); final=true when the process exits or the lease ends.
//   <prefix>.status     agent -> anyone, every second: identity and woven queries with stats.
//
// Rows carry partial aggregates (sum, count, min, max), merged by the receiver.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "pivot/results.h"

namespace causeway::pivot {

inline constexpr std::string_view kDefaultSubjectPrefix = "causeway.pivot";

struct Subjects {
  std::string prefix{kDefaultSubjectPrefix};
  std::string install() const { return prefix + ".install"; }
  std::string uninstall() const { return prefix + ".uninstall"; }
  std::string hello() const { return prefix + ".hello"; }
  std::string status() const { return prefix + ".status"; }
};

// Who an agent is: "host:pid", plus its service name.
struct AgentIdentity {
  std::string agent;
  std::string host;
  int64_t pid = 0;
  std::string service;
};

struct InstallCommand {
  std::string id;
  std::string query;
  int64_t interval_ms = 1000;
  int64_t lease_ms = 10000;
  std::string results;  // subject the agent publishes results to
};

struct InstallReply {
  AgentIdentity agent;
  std::string id;
  bool ok = false;
  std::string error;       // when !ok
  int64_t woven = 0;       // tracepoints the advice is attached to in this process
  bool refreshed = false;  // already installed: only the lease was extended
};

struct ResultsMessage {
  AgentIdentity agent;
  std::string id;
  uint64_t seq = 0;     // 1, 2, ... per agent and query
  bool final = false;   // the last message of this agent for this query
  int64_t time_ns = 0;  // CLOCK_REALTIME when the interval closed
  std::vector<ResultRow> rows;
  QueryStats stats;  // cumulative, this agent
};

struct AgentQueryStatus {
  std::string id;
  int64_t woven = 0;
  QueryStats stats;
};

struct StatusMessage {
  AgentIdentity agent;
  bool exiting = false;
  std::vector<AgentQueryStatus> queries;
};

std::string Encode(const InstallCommand& m);
std::string Encode(const InstallReply& m);
std::string Encode(const ResultsMessage& m);
std::string Encode(const StatusMessage& m);
std::string EncodeUninstall(std::string_view id);
std::string EncodeHelloReply(const std::vector<InstallCommand>& installs);

// Decoders return InvalidArgument "Cannot decode <what>: <reason>" for anything malformed.
StatusOr<InstallCommand> DecodeInstall(std::string_view json);
StatusOr<InstallReply> DecodeInstallReply(std::string_view json);
StatusOr<ResultsMessage> DecodeResults(std::string_view json);
StatusOr<StatusMessage> DecodeStatus(std::string_view json);
StatusOr<std::string> DecodeUninstall(std::string_view json);
StatusOr<std::vector<InstallCommand>> DecodeHelloReply(std::string_view json);

}  // namespace causeway::pivot
