// Slow spans ask the recorder for a snapshot over its control socket. The recorder side is
// tested with the real recorder in tests/record_cli_test.cc; here a plain UNIX socket
// stands in for it to check the client's half of the protocol.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "causeway/client.h"
#include "client_test_util.h"

namespace causeway::client {
namespace {

using testing::TempDir;

// Accepts connections, stores each request line, replies "ok <n>".
class FakeRecorderSocket {
 public:
  explicit FakeRecorderSocket(const std::string& path) : path_(path) {
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(listen(fd_, 8), 0);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeRecorderSocket() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    thread_.join();
    close(fd_);
    unlink(path_.c_str());
  }
  std::vector<std::string> lines() {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  void Serve() {
    while (!stop_) {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string line;
      char ch;
      while (recv(c, &ch, 1, 0) == 1 && ch != '\n') line += ch;
      size_t n;
      {
        std::lock_guard lock(mutex_);
        lines_.push_back(line);
        n = lines_.size();
      }
      const std::string reply = "ok snapshot-" + std::to_string(n) + "\n";
      (void)send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
      close(c);
    }
  }
  std::string path_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::vector<std::string> lines_;
};

TEST(SnapshotTrigger, ASlowSpanAsksOnceASecond) {
  TempDir dir;
  FakeRecorderSocket recorder(dir / "control.sock");
  ::setenv("CAUSEWAY_CONTROL_SOCKET", (dir / "control.sock").c_str(), 1);
  ::setenv("CAUSEWAY_TRIGGER_LATENCY_NS", "5000000", 1);  // 5 ms
  ::unsetenv("CAUSEWAY_TRACE_DIR");
  Tracer& tracer = Tracer::Init({});
  tracer.StartSpan("fast").End();
  {
    Span slow = tracer.StartSpan("slow one");
    std::this_thread::sleep_for(std::chrono::milliseconds(8));
  }
  {
    Span slow = tracer.StartSpan("slow two");  // within the same second: not asked again
    std::this_thread::sleep_for(std::chrono::milliseconds(8));
  }
  tracer.Shutdown();
  ::unsetenv("CAUSEWAY_CONTROL_SOCKET");
  ::unsetenv("CAUSEWAY_TRIGGER_LATENCY_NS");
  const auto lines = recorder.lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("snapshot span ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("slow one"), std::string::npos) << lines[0];
  EXPECT_EQ(tracer.stats().snapshots_requested, 1u);
}

TEST(SnapshotTrigger, TriggerSnapshotReturnsTheReply) {
  TempDir dir;
  FakeRecorderSocket recorder(dir / "control.sock");
  ::setenv("CAUSEWAY_CONTROL_SOCKET", (dir / "control.sock").c_str(), 1);
  EXPECT_EQ(TriggerSnapshot("by hand\nwith a newline"), "ok snapshot-1");
  ::unsetenv("CAUSEWAY_CONTROL_SOCKET");
  ASSERT_EQ(recorder.lines().size(), 1u);
  EXPECT_EQ(recorder.lines()[0], "snapshot by hand with a newline");
}

TEST(SnapshotTrigger, WithoutARecorderItExplains) {
  ::unsetenv("CAUSEWAY_CONTROL_SOCKET");
  const std::string reply = TriggerSnapshot("x");
  EXPECT_EQ(reply.rfind("error", 0), 0u);
  EXPECT_NE(reply.find("CAUSEWAY_CONTROL_SOCKET"), std::string::npos);
  ::setenv("CAUSEWAY_CONTROL_SOCKET", "/nonexistent/causeway.sock", 1);
  const std::string reply2 = TriggerSnapshot("x");
  ::unsetenv("CAUSEWAY_CONTROL_SOCKET");
  EXPECT_NE(reply2.find("connect"), std::string::npos) << reply2;
}

}  // namespace
}  // namespace causeway::client
