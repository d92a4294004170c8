#include "pivot/pivot_session.h"

#include <algorithm>

namespace causeway::pivot {

PivotSession::PivotSession(SessionOptions options, CompiledQuery query)
    : o_(std::move(options)),
      q_(std::move(query)),
      totals_(q_.aggregates.size()),
      interval_(q_.aggregates.size()) {}

Status PivotSession::Run(const SessionEvents& events) {
  events_ = &events;
  ASSIGN_OR_RETURN(nats_, NatsClient::Connect(o_.nats_url, "causeway pivot"));
  Subjects subjects;
  subjects.prefix = o_.subject_prefix;
  inbox_ = nats_->NewInbox();
  install_.id = q_.id;
  install_.query = o_.query;
  install_.interval_ms = o_.interval_ms;
  install_.lease_ms = std::max<int64_t>(10000, 5 * o_.interval_ms);
  install_.results = inbox_ + ".results";
  const std::string body = Encode(install_);

  Status s = nats_->Subscribe(inbox_ + ".>", [this](const NatsMessage& m) {
    std::lock_guard lock(mu_);
    inbound_.push_back({std::string(m.subject), std::string(m.data)});
    cv_.notify_all();
  });
  // Agents that start while the query runs ask for it before they serve anything.
  if (s.ok()) {
    s = nats_->Subscribe(subjects.hello(), [this](const NatsMessage& m) {
      if (!m.reply.empty())
        (void)nats_->Publish(std::string(m.reply), EncodeHelloReply({install_}));
    });
  }
  if (s.ok()) s = nats_->Flush(std::chrono::seconds(2));
  if (s.ok()) s = nats_->Publish(subjects.install(), body, inbox_ + ".ack");
  RETURN_IF_ERROR(s);
  start_ = Clock::now();
  // The acknowledgements of the first half second, so the user knows at once where the
  // query runs: Drain returns with the first message, and one agent's ack is not all.
  const auto acks_until = start_ + std::chrono::milliseconds(500);
  while (!Stopped() && Clock::now() < acks_until) Drain(acks_until);
  if (events.installed) events.installed();

  const auto interval = std::chrono::milliseconds(o_.interval_ms);
  auto next_tick = start_ + interval;
  const auto deadline =
      o_.duration_s > 0
          ? start_ + std::chrono::milliseconds(static_cast<int64_t>(o_.duration_s * 1000))
          : Clock::time_point::max();
  while (!Stopped() && Clock::now() < deadline) {
    Drain(std::min({next_tick, deadline, Clock::now() + std::chrono::milliseconds(100)}));
    if (Clock::now() >= next_tick) {
      (void)nats_->Publish(subjects.install(), body, inbox_ + ".ack");  // lease and late agents
      if (events.interval) events.interval();
      interval_ = ResultTable(q_.aggregates.size());
      next_tick += interval;
    }
  }

  // Remove the query everywhere; each agent answers with what it aggregated last.
  (void)nats_->Publish(subjects.uninstall(), EncodeUninstall(q_.id), inbox_ + ".final");
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
  return Status::Ok();
}

void PivotSession::Drain(Clock::time_point until) {
  std::unique_lock lock(mu_);
  cv_.wait_until(lock, until, [&] { return !inbound_.empty() || Stopped(); });
  std::deque<Inbound> batch;
  batch.swap(inbound_);
  lock.unlock();
  for (const Inbound& m : batch) Handle(m);
}

void PivotSession::Handle(const Inbound& m) {
  // An empty message is the server's "no responders" status to a request nobody took.
  if (m.data.empty() && m.subject != inbox_ + ".marker") return;
  const std::string_view kind = std::string_view(m.subject).substr(inbox_.size() + 1);
  if (kind == "marker") {
    marker_seen_ = true;
  } else if (kind == "ack") {
    auto r = DecodeInstallReply(m.data);
    if (!r.ok() || r->id != q_.id) return;
    AgentState& a = agents_[r->agent.agent];
    const bool first = a.identity.agent.empty();
    a.identity = r->agent;
    a.ok = r->ok;
    a.woven = r->woven;
    if (!r->ok && (first || a.error != r->error) && events_->refused)
      events_->refused(r->agent, r->error);
    a.error = r->error;
  } else if (kind == "results" || kind == "final") {
    auto r = DecodeResults(m.data);
    if (!r.ok()) {
      ++bad_messages_;
      if (events_->bad_message) events_->bad_message(r.status(), m.subject);
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

size_t PivotSession::CountAgents() const {
  size_t n = 0;
  for (const auto& [id, a] : agents_) n += a.ok ? 1 : 0;
  return n;
}

size_t PivotSession::CountRefused() const {
  size_t n = 0;
  for (const auto& [id, a] : agents_) n += a.ok ? 0 : 1;
  return n;
}

size_t PivotSession::PendingFinals() const {
  size_t n = 0;
  for (const auto& [id, a] : agents_) n += (a.ok && !a.final) ? 1 : 0;
  return n;
}

double PivotSession::Elapsed() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

}  // namespace causeway::pivot
