// frontend: GET /dispatch?customer=ID finds the customer, the nearest drivers, a route for
// each, and answers with the driver that arrives first.
#include <condition_variable>
#include <deque>
#include <latch>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "process.h"
#include "services.h"

namespace causeway::demo {
namespace {

// A fixed set of threads shared by all requests, as in HotROD: at most `threads` route calls
// are in flight, whatever the number of requests, so under load they queue here.
class WorkerPool {
 public:
  explicit WorkerPool(int threads) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }

  void Submit(std::function<void()> job) {
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(std::move(job));
    }
    wake_.notify_one();
  }

 private:
  void Work() {
    while (true) {
      std::function<void()> job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) return;  // stopping, and nothing left to do
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// Parses a service's JSON answer; a parse failure is the callee's bug, reported as such.
StatusOr<nlohmann::json> ParseAnswer(std::string_view service, const std::string& body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return DataLoss(fmt::format("{} service sent invalid JSON: {:.80}", service, body));
  return j;
}

int ErrorStatus(const Status& s) { return s.code() == StatusCode::kNotFound ? 404 : 502; }

struct RouteAnswer {
  Status status;
  double eta_s = 0;
};

}  // namespace

int RunFrontend(const FrontendOptions& o) {
  BlockStopSignals();  // before the pool's threads start, so they inherit the mask
  WorkerPool routes(o.route_workers);
  auto dispatch = [&](const httplib::Request& req, httplib::Response& res, DemoSpan& span) {
    auto id = PositiveIntParam(req, "customer");
    if (!id.ok()) return ReplyError(res, 400, id.status().message());
    span.SetInt("customer.id", *id);
    const ParentContext parent = span.context();

    auto customer_body =
        CallService("customer", o.customer_url, fmt::format("/customer?id={}", *id), parent);
    if (!customer_body.ok())
      return ReplyError(res, ErrorStatus(customer_body.status()), customer_body.status().message());
    auto customer = ParseAnswer("customer", *customer_body);
    if (!customer.ok() || !(*customer)["location"].is_string())
      return ReplyError(res, 502, "customer service sent no location");
    const std::string customer_location = (*customer)["location"];

    auto drivers_body =
        CallService("driver", o.driver_url, "/drivers?location=" + customer_location, parent);
    if (!drivers_body.ok())
      return ReplyError(res, ErrorStatus(drivers_body.status()), drivers_body.status().message());
    auto drivers = ParseAnswer("driver", *drivers_body);
    if (!drivers.ok() || !drivers->is_array() || drivers->empty())
      return ReplyError(res, 502, "driver service sent no drivers");

    for (const auto& d : *drivers)
      if (!d.is_object() || !d.contains("id") || !d["id"].is_string() || !d.contains("location") ||
          !d["location"].is_string())
        return ReplyError(res, 502, "driver service sent a driver without id or location");

    std::vector<RouteAnswer> answers(drivers->size());
    std::latch done(static_cast<ptrdiff_t>(drivers->size()));
    for (size_t i = 0; i < drivers->size(); ++i) {
      const std::string from = (*drivers)[i]["location"];
      // The route call runs on a pool thread: it carries a branch of the request's baggage.
      routes.Submit([&, i, from, baggage = pivot::Baggage::Capture()] {
        pivot::BaggageScope scope(baggage);
        auto body =
            CallService("route", o.route_url,
                        fmt::format("/route?from={}&to={}", from, customer_location), parent);
        if (!body.ok()) {
          answers[i].status = body.status();
        } else if (auto route = ParseAnswer("route", *body);
                   !route.ok() || !(*route)["eta_s"].is_number()) {
          answers[i].status = DataLoss("route service sent no eta_s");
        } else {
          answers[i].eta_s = (*route)["eta_s"];
        }
        done.count_down();
      });
    }
    done.wait();

    size_t best = 0;
    double best_eta = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < answers.size(); ++i) {
      if (!answers[i].status.ok())
        return ReplyError(res, ErrorStatus(answers[i].status), answers[i].status.message());
      if (answers[i].eta_s < best_eta) best_eta = answers[i].eta_s, best = i;
    }
    const std::string chosen = (*drivers)[best]["id"];
    CAUSEWAY_TRACEPOINT(tp_driver_chosen, chosen, best_eta);
    ReplyJson(res, {{"customer", *id},
                    {"driver", (*drivers)[best]["id"]},
                    {"eta_s", best_eta},
                    {"drivers_considered", answers.size()}});
  };
  return ServeForever("frontend", o.service, [&](httplib::Server& server) {
    server.Get("/dispatch", Traced("GET /dispatch", dispatch));
  });
}

}  // namespace causeway::demo
