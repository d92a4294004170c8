// causeway pivot: runs a Pivot Tracing query live in every instrumented process (their agents,
// client/pivot/agent.h) and merges what they send into one table (client/pivot/protocol.h).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "pivot/advice.h"
#include "pivot/nats_client.h"
#include "pivot/parser.h"
#include "pivot/protocol.h"
#include "pivot/results.h"
#include "pivot/value_json.h"

namespace causeway::cli {
namespace {

using nlohmann::json;
using pivot::Aggregate;
using Clock = std::chrono::steady_clock;

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

// What the agents sent, in arrival order (one subscription: the CLI's inbox).
struct Inbound {
  std::string subject;
  std::string data;
};

struct AgentState {
  pivot::AgentIdentity identity;
  bool ok = false;
  std::string error;
  int64_t woven = 0;
  bool final = false;
  pivot::QueryStats stats;
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

class PivotSession {
 public:
  PivotSession(const Opts& o, pivot::CompiledQuery q)
      : o_(o),
        q_(std::move(q)),
        fmt_(q_),
        totals_(q_.aggregates.size()),
        interval_(q_.aggregates.size()) {}

  int Run() {
    auto nats = pivot::NatsClient::Connect(o_.nats_url, "causeway pivot");
    if (!nats.ok()) {
      std::fprintf(stderr, "causeway pivot: %s\n", nats.status().message().c_str());
      return 1;
    }
    nats_ = std::move(*nats);
    pivot::Subjects subjects;
    subjects.prefix = o_.subject_prefix;
    inbox_ = nats_->NewInbox();
    install_.id = q_.id;
    install_.query = o_.query;
    install_.interval_ms = o_.interval_ms;
    install_.lease_ms = std::max<int64_t>(10000, 5 * o_.interval_ms);
    install_.results = inbox_ + ".results";
    const std::string body = pivot::Encode(install_);

    Status s = nats_->Subscribe(inbox_ + ".>", [this](const pivot::NatsMessage& m) {
      std::lock_guard lock(mu_);
      inbound_.push_back({std::string(m.subject), std::string(m.data)});
      cv_.notify_all();
    });
    // Agents that start while the query runs ask for it before they serve anything.
    if (s.ok()) {
      s = nats_->Subscribe(subjects.hello(), [this](const pivot::NatsMessage& m) {
        if (!m.reply.empty())
          (void)nats_->Publish(std::string(m.reply), pivot::EncodeHelloReply({install_}));
      });
    }
    if (s.ok()) s = nats_->Flush(std::chrono::seconds(2));
    if (s.ok()) s = nats_->Publish(subjects.install(), body, inbox_ + ".ack");
    if (!s.ok()) {
      std::fprintf(stderr, "causeway pivot: %s\n", s.message().c_str());
      return 1;
    }
    start_ = Clock::now();
    // The first acknowledgements, so the user knows at once where the query runs.
    Drain(start_ + std::chrono::milliseconds(500));
    std::fprintf(stderr, "causeway pivot: query %s installed on %zu agent(s)%s\n", q_.id.c_str(),
                 CountAgents(), ErrorsSuffix().c_str());
    std::fflush(stderr);

    const auto interval = std::chrono::milliseconds(o_.interval_ms);
    auto next_tick = start_ + interval;
    const auto deadline =
        o_.duration_s > 0
            ? start_ + std::chrono::milliseconds(static_cast<int64_t>(o_.duration_s * 1000))
            : Clock::time_point::max();
    while (!g_stop.load() && Clock::now() < deadline) {
      Drain(std::min({next_tick, deadline, Clock::now() + std::chrono::milliseconds(100)}));
      if (Clock::now() >= next_tick) {
        (void)nats_->Publish(subjects.install(), body, inbox_ + ".ack");  // lease and late agents
        Tick();
        next_tick += interval;
      }
    }

    // Remove the query everywhere; each agent answers with what it aggregated last.
    (void)nats_->Publish(subjects.uninstall(), pivot::EncodeUninstall(q_.id), inbox_ + ".final");
    const auto final_deadline = Clock::now() + std::chrono::milliseconds(o_.final_wait_ms);
    while (Clock::now() < final_deadline && PendingFinals() > 0) {
      Drain(std::min(final_deadline, Clock::now() + std::chrono::milliseconds(50)));
    }
    // Everything the server delivered before this marker has been handled after it.
    (void)nats_->Publish(inbox_ + ".marker", "");
    marker_seen_ = false;
    const auto marker_deadline = Clock::now() + std::chrono::seconds(2);
    while (!marker_seen_ && Clock::now() < marker_deadline) {
      Drain(std::min(marker_deadline, Clock::now() + std::chrono::milliseconds(50)));
    }
    nats_->Close();
    PrintFinal();
    return 0;
  }

 private:
  // Handles inbound messages until `until` (returns early when one arrived and was handled).
  void Drain(Clock::time_point until) {
    std::unique_lock lock(mu_);
    cv_.wait_until(lock, until, [&] { return !inbound_.empty() || g_stop.load(); });
    std::deque<Inbound> batch;
    batch.swap(inbound_);
    lock.unlock();
    for (const Inbound& m : batch) Handle(m);
  }

  void Handle(const Inbound& m) {
    // An empty message is the server's "no responders" status to a request nobody took.
    if (m.data.empty() && m.subject != inbox_ + ".marker") return;
    const std::string_view kind = std::string_view(m.subject).substr(inbox_.size() + 1);
    if (kind == "marker") {
      marker_seen_ = true;
    } else if (kind == "ack") {
      auto r = pivot::DecodeInstallReply(m.data);
      if (!r.ok() || r->id != q_.id) return;
      AgentState& a = agents_[r->agent.agent];
      const bool first = a.identity.agent.empty();
      a.identity = r->agent;
      a.ok = r->ok;
      a.woven = r->woven;
      if (!r->ok && (first || a.error != r->error)) {
        std::fprintf(stderr, "causeway pivot: agent %s (%s) cannot run the query: %s\n",
                     r->agent.agent.c_str(), r->agent.service.c_str(), r->error.c_str());
      }
      a.error = r->error;
    } else if (kind == "results" || kind == "final") {
      auto r = pivot::DecodeResults(m.data);
      if (!r.ok()) {
        ++bad_messages_;
        std::fprintf(stderr, "causeway pivot: %s (from subject %s)\n", r.status().message().c_str(),
                     m.subject.c_str());
        return;
      }
      if (r->id != q_.id) return;
      AgentState& a = agents_[r->agent.agent];
      if (a.identity.agent.empty()) {
        a.identity = r->agent;
        a.ok = true;
      }
      a.stats = r->stats;
      a.final = a.final || r->final;
      totals_.Add(r->rows);
      interval_.Add(r->rows);
    }
  }

  size_t CountAgents() const {
    size_t n = 0;
    for (const auto& [id, a] : agents_) n += a.ok ? 1 : 0;
    return n;
  }

  std::string ErrorsSuffix() const {
    size_t n = 0;
    for (const auto& [id, a] : agents_) n += a.ok ? 0 : 1;
    return n ? fmt::format(", {} refused it", n) : "";
  }

  size_t PendingFinals() const {
    size_t n = 0;
    for (const auto& [id, a] : agents_) n += (a.ok && !a.final) ? 1 : 0;
    return n;
  }

  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  json RowsJson(const std::vector<pivot::ResultRow>& rows) const {
    json out = json::array();
    for (const auto& r : rows) out.push_back(fmt_.Json(r));
    return out;
  }

  void Tick() {
    if (o_.format == "jsonl") {
      json line = {{"type", "interval"},
                   {"id", q_.id},
                   {"elapsed_s", Elapsed()},
                   {"agents", CountAgents()},
                   {"rows", RowsJson(interval_.Rows())}};
      std::printf("%s\n", line.dump().c_str());
      std::fflush(stdout);
    } else if (isatty(STDOUT_FILENO)) {
      std::printf("\x1b[H\x1b[2J%s — query %s on %zu agent(s), %.0f s (Ctrl-C to stop)\n\n%s",
                  o_.query.c_str(), q_.id.c_str(), CountAgents(), Elapsed(),
                  Table(fmt_, q_, totals_.Rows()).c_str());
      std::fflush(stdout);
    }
    interval_ = pivot::ResultTable(q_.aggregates.size());
  }

  void PrintFinal() {
    pivot::QueryStats stats;
    json agents = json::array(), missing = json::array();
    for (const auto& [id, a] : agents_) {
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
    if (bad_messages_) {
      std::fprintf(stderr,
                   "causeway pivot: %llu message(s) on the inbox could not be decoded "
                   "and were ignored\n",
                   static_cast<unsigned long long>(bad_messages_));
    }
    if (stats.dropped_tuples || stats.type_errors) {
      std::fprintf(stderr, "causeway pivot: %llu tuple(s) dropped at caps, %llu type error(s)\n",
                   static_cast<unsigned long long>(stats.dropped_tuples),
                   static_cast<unsigned long long>(stats.type_errors));
    }
    if (o_.format == "jsonl") {
      json line = {{"type", "final"},
                   {"id", q_.id},
                   {"query", o_.query},
                   {"elapsed_s", Elapsed()},
                   {"columns", q_.columns},
                   {"rows", RowsJson(totals_.Rows())},
                   {"rows_dropped", totals_.dropped()},
                   {"agents", agents},
                   {"missing_agents", missing},
                   {"bad_messages", bad_messages_},
                   {"stats",
                    {{"firings", stats.firings},
                     {"emitted", stats.emitted},
                     {"dropped_tuples", stats.dropped_tuples},
                     {"type_errors", stats.type_errors}}}};
      std::printf("%s\n", line.dump().c_str());
    } else {
      if (isatty(STDOUT_FILENO)) std::printf("\n");
      std::printf("%s", Table(fmt_, q_, totals_.Rows()).c_str());
      std::fprintf(stderr, "causeway pivot: %zu agent(s), %.1f s, %llu firing(s)\n", CountAgents(),
                   Elapsed(), static_cast<unsigned long long>(stats.firings));
    }
    std::fflush(stdout);
  }

  const Opts& o_;
  pivot::CompiledQuery q_;
  RowFormatter fmt_;
  pivot::ResultTable totals_;
  pivot::ResultTable interval_;
  std::unique_ptr<pivot::NatsClient> nats_;
  std::string inbox_;
  pivot::InstallCommand install_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Inbound> inbound_;
  std::map<std::string, AgentState> agents_;
  bool marker_seen_ = false;
  uint64_t bad_messages_ = 0;
  Clock::time_point start_;
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
    PivotSession session(*o, std::move(*compiled));
    return session.Run();
  };
}

}  // namespace causeway::cli
