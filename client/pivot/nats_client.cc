#include "pivot/nats_client.h"

#include <nats/nats.h>

namespace causeway::pivot {
namespace {

std::string Text(natsStatus s) {
  const char* last = nats_GetLastError(nullptr);
  std::string out = natsStatus_GetText(s);
  if (last != nullptr && *last && out.find(last) == std::string::npos)
    out += std::string(" (") + last + ")";
  return out;
}

}  // namespace

struct NatsClient::Subscription {
  natsSubscription* sub = nullptr;
  Handler handler;
  std::string subject;
};

StatusOr<std::unique_ptr<NatsClient>> NatsClient::Connect(const std::string& url,
                                                          const std::string& name) {
  natsOptions* opts = nullptr;
  natsStatus s = natsOptions_Create(&opts);
  if (s == NATS_OK) s = natsOptions_SetURL(opts, url.c_str());
  if (s == NATS_OK) s = natsOptions_SetName(opts, name.c_str());
  if (s == NATS_OK) s = natsOptions_SetTimeout(opts, 2000);
  if (s == NATS_OK) s = natsOptions_SetMaxReconnect(opts, -1);
  if (s == NATS_OK) s = natsOptions_SetReconnectWait(opts, 250);
  natsConnection* nc = nullptr;
  if (s == NATS_OK) s = natsConnection_Connect(&nc, opts);
  natsOptions_Destroy(opts);
  if (s != NATS_OK) {
    return IoError("Cannot connect to NATS at " + url + ": " + Text(s) +
                   " (is nats-server running there?)");
  }
  return std::unique_ptr<NatsClient>(new NatsClient(nc, url));
}

NatsClient::NatsClient(natsConnection* nc, std::string url) : nc_(nc), url_(std::move(url)) {}

NatsClient::~NatsClient() { Close(); }

void NatsClient::Close() {
  if (nc_ == nullptr) return;
  natsConnection_FlushTimeout(nc_, 1000);
  // Drain: no new messages, the queued ones delivered, then wait for the callbacks to return.
  for (auto& sub : subs_) natsSubscription_Drain(sub->sub);
  for (auto& sub : subs_) natsSubscription_WaitForDrainCompletion(sub->sub, 2000);
  natsConnection_Close(nc_);
  for (auto& sub : subs_) natsSubscription_Destroy(sub->sub);
  subs_.clear();
  natsConnection_Destroy(nc_);
  nc_ = nullptr;
}

Status NatsClient::Publish(const std::string& subject, std::string_view data,
                           const std::string& reply) {
  if (nc_ == nullptr) return FailedPrecondition("NATS connection closed");
  const natsStatus s =
      reply.empty()
          ? natsConnection_Publish(nc_, subject.c_str(), data.data(), static_cast<int>(data.size()))
          : natsConnection_PublishRequest(nc_, subject.c_str(), reply.c_str(), data.data(),
                                          static_cast<int>(data.size()));
  if (s != NATS_OK) return IoError("Cannot publish on " + subject + ": " + Text(s));
  return Status::Ok();
}

Status NatsClient::Subscribe(const std::string& subject, Handler handler) {
  if (nc_ == nullptr) return FailedPrecondition("NATS connection closed");
  auto sub = std::make_unique<Subscription>();
  sub->handler = std::move(handler);
  sub->subject = subject;
  auto on_message = [](natsConnection*, natsSubscription*, natsMsg* msg, void* closure) {
    auto* self = static_cast<Subscription*>(closure);
    const char* reply = natsMsg_GetReply(msg);
    NatsMessage m{
        natsMsg_GetSubject(msg),
        std::string_view(natsMsg_GetData(msg), static_cast<size_t>(natsMsg_GetDataLength(msg))),
        reply != nullptr ? std::string_view(reply) : std::string_view()};
    self->handler(m);
    natsMsg_Destroy(msg);
  };
  const natsStatus s =
      natsConnection_Subscribe(&sub->sub, nc_, subject.c_str(), on_message, sub.get());
  if (s != NATS_OK) return IoError("Cannot subscribe to " + subject + ": " + Text(s));
  subs_.push_back(std::move(sub));
  return Status::Ok();
}

StatusOr<std::optional<std::string>> NatsClient::Request(const std::string& subject,
                                                         std::string_view data,
                                                         std::chrono::milliseconds timeout) {
  if (nc_ == nullptr) return FailedPrecondition("NATS connection closed");
  natsMsg* reply = nullptr;
  const natsStatus s = natsConnection_Request(&reply, nc_, subject.c_str(), data.data(),
                                              static_cast<int>(data.size()), timeout.count());
  if (s == NATS_NO_RESPONDERS || s == NATS_TIMEOUT) return std::optional<std::string>();
  if (s != NATS_OK) return IoError("Cannot send request on " + subject + ": " + Text(s));
  std::string out(natsMsg_GetData(reply), static_cast<size_t>(natsMsg_GetDataLength(reply)));
  natsMsg_Destroy(reply);
  return std::optional<std::string>(std::move(out));
}

StatusOr<std::vector<std::string>> NatsClient::Gather(const std::string& subject,
                                                      std::string_view data,
                                                      std::chrono::milliseconds window) {
  if (nc_ == nullptr) return FailedPrecondition("NATS connection closed");
  const std::string inbox = NewInbox();
  natsSubscription* sub = nullptr;
  natsStatus s = natsConnection_SubscribeSync(&sub, nc_, inbox.c_str());
  if (s == NATS_OK) {
    s = natsConnection_PublishRequest(nc_, subject.c_str(), inbox.c_str(), data.data(),
                                      static_cast<int>(data.size()));
  }
  if (s != NATS_OK) {
    natsSubscription_Destroy(sub);
    return IoError("Cannot send request on " + subject + ": " + Text(s));
  }
  std::vector<std::string> out;
  const auto deadline = std::chrono::steady_clock::now() + window;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    natsMsg* msg = nullptr;
    if (natsSubscription_NextMsg(&msg, sub, left.count()) != NATS_OK) break;
    if (natsMsg_GetDataLength(msg) > 0) {  // not a status message (no responders)
      out.emplace_back(natsMsg_GetData(msg), static_cast<size_t>(natsMsg_GetDataLength(msg)));
    }
    natsMsg_Destroy(msg);
  }
  natsSubscription_Unsubscribe(sub);
  natsSubscription_Destroy(sub);
  return out;
}

Status NatsClient::Flush(std::chrono::milliseconds timeout) {
  if (nc_ == nullptr) return FailedPrecondition("NATS connection closed");
  const natsStatus s = natsConnection_FlushTimeout(nc_, timeout.count());
  if (s != NATS_OK) return IoError("Cannot flush the NATS connection: " + Text(s));
  return Status::Ok();
}

std::string NatsClient::NewInbox() {
  natsInbox* inbox = nullptr;
  if (natsInbox_Create(&inbox) != NATS_OK) return "_INBOX.causeway";
  std::string out = inbox;
  natsInbox_Destroy(inbox);
  return out;
}

}  // namespace causeway::pivot
