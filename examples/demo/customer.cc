// customer: GET /customer?id=ID from a simulated database.
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "services.h"

namespace causeway::demo {
namespace {

struct Customer {
  int64_t id;
  std::string name;
  Location location;
};

constexpr int64_t kCustomers = 100;

class CustomerDb {
 public:
  explicit CustomerDb(const CustomerOptions& o) : o_(o) {
    for (int64_t id = 1; id <= kCustomers; ++id)
      rows_.push_back({id,
                       fmt::format("Customer #{}", id),
                       {(id * 7919) % 1000, (id * 104729) % 1000}});  // spread over the map
  }

  // Looks a customer up and simulates the rest of the query. Returns false if unknown.
  bool Query(int64_t id, Customer* out, DemoSpan& span) {
    // The fault: one connection to the database for everybody, held for the whole query.
    std::unique_lock<std::mutex> global(global_mutex_, std::defer_lock);
    if (o_.lock) {
      const auto before = std::chrono::steady_clock::now();
      global.lock();
      span.SetInt("db.lock_wait_us", std::chrono::duration_cast<std::chrono::microseconds>(
                                         std::chrono::steady_clock::now() - before)
                                         .count());
    }
    bool found = false;
    {
      // The table's own lock is held for the lookup only.
      std::lock_guard<std::mutex> table(table_mutex_);
      if (id >= 1 && id <= static_cast<int64_t>(rows_.size())) {
        *out = rows_[static_cast<size_t>(id - 1)];
        found = true;
      }
    }
    BurnCpu(std::chrono::microseconds(o_.db_cpu_us));
    std::this_thread::sleep_for(std::chrono::microseconds(o_.db_wait_us));
    return found;
  }

 private:
  const CustomerOptions& o_;
  std::mutex global_mutex_;
  std::mutex table_mutex_;
  std::vector<Customer> rows_;
};

}  // namespace

int RunCustomer(const CustomerOptions& o) {
  CustomerDb db(o);
  return ServeForever("customer", o.service, [&](httplib::Server& server) {
    server.Get("/customer", Traced("GET /customer", [&](const httplib::Request& req,
                                                        httplib::Response& res, DemoSpan& span) {
                 auto id = PositiveIntParam(req, "id");
                 if (!id.ok()) return ReplyError(res, 400, id.status().message());
                 span.SetInt("customer.id", *id);
                 Customer c;
                 if (!db.Query(*id, &c, span))
                   return ReplyError(res, 404, fmt::format("no customer with id {}", *id));
                 ReplyJson(
                     res,
                     {{"id", c.id}, {"name", c.name}, {"location", FormatLocation(c.location)}});
               }));
  });
}

}  // namespace causeway::demo
