// The web UI in a real browser: `causeway serve` on a committed recording (demo-lock), the
// page at / in Debian's Chromium, headless, driven by Playwright (tests/browser/check_ui.js).
// The slowest request is picked from the list, the timeline zoomed and panned; what it drew
// must be what the API answers for the same window, the URL must hold the view and a reload
// restore it, nothing may be fetched from elsewhere. Leaves a screenshot in the temp dir.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/browser.h"
#include "support/test_util.h"

namespace causeway {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// `causeway serve` in the background, its output in `log`; killed when destroyed.
class Server {
 public:
  Server(const std::string& recording, const std::string& log) : log_(log) {
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ == 0) {
      causeway::testing::EndWithParent(parent, SIGKILL);
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      execl(CAUSEWAY_CLI, CAUSEWAY_CLI, "serve", recording.c_str(), "--port", "0",
            static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~Server() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 50 && waitpid(pid_, nullptr, WNOHANG) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (waitpid(pid_, nullptr, WNOHANG) == 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  // The address it listens on, once it says so (it analyses the recording first): empty
  // when it exits or 60 s pass.
  std::string WaitForAddress() const {
    const std::string prefix = "listening on ";
    for (int i = 0; i < 600; ++i) {
      std::ifstream in(log_);
      const std::string text((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      if (const size_t at = text.find(prefix); at != std::string::npos) {
        const size_t end = text.find('/', text.find("//", at) + 2);
        if (end != std::string::npos)
          return text.substr(at + prefix.size(), end - at - prefix.size());
      }
      if (waitpid(pid_, nullptr, WNOHANG) != 0) return "";
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return "";
  }

 private:
  pid_t pid_ = -1;
  std::string log_;
};

std::set<std::string> Keys(const json& list) {
  std::set<std::string> keys;
  for (const json& x : list) keys.insert(x.dump());
  return keys;
}

TEST(WebUiTest, PicksTheSlowestZoomsAndDrawsWhatTheApiAnswers) {
  SKIP_UNLESS_BROWSER();
  testing::TempDir tmp;
  const std::string archive = std::string(CAUSEWAY_TEST_DATA) + "/recordings/demo-lock.tar.zst";
  ASSERT_EQ(
      testing::RunCommand("tar --zstd -xf '" + archive + "' -C '" + tmp.path() + "'").exit_code, 0);
  const std::string log = tmp.path() + "/serve.log";
  Server server(tmp.path() + "/lock", log);
  const std::string address = server.WaitForAddress();
  ASSERT_FALSE(address.empty()) << testing::RunCommand("cat " + log).out;
  EXPECT_EQ(address.rfind("http://127.0.0.1:", 0), 0u) << address;  // loopback by default
  const std::string png = tmp.path() + "/ui.png";
  auto r = testing::RunCommand("node " + std::string(CAUSEWAY_SOURCE_DIR) +
                               "/tests/browser/check_ui.js " + address + " " + png);
  ASSERT_EQ(r.exit_code, 0) << r.out << testing::RunCommand("cat " + log).out;
  const json j = json::parse(r.out.substr(r.out.find('{')), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;

  // The list is slowest first and the picked request is shown.
  ASSERT_FALSE(j["listed"].empty());
  EXPECT_EQ(j["listed"][0], j["slowest"]);
  EXPECT_NE(j["title"].get<std::string>().find("ms"), std::string::npos) << j["title"];
  EXPECT_GE(j["slices"].size(), 2u);  // blocked by request, and more
  EXPECT_NE(j["levels"].get<std::string>().find("blocked by request"), std::string::npos);

  // Zoomed in: narrower than before, and what was drawn is the API's answer for the window.
  const json& before = j["before"];
  const json& w = j["window"];
  EXPECT_LT(w["end"].get<int64_t>() - w["begin"].get<int64_t>(),
            before["end"].get<int64_t>() - before["begin"].get<int64_t>());
  EXPECT_EQ(j["api"]["window"]["begin"], w["begin"]);
  EXPECT_EQ(j["api"]["window"]["end"], w["end"]);
  ASSERT_FALSE(j["drawn"]["pieces"].empty());
  EXPECT_EQ(j["drawn"]["pieces"], j["api"]["pieces"]);
  EXPECT_EQ(Keys(j["drawn"]["arrows"]), Keys(j["api"]["arrows"]));
  EXPECT_GT(j["drawn"]["lanes"].get<int>(), 0);

  // The URL holds the view (request and window); a reload restores it.
  const std::string hash = j["hash"];
  EXPECT_NE(hash.find("request=" + j["slowest"].get<std::string>()), std::string::npos) << hash;
  EXPECT_NE(hash.find("begin=" + std::to_string(w["begin"].get<int64_t>())), std::string::npos)
      << hash;
  EXPECT_NE(hash.find("end=" + std::to_string(w["end"].get<int64_t>())), std::string::npos) << hash;
  // Panned: same width, moved later (dragged to the left).
  const json& panned = j["panned"];
  EXPECT_EQ(panned["end"].get<int64_t>() - panned["begin"].get<int64_t>(),
            w["end"].get<int64_t>() - w["begin"].get<int64_t>());
  EXPECT_GT(panned["begin"].get<int64_t>(), w["begin"].get<int64_t>());
  EXPECT_EQ(j["reloaded"]["window"]["begin"], panned["begin"]);
  EXPECT_EQ(j["reloaded"]["window"]["end"], panned["end"]);
  EXPECT_GT(j["reloaded"]["pieces"].get<int>(), 0);
  EXPECT_EQ(j["reloaded"]["title"], j["title"]);

  EXPECT_TRUE(j["errors"].empty()) << j["errors"].dump();
  ASSERT_TRUE(fs::exists(png));
  EXPECT_GT(fs::file_size(png), 10000u);
}

}  // namespace
}  // namespace causeway
