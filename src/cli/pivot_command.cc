// causeway pivot: runs a Pivot Tracing query live in every instrumented process (their agents,
// client/pivot/agent.h) and merges what they send into one table (client/pivot/protocol.h).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "pivot/advice.h"
#include "pivot/parser.h"
#include "pivot/pivot_session.h"
#include "pivot/protocol.h"
#include "pivot/results.h"
#include "pivot/value_json.h"

namespace causeway::cli {
namespace {

using nlohmann::json;
using pivot::Aggregate;

std::atomic<bool> g_stop{false};
void OnStopSignal(int) { g_stop.store(true); }

struct Opts {
  std::string query;
  std::string nats_url;
  int64_t interval_ms = 1000;
  double duration_s = 0;
  std::string format = "table";
  bool explain = false;
  std::string subject_prefix{pivot::kDefaultSubjectPrefix};
  int64_t final_wait_ms = 3000;
};

json NumberJson(double v) {
  if (v == static_cast<double>(static_cast<int64_t>(v))) return static_cast<int64_t>(v);
  return v;
}

// The output columns of one row, as text cells (table) or a JSON object (jsonl).
class RowFormatter {
 public:
  explicit RowFormatter(const pivot::CompiledQuery& q) : q_(q) {}

  json Json(const pivot::ResultRow& r) const {
    json o = json::object();
    size_t c = 0;
    for (const pivot::Value& v : r.group) o[Column(c++)] = pivot::ValueToJson(v);
    for (size_t a = 0; a < q_.aggregates.size(); ++a) {
      const Aggregate agg = q_.aggregates[a].aggregate;
      o[Column(c++)] = a < r.partials.size() ? NumberJson(r.partials[a].Result(agg)) : json();
    }
    return o;
  }

  std::vector<std::string> Cells(const pivot::ResultRow& r) const {
    std::vector<std::string> out;
    for (const pivot::Value& v : r.group) out.push_back(v.ToString());
    for (size_t a = 0; a < q_.aggregates.size(); ++a) {
      const Aggregate agg = q_.aggregates[a].aggregate;
      out.push_back(a < r.partials.size() ? pivot::FormatNumber(r.partials[a].Result(agg)) : "");
    }
    return out;
  }

  std::string Column(size_t c) const {
    return c < q_.columns.size() ? q_.columns[c] : fmt::format("column{}", c + 1);
  }

 private:
  const pivot::CompiledQuery& q_;
};

std::string Table(const RowFormatter& f, const pivot::CompiledQuery& q,
                  const std::vector<pivot::ResultRow>& rows) {
  std::vector<std::vector<std::string>> cells;
  cells.push_back(q.columns);
  for (const auto& r : rows) cells.push_back(f.Cells(r));
  std::vector<size_t> width;
  for (const auto& line : cells) {
    for (size_t c = 0; c < line.size(); ++c) {
      if (c >= width.size()) width.push_back(0);
      width[c] = std::max(width[c], line[c].size());
    }
  }
  std::string out;
  for (const auto& line : cells) {
    for (size_t c = 0; c < line.size(); ++c) {
      // Text left, numbers (aggregates) right.
      const bool number = c >= q.group_by.size() && !q.aggregates.empty();
      out += number ? fmt::format("{:>{}}", line[c], width[c])
                    : fmt::format("{:<{}}", line[c], width[c]);
      out += c + 1 < line.size() ? "  " : "";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  }
  if (rows.empty()) out += "(no rows)\n";
  return out;
}

// What the command prints while the session runs and when it ends.
class SessionPrinter {
 public:
  SessionPrinter(const Opts& o, const pivot::PivotSession& session)
      : o_(o), session_(session), fmt_(session.query()) {}

  pivot::SessionEvents Events() const {
    const pivot::PivotSession* session = &session_;
    pivot::SessionEvents e;
    e.installed = [session] {
      const size_t refused = session->CountRefused();
      std::fprintf(stderr, "causeway pivot: query %s installed on %zu agent(s)%s\n",
                   session->query().id.c_str(), session->CountAgents(),
                   refused ? fmt::format(", {} refused it", refused).c_str() : "");
      std::fflush(stderr);
    };
    e.refused = [](const pivot::AgentIdentity& agent, const std::string& error) {
      std::fprintf(stderr, "causeway pivot: agent %s (%s) cannot run the query: %s\n",
                   agent.agent.c_str(), agent.service.c_str(), error.c_str());
    };
    e.bad_message = [](const Status& s, const std::string& subject) {
      std::fprintf(stderr, "causeway pivot: %s (from subject %s)\n", s.message().c_str(),
                   subject.c_str());
    };
    e.interval = [this] { Interval(); };
    return e;
  }

  void Interval() const {
    const pivot::PivotSession& s = session_;
    const pivot::CompiledQuery& q = s.query();
    if (o_.format == "jsonl") {
      json line = {{"type", "interval"},
                   {"id", q.id},
                   {"elapsed_s", s.Elapsed()},
                   {"agents", s.CountAgents()},
                   {"rows", RowsJson(s.interval().Rows())}};
      std::printf("%s\n", line.dump().c_str());
      std::fflush(stdout);
    } else if (isatty(STDOUT_FILENO)) {
      std::printf("\x1b[H\x1b[2J%s — query %s on %zu agent(s), %.0f s (Ctrl-C to stop)\n\n%s",
                  o_.query.c_str(), q.id.c_str(), s.CountAgents(), s.Elapsed(),
                  Table(fmt_, q, s.totals().Rows()).c_str());
      std::fflush(stdout);
    }
  }

  void Final() const {
    const pivot::PivotSession& s = session_;
    const pivot::CompiledQuery& q = s.query();
    pivot::QueryStats stats;
    json agents = json::array(), missing = json::array();
    for (const auto& [id, a] : s.agents()) {
      stats.firings += a.stats.firings;
      stats.emitted += a.stats.emitted;
      stats.dropped_tuples += a.stats.dropped_tuples;
      stats.type_errors += a.stats.type_errors;
      json j = {{"agent", id},
                {"service", a.identity.service},
                {"ok", a.ok},
                {"woven", a.woven},
                {"final", a.final}};
      if (!a.ok) j["error"] = a.error;
      agents.push_back(std::move(j));
      if (a.ok && !a.final) missing.push_back(id);
    }
    if (!missing.empty()) {
      std::fprintf(stderr,
                   "causeway pivot: %zu agent(s) did not send their last results (the totals "
                   "miss their last interval): %s\n",
                   missing.size(), missing.dump().c_str());
    }
    if (s.bad_messages()) {
      std::fprintf(stderr,
                   "causeway pivot: %llu message(s) on the inbox could not be decoded "
                   "and were ignored\n",
                   static_cast<unsigned long long>(s.bad_messages()));
    }
    if (stats.dropped_tuples || stats.type_errors) {
      std::fprintf(stderr, "causeway pivot: %llu tuple(s) dropped at caps, %llu type error(s)\n",
                   static_cast<unsigned long long>(stats.dropped_tuples),
                   static_cast<unsigned long long>(stats.type_errors));
    }
    if (o_.format == "jsonl") {
      json line = {{"type", "final"},
                   {"id", q.id},
                   {"query", o_.query},
                   {"elapsed_s", s.Elapsed()},
                   {"columns", q.columns},
                   {"rows", RowsJson(s.totals().Rows())},
                   {"rows_dropped", s.totals().dropped()},
                   {"agents", agents},
                   {"missing_agents", missing},
                   {"bad_messages", s.bad_messages()},
                   {"stats",
                    {{"firings", stats.firings},
                     {"emitted", stats.emitted},
                     {"dropped_tuples", stats.dropped_tuples},
                     {"type_errors", stats.type_errors}}}};
      std::printf("%s\n", line.dump().c_str());
    } else {
      if (isatty(STDOUT_FILENO)) std::printf("\n");
      std::printf("%s", Table(fmt_, q, s.totals().Rows()).c_str());
      std::fprintf(stderr, "causeway pivot: %zu agent(s), %.1f s, %llu firing(s)\n",
                   s.CountAgents(), s.Elapsed(), static_cast<unsigned long long>(stats.firings));
    }
    std::fflush(stdout);
  }

 private:
  json RowsJson(const std::vector<pivot::ResultRow>& rows) const {
    json out = json::array();
    for (const auto& r : rows) out.push_back(fmt_.Json(r));
    return out;
  }

  const Opts& o_;
  const pivot::PivotSession& session_;
  RowFormatter fmt_;
};

std::string NewQueryId() {
  std::random_device rd;
  return fmt::format("q{:08x}", rd());
}

}  // namespace

Runner RegisterPivot(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "pivot",
      "Run a Pivot Tracing query live in every instrumented process: the agents (started by "
      "processes that link causeway-pivot, with CAUSEWAY_PIVOT_NATS=URL) weave it at their "
      "tracepoints, aggregate in place and send partial results every interval over NATS; this "
      "command merges them into one table and removes the query when it exits (Ctrl-C, or "
      "--duration).\n\n"
      "Example, bytes written by the frontend grouped by the client that caused them (a "
      "happened-before join):\n"
      "  causeway pivot 'From b In demo:bytes_written Join c In First(demo:client_request) "
      "On c -> b Where b.service == \"frontend\" GroupBy c.client Select c.client, "
      "SUM(b.bytes)'");
  auto o = std::make_shared<Opts>();
  cmd->add_option("QUERY", o->query,
                  "The query: From x In TP [Join y In [First|FirstN(n)|MostRecent|MostRecentN(n)]"
                  "(TP) On y -> x] [Where ...] [GroupBy ...] [Select ...]")
      ->required();
  const char* env = std::getenv("CAUSEWAY_PIVOT_NATS");
  o->nats_url = env != nullptr && *env ? env : "nats://127.0.0.1:4222";
  cmd->add_option("--nats", o->nats_url,
                  "NATS server the agents listen to (default: "
                  "$CAUSEWAY_PIVOT_NATS, else nats://127.0.0.1:4222)");
  cmd->add_option("--interval", o->interval_ms,
                  "Milliseconds between the agents' partial results (and table updates)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{10}, int64_t{3600000}));
  cmd->add_option("--duration", o->duration_s,
                  "Seconds to run, then remove the query and print "
                  "the totals (default: until Ctrl-C)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--format", o->format,
                  "table (redrawn each interval on a terminal, the totals at the end) or jsonl "
                  "(one object per interval with that interval's rows, then one with "
                  "\"type\":\"final\" and the totals)")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "jsonl"}));
  cmd->add_flag("--explain", o->explain,
                "Print the advice the query compiles to (OBSERVE, UNPACK, FILTER, PACK, EMIT per "
                "tracepoint) and exit, without contacting NATS");
  cmd->add_option("--subject-prefix", o->subject_prefix,
                  "NATS subject prefix of the agents (CAUSEWAY_PIVOT_SUBJECT on their side)")
      ->capture_default_str();
  cmd->add_option("--final-wait", o->final_wait_ms,
                  "Milliseconds to wait, at the end, for every agent's last results")
      ->capture_default_str();
  return [o]() -> int {
    auto query = pivot::Parse(o->query);
    if (!query.ok()) {
      std::fprintf(stderr, "causeway pivot: %s\n", query.status().ToString().c_str());
      return 2;
    }
    auto compiled = pivot::Compile(*query, NewQueryId());
    if (!compiled.ok()) {
      std::fprintf(stderr, "causeway pivot: %s\n", compiled.status().ToString().c_str());
      return 2;
    }
    if (o->explain) {
      std::printf("%s", compiled->ToString().c_str());
      return 0;
    }
    struct sigaction sa {};
    sa.sa_handler = OnStopSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGHUP, &sa, nullptr);
    pivot::SessionOptions so;
    so.query = o->query;
    so.nats_url = o->nats_url;
    so.interval_ms = o->interval_ms;
    so.duration_s = o->duration_s;
    so.subject_prefix = o->subject_prefix;
    so.final_wait_ms = o->final_wait_ms;
    so.stop = &g_stop;
    pivot::PivotSession session(std::move(so), std::move(*compiled));
    const SessionPrinter printer(*o, session);
    if (Status s = session.Run(printer.Events()); !s.ok()) {
      std::fprintf(stderr, "causeway pivot: %s\n", s.message().c_str());
      return 1;
    }
    printer.Final();
    return 0;
  };
}

}  // namespace causeway::cli
