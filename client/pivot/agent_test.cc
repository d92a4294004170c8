// The agent against a real nats-server, with the test playing `causeway pivot`'s part over
// NatsClient (tests/pivot_cli_test.cc runs the real command against real processes).
#include "pivot/agent.h"

#include <condition_variable>
#include <deque>
#include <mutex>

#include <gtest/gtest.h>

#include "causeway/tracepoint.h"
#include "pivot/nats_client.h"
#include "pivot/nats_test_server.h"
#include "pivot/protocol.h"

namespace causeway::pivot {
namespace {

client::Tracepoint<std::string_view, int64_t> tp_io("atest", "io", {"kind", "bytes"});

// Collects what arrives on a subject (wildcards allowed), in order.
class Inbox {
 public:
  Inbox(NatsClient& nats, const std::string& subject) {
    EXPECT_TRUE(nats.Subscribe(subject,
                               [this](const NatsMessage& m) {
                                 std::lock_guard lock(mu_);
                                 messages_.emplace_back(std::string(m.subject),
                                                        std::string(m.data));
                                 cv_.notify_all();
                               })
                    .ok());
  }
  // The next message, or nullopt after 5 s.
  std::optional<std::pair<std::string, std::string>> Next() {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, std::chrono::seconds(5), [&] { return !messages_.empty(); })) return {};
    auto m = messages_.front();
    messages_.pop_front();
    return m;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<std::string, std::string>> messages_;
};

class PivotAgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.ok()) << server_.error();
    auto c = NatsClient::Connect(server_.url(), "test cli");
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    cli_ = std::move(*c);
    inbox_ = cli_->NewInbox();
  }

  std::unique_ptr<Agent> StartAgent(
      std::chrono::milliseconds hello_timeout = std::chrono::milliseconds(500)) {
    AgentOptions o;
    o.nats_url = server_.url();
    o.service = "svc";
    o.hello_timeout = hello_timeout;
    auto a = Agent::Start(o);
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    return a.ok() ? std::move(*a) : nullptr;
  }

  InstallCommand Command(const std::string& query, int64_t interval_ms = 100,
                         int64_t lease_ms = 10000) {
    InstallCommand cmd;
    cmd.id = "q1";
    cmd.query = query;
    cmd.interval_ms = interval_ms;
    cmd.lease_ms = lease_ms;
    cmd.results = inbox_ + ".results";
    return cmd;
  }

  // group (first value as text) -> first aggregate, summed over `messages`.
  static std::map<std::string, double> Sum(const std::vector<ResultsMessage>& messages) {
    ResultTable t(1);
    for (const auto& m : messages) t.Add(m.rows);
    std::map<std::string, double> out;
    for (const auto& r : t.Rows()) out[r.group.at(0).ToString()] = r.partials.at(0).sum;
    return out;
  }

  testing::NatsTestServer server_;
  std::unique_ptr<NatsClient> cli_;
  std::string inbox_;
};

constexpr char kSumByKind[] = "From x In atest:io GroupBy x.kind Select x.kind, SUM(x.bytes)";

TEST_F(PivotAgentTest, InstallsReportsEveryIntervalAndSendsTheRestWhenUninstalled) {
  Inbox in(*cli_, inbox_ + ".>");
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  EXPECT_FALSE(tp_io.enabled());
  ASSERT_TRUE(
      cli_->Publish("causeway.pivot.install", Encode(Command(kSumByKind)), inbox_ + ".ack").ok());
  auto ack = in.Next();
  ASSERT_TRUE(ack.has_value());
  ASSERT_EQ(ack->first, inbox_ + ".ack");
  auto reply = DecodeInstallReply(ack->second);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_TRUE(reply->ok) << reply->error;
  EXPECT_EQ(reply->woven, 1);
  EXPECT_EQ(reply->agent.service, "svc");
  EXPECT_EQ(reply->agent.pid, getpid());
  EXPECT_TRUE(tp_io.enabled());
  ASSERT_EQ(agent->queries().size(), 1u);

  CAUSEWAY_TRACEPOINT(tp_io, "read", 100);
  CAUSEWAY_TRACEPOINT(tp_io, "write", 7);
  // An interval's results arrive on their own.
  auto first = in.Next();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->first, inbox_ + ".results");
  std::vector<ResultsMessage> got;
  auto m = DecodeResults(first->second);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_FALSE(m->final);
  EXPECT_EQ(m->seq, 1u);
  got.push_back(*m);

  CAUSEWAY_TRACEPOINT(tp_io, "read", 23);
  ASSERT_TRUE(
      cli_->Publish("causeway.pivot.uninstall", EncodeUninstall("q1"), inbox_ + ".final").ok());
  for (;;) {
    auto next = in.Next();
    ASSERT_TRUE(next.has_value()) << "no final results";
    auto r = DecodeResults(next->second);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    got.push_back(*r);
    if (r->final) {
      EXPECT_EQ(next->first, inbox_ + ".final");
      EXPECT_EQ(r->stats.firings, 3u);
      break;
    }
  }
  EXPECT_EQ(Sum(got), (std::map<std::string, double>{{"read", 123}, {"write", 7}}));
  EXPECT_FALSE(tp_io.enabled());
  EXPECT_TRUE(agent->queries().empty());
}

TEST_F(PivotAgentTest, AnAgentStartedLaterGetsTheRunningQueriesBeforeStartReturns) {
  // The test answers the hello as `causeway pivot` does.
  const InstallCommand cmd = Command(kSumByKind, 100);
  ASSERT_TRUE(cli_->Subscribe("causeway.pivot.hello",
                              [&](const NatsMessage& m) {
                                (void)cli_->Publish(std::string(m.reply), EncodeHelloReply({cmd}));
                              })
                  .ok());
  ASSERT_TRUE(cli_->Flush(std::chrono::seconds(2)).ok());
  Inbox in(*cli_, inbox_ + ".>");
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  EXPECT_TRUE(tp_io.enabled());  // woven before Start returned
  CAUSEWAY_TRACEPOINT(tp_io, "read", 5);
  agent.reset();  // a process that exits sends what it has left
  std::vector<ResultsMessage> got;
  while (got.empty() || !got.back().final) {
    auto next = in.Next();
    ASSERT_TRUE(next.has_value()) << "no final results at exit";
    auto r = DecodeResults(next->second);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    got.push_back(*r);
  }
  EXPECT_EQ(Sum(got), (std::map<std::string, double>{{"read", 5}}));
  EXPECT_FALSE(tp_io.enabled());
}

TEST_F(PivotAgentTest, WithoutAnyCliStartDoesNotWaitForTheHelloTimeout) {
  const auto t0 = std::chrono::steady_clock::now();
  auto agent = StartAgent(std::chrono::milliseconds(3000));
  ASSERT_NE(agent, nullptr);
  // No responder: the server says so at once instead of the 3 s timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(2000));
  EXPECT_TRUE(agent->queries().empty());
}

TEST_F(PivotAgentTest, ABadQueryIsRefusedWithWhereAndWhat) {
  Inbox in(*cli_, inbox_ + ".>");
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  ASSERT_TRUE(cli_->Publish("causeway.pivot.install",
                            Encode(Command("From x In atest:io\nGroupBy")), inbox_ + ".ack")
                  .ok());
  auto ack = in.Next();
  ASSERT_TRUE(ack.has_value());
  auto reply = DecodeInstallReply(ack->second);
  ASSERT_TRUE(reply.ok());
  EXPECT_FALSE(reply->ok);
  EXPECT_NE(reply->error.find("line 2, column"), std::string::npos) << reply->error;
  EXPECT_TRUE(agent->queries().empty());
  // A field the tracepoint lacks: refused, nothing woven.
  ASSERT_TRUE(cli_->Publish("causeway.pivot.install",
                            Encode(Command("From x In atest:io Select SUM(x.nope)")),
                            inbox_ + ".ack")
                  .ok());
  ack = in.Next();
  ASSERT_TRUE(ack.has_value());
  reply = DecodeInstallReply(ack->second);
  ASSERT_TRUE(reply.ok());
  EXPECT_FALSE(reply->ok);
  EXPECT_NE(reply->error.find("nope"), std::string::npos) << reply->error;
  EXPECT_FALSE(tp_io.enabled());
  // Not JSON at all.
  ASSERT_TRUE(cli_->Publish("causeway.pivot.install", "{oops", inbox_ + ".ack").ok());
  ack = in.Next();
  ASSERT_TRUE(ack.has_value());
  reply = DecodeInstallReply(ack->second);
  ASSERT_TRUE(reply.ok());
  EXPECT_FALSE(reply->ok);
  EXPECT_NE(reply->error.find("Cannot decode install command"), std::string::npos) << reply->error;
}

TEST_F(PivotAgentTest, AQueryWhoseLeaseRunsOutIsRemovedWithItsLastResults) {
  Inbox in(*cli_, inbox_ + ".>");
  auto agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  ASSERT_TRUE(
      cli_->Publish("causeway.pivot.install", Encode(Command(kSumByKind, 50, 300)), inbox_ + ".ack")
          .ok());
  ASSERT_TRUE(in.Next().has_value());  // ack
  CAUSEWAY_TRACEPOINT(tp_io, "write", 9);
  std::vector<ResultsMessage> got;
  while (got.empty() || !got.back().final) {
    auto next = in.Next();
    ASSERT_TRUE(next.has_value()) << "the lease did not end";
    auto r = DecodeResults(next->second);
    ASSERT_TRUE(r.ok());
    got.push_back(*r);
  }
  EXPECT_EQ(Sum(got), (std::map<std::string, double>{{"write", 9}}));
  EXPECT_FALSE(tp_io.enabled());
  EXPECT_TRUE(agent->queries().empty());
}

TEST(PivotAgent, ConnectionRefusedIsAClearError) {
  AgentOptions o;
  o.nats_url = "nats://127.0.0.1:1";
  auto a = Agent::Start(o);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("Cannot connect to NATS at nats://127.0.0.1:1"),
            std::string::npos)
      << a.status().ToString();
}

}  // namespace
}  // namespace causeway::pivot
