// A small RAII wrapper over libnats (the NATS C client, Debian's libnats-dev) for the agent
// and `causeway pivot`: connect, publish, subscribe with a callback, request, close.
//
// Callbacks run on libnats' delivery threads, one per subscription, in the order messages
// arrived on that subscription. Close() (or the destructor) drains every subscription and
// waits for its callbacks to return before the connection goes, so a handler never runs
// after Close() returns. The connection reconnects on its own (forever, every 250 ms).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

struct __natsConnection;
struct __natsSubscription;
struct __natsMsg;

namespace causeway::pivot {

struct NatsMessage {
  std::string_view subject;
  std::string_view data;
  std::string_view reply;  // empty when the sender expects no reply
};

class NatsClient {
 public:
  using Handler = std::function<void(const NatsMessage&)>;

  // `name` shows in the server's connection list. Fails with IoError "Cannot connect to
  // NATS at URL: reason" when no server answers within 2 s.
  static StatusOr<std::unique_ptr<NatsClient>> Connect(const std::string& url,
                                                       const std::string& name);
  ~NatsClient();
  NatsClient(const NatsClient&) = delete;
  NatsClient& operator=(const NatsClient&) = delete;

  Status Publish(const std::string& subject, std::string_view data, const std::string& reply = "");
  Status Subscribe(const std::string& subject, Handler handler);
  // Sends a request and waits for the first reply: nullopt when nobody listens on the subject
  // (the server says so at once) or nobody answered within `timeout`.
  StatusOr<std::optional<std::string>> Request(const std::string& subject, std::string_view data,
                                               std::chrono::milliseconds timeout);
  // Publishes a request and gathers every reply that arrives within `window` (for subjects
  // with several responders).
  StatusOr<std::vector<std::string>> Gather(const std::string& subject, std::string_view data,
                                            std::chrono::milliseconds window);
  // Waits until the server has processed everything published so far.
  Status Flush(std::chrono::milliseconds timeout);
  // A fresh unique subject for replies ("_INBOX.<random>").
  std::string NewInbox();
  void Close();
  const std::string& url() const { return url_; }

 private:
  struct Subscription;
  NatsClient(__natsConnection* nc, std::string url);
  __natsConnection* nc_;
  std::string url_;
  std::vector<std::unique_ptr<Subscription>> subs_;
};

}  // namespace causeway::pivot
