#include "pivot/agent.h"

#include <time.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>

#include "pivot/interpreter.h"
#include "pivot/nats_client.h"
#include "pivot/parser.h"

namespace causeway::pivot {
namespace {

using Clock = std::chrono::steady_clock;

int64_t RealtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

}  // namespace

class Agent::Impl {
 public:
  explicit Impl(AgentOptions options) : opts_(std::move(options)) {
    subjects_.prefix = opts_.subject_prefix;
    id_.host = PivotHostName();
    id_.pid = getpid();
    id_.agent = id_.host + ":" + std::to_string(id_.pid);
    id_.service = opts_.service;
  }

  ~Impl() { Shutdown(); }

  Status Init() {
    ASSIGN_OR_RETURN(nats_, NatsClient::Connect(opts_.nats_url,
                                                "causeway-agent " + id_.service + " " + id_.agent));
    RETURN_IF_ERROR(
        nats_->Subscribe(subjects_.install(), [this](const NatsMessage& m) { OnInstall(m); }));
    RETURN_IF_ERROR(
        nats_->Subscribe(subjects_.uninstall(), [this](const NatsMessage& m) { OnUninstall(m); }));
    RETURN_IF_ERROR(nats_->Flush(std::chrono::seconds(2)));
    // The queries already running, woven before this process serves anything. The request
    // returns at once when no CLI runs (no responders); when one answered, others may run
    // too: ask again and gather every answer for a moment (on loopback they take < 1 ms).
    StatusMessage hello;
    hello.agent = id_;
    RETURN_IF_ERROR(Hello(Encode(hello)));
    worker_ = std::thread([this] { Run(); });
    return Status::Ok();
  }

  Status Hello(const std::string& body) {
    ASSIGN_OR_RETURN(auto first, nats_->Request(subjects_.hello(), body, opts_.hello_timeout));
    if (!first.has_value()) return Status::Ok();
    std::vector<std::string> replies = {*first};
    ASSIGN_OR_RETURN(auto more,
                     nats_->Gather(subjects_.hello(), body, std::chrono::milliseconds(100)));
    replies.insert(replies.end(), more.begin(), more.end());
    std::lock_guard lock(mu_);
    for (const std::string& reply : replies) {
      auto installs = DecodeHelloReply(reply);
      if (!installs.ok()) continue;
      for (const InstallCommand& cmd : *installs) {
        InstallReply r = InstallLocked(cmd);  // the second answer of a CLI only refreshes
        if (!r.ok)
          std::fprintf(stderr, "causeway agent: query %s: %s\n", cmd.id.c_str(), r.error.c_str());
      }
    }
    return Status::Ok();
  }

  const AgentIdentity& identity() const { return id_; }

  std::vector<AgentQuery> queries() const {
    std::lock_guard lock(mu_);
    std::vector<AgentQuery> out;
    for (const auto& [id, q] : queries_) {
      out.push_back({id, q.cmd.query, q.woven, q.runner->stats()});
    }
    return out;
  }

 private:
  struct Installed {
    InstallCommand cmd;
    std::unique_ptr<QueryRunner> runner;
    int64_t woven = 0;
    Clock::time_point lease_end;
    Clock::time_point next_publish;
    uint64_t seq = 0;
  };

  void Reply(const NatsMessage& m, const std::string& body) {
    if (!m.reply.empty()) (void)nats_->Publish(std::string(m.reply), body);
  }

  void OnInstall(const NatsMessage& m) {
    auto cmd = DecodeInstall(m.data);
    InstallReply r;
    r.agent = id_;
    if (!cmd.ok()) {
      r.error = cmd.status().ToString();
      Reply(m, Encode(r));
      return;
    }
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      r = InstallLocked(*cmd);
    }
    cv_.notify_all();
    Reply(m, Encode(r));
  }

  // Weaves a new query, or extends the lease of one already woven.
  InstallReply InstallLocked(const InstallCommand& cmd) {
    InstallReply r;
    r.agent = id_;
    r.id = cmd.id;
    const auto now = Clock::now();
    if (auto it = queries_.find(cmd.id); it != queries_.end()) {
      if (it->second.cmd.query != cmd.query) {
        r.error = "another query is installed under id " + cmd.id;
        return r;
      }
      it->second.lease_end = now + std::chrono::milliseconds(cmd.lease_ms);
      r.ok = true;
      r.refreshed = true;
      r.woven = it->second.woven;
      return r;
    }
    auto query = Parse(cmd.query);
    if (!query.ok()) {
      r.error = query.status().ToString();
      return r;
    }
    auto compiled = Compile(*query, cmd.id);
    if (!compiled.ok()) {
      r.error = compiled.status().ToString();
      return r;
    }
    auto runner = std::make_unique<QueryRunner>(std::move(*compiled));
    auto woven = runner->Install();
    if (!woven.ok()) {
      r.error = woven.status().ToString();
      return r;
    }
    Installed q;
    q.cmd = cmd;
    q.runner = std::move(runner);
    q.woven = static_cast<int64_t>(*woven);
    q.lease_end = now + std::chrono::milliseconds(cmd.lease_ms);
    q.next_publish = now + std::chrono::milliseconds(cmd.interval_ms);
    queries_.emplace(cmd.id, std::move(q));
    r.ok = true;
    r.woven = static_cast<int64_t>(*woven);
    return r;
  }

  void OnUninstall(const NatsMessage& m) {
    auto id = DecodeUninstall(m.data);
    if (!id.ok()) return;
    std::unique_lock lock(mu_);
    if (stopping_) return;
    auto it = queries_.find(*id);
    if (it == queries_.end()) return;  // not ours: the CLI knows whom it waits for
    const std::string subject = m.reply.empty() ? it->second.cmd.results : std::string(m.reply);
    ResultsMessage final = Remove(it);
    lock.unlock();
    (void)nats_->Publish(subject, Encode(final));
  }

  // Unweaves the query, then takes what it aggregated since the last interval: nothing can
  // fire into it afterwards, so nothing is lost.
  ResultsMessage Remove(std::map<std::string, Installed>::iterator it) {
    Installed& q = it->second;
    q.runner->Uninstall();
    ResultsMessage m = Take(q, /*final=*/true);
    queries_.erase(it);
    return m;
  }

  ResultsMessage Take(Installed& q, bool final) {
    ResultsMessage m;
    m.agent = id_;
    m.id = q.cmd.id;
    m.seq = ++q.seq;
    m.final = final;
    m.time_ns = RealtimeNs();
    m.rows = q.runner->TakeResults();
    m.stats = q.runner->stats();
    return m;
  }

  void PublishStatus(bool exiting) {
    StatusMessage s;
    s.agent = id_;
    s.exiting = exiting;
    for (const auto& [id, q] : queries_) s.queries.push_back({id, q.woven, q.runner->stats()});
    (void)nats_->Publish(subjects_.status(), Encode(s));
  }

  void Run() {
    std::unique_lock lock(mu_);
    auto next_status = Clock::now();
    while (!stopping_) {
      const auto now = Clock::now();
      auto wake = now + opts_.status_interval;
      for (auto it = queries_.begin(); it != queries_.end();) {
        Installed& q = it->second;
        if (now >= q.lease_end) {
          const std::string subject = q.cmd.results;
          ResultsMessage final = Remove(it++);
          (void)nats_->Publish(subject, Encode(final));
          continue;
        }
        if (now >= q.next_publish) {
          ResultsMessage m = Take(q, /*final=*/false);
          if (!m.rows.empty())
            (void)nats_->Publish(q.cmd.results, Encode(m));
          else
            --q.seq;  // nothing sent
          const auto interval = std::chrono::milliseconds(q.cmd.interval_ms);
          q.next_publish += interval;
          if (q.next_publish <= now) q.next_publish = now + interval;  // fell behind
        }
        wake = std::min({wake, q.next_publish, q.lease_end});
        ++it;
      }
      if (now >= next_status) {
        PublishStatus(false);
        next_status = now + opts_.status_interval;
      }
      wake = std::min(wake, next_status);
      cv_.wait_until(lock, wake);
    }
  }

  void Shutdown() {
    if (!nats_) return;
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (worker_.joinable()) worker_.join();
    {
      std::lock_guard lock(mu_);
      while (!queries_.empty()) {
        const std::string subject = queries_.begin()->second.cmd.results;
        ResultsMessage final = Remove(queries_.begin());
        (void)nats_->Publish(subject, Encode(final));
      }
      PublishStatus(true);
    }
    nats_->Close();  // flushes what was published, waits for the callbacks
    nats_.reset();
  }

  AgentOptions opts_;
  Subjects subjects_;
  AgentIdentity id_;
  std::unique_ptr<NatsClient> nats_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::map<std::string, Installed> queries_;
  std::thread worker_;
};

Agent::Agent(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Agent::~Agent() = default;

StatusOr<std::unique_ptr<Agent>> Agent::Start(AgentOptions options) {
  auto impl = std::make_unique<Impl>(std::move(options));
  RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<Agent>(new Agent(std::move(impl)));
}

const AgentIdentity& Agent::identity() const { return impl_->identity(); }
std::vector<AgentQuery> Agent::queries() const { return impl_->queries(); }

StatusOr<std::unique_ptr<Agent>> StartAgentFromEnvironment(std::string_view service) {
  const char* url = std::getenv("CAUSEWAY_PIVOT_NATS");
  if (url == nullptr || *url == '\0') return std::unique_ptr<Agent>();
  AgentOptions o;
  o.nats_url = url;
  o.service = std::string(service);
  if (const char* p = std::getenv("CAUSEWAY_PIVOT_SUBJECT"); p != nullptr && *p)
    o.subject_prefix = p;
  return Agent::Start(std::move(o));
}

}  // namespace causeway::pivot
