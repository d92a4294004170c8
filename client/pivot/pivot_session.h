// PivotSession: one Pivot Tracing query run live over NATS, as `causeway pivot` runs it.
// It installs the query on every agent (and on agents that start meanwhile: they ask on
// `.hello`), sends the install again every interval (late agents, the lease), merges the
// partial results the agents send into totals and the current interval's table, and at
// the end removes the query and waits for each agent's last results, then for a marker of
// its own, so that nothing an agent sent is left unread. Subjects and messages: README.md.
// It prints nothing: the caller hears of what happens through SessionEvents.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "base/status.h"
#include "pivot/advice.h"
#include "pivot/nats_client.h"
#include "pivot/protocol.h"
#include "pivot/results.h"

namespace causeway::pivot {

struct SessionOptions {
  std::string query;  // the text, which each agent compiles again
  std::string nats_url;
  int64_t interval_ms = 1000;
  double duration_s = 0;  // 0: until *stop is set
  std::string subject_prefix{kDefaultSubjectPrefix};
  int64_t final_wait_ms = 3000;             // for every agent's last results
  const std::atomic<bool>* stop = nullptr;  // set (by a signal handler) to end the run
};

struct AgentState {
  AgentIdentity identity;
  bool ok = false;  // runs the query
  std::string error;
  int64_t woven = 0;
  bool final = false;  // its last results arrived
  QueryStats stats;
};

// Called on the thread that runs the session.
struct SessionEvents {
  // The first acknowledgements are in (half a second after the install).
  std::function<void()> installed;
  // An agent cannot run the query (once per agent and distinct error).
  std::function<void(const AgentIdentity&, const std::string& error)> refused;
  // A message on the inbox could not be decoded (it is counted and ignored).
  std::function<void(const Status&, const std::string& subject)> bad_message;
  // An interval ended: interval() holds the rows that came during it, totals() all so far.
  std::function<void()> interval;
};

class PivotSession {
 public:
  PivotSession(SessionOptions options, CompiledQuery query);

  // Runs until the duration ends or *stop is set, then removes the query and collects the
  // agents' last results. Fails when NATS cannot be reached or refuses a subscription.
  Status Run(const SessionEvents& events = {});

  const SessionOptions& options() const { return o_; }
  const CompiledQuery& query() const { return q_; }
  const std::map<std::string, AgentState>& agents() const { return agents_; }
  const ResultTable& totals() const { return totals_; }
  const ResultTable& interval() const { return interval_; }
  uint64_t bad_messages() const { return bad_messages_; }
  size_t CountAgents() const;   // agents running the query
  size_t CountRefused() const;  // agents that cannot run it
  size_t PendingFinals() const;
  double Elapsed() const;  // seconds since the install

 private:
  using Clock = std::chrono::steady_clock;
  // What the agents sent, in arrival order (one subscription: the session's inbox).
  struct Inbound {
    std::string subject;
    std::string data;
  };

  bool Stopped() const { return o_.stop != nullptr && o_.stop->load(); }
  // Handles inbound messages until `until` (returns early when one arrived and was handled).
  void Drain(Clock::time_point until);
  void Handle(const Inbound& m);

  const SessionOptions o_;
  const CompiledQuery q_;
  const SessionEvents* events_ = nullptr;  // during Run
  ResultTable totals_;
  ResultTable interval_;
  std::unique_ptr<NatsClient> nats_;
  std::string inbox_;
  InstallCommand install_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Inbound> inbound_;
  std::map<std::string, AgentState> agents_;
  bool marker_seen_ = false;
  uint64_t bad_messages_ = 0;
  Clock::time_point start_;
};

}  // namespace causeway::pivot
