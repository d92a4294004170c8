#include "support/test_util.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "ctf/reader/event_reader.h"

namespace causeway::testing {

void EndWithParent(pid_t parent, int signal) {
  prctl(PR_SET_PDEATHSIG, signal);
  if (getppid() != parent) _exit(127);  // the parent died before prctl
}

CommandResult RunCommand(const std::string& command, const std::string& stderr_path) {
  CommandResult r;
  const std::string full = command + " 2>" + (stderr_path.empty() ? "/dev/null" : stderr_path);
  FILE* p = popen(full.c_str(), "r");
  if (!p) return r;
  char buf[1 << 16];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

CommandResult RunCli(const std::string& args, std::string* err) {
  TempDir tmp;
  const std::string err_path = tmp.path() + "/err";
  CommandResult r = RunCommand(std::string(CAUSEWAY_CLI) + " " + args, err_path);
  *err = RunCommand("cat '" + err_path + "'").out;
  return r;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::string UnpackDemoRecording(const TempDir& tmp, const std::string& name) {
  const std::string archive =
      std::string(CAUSEWAY_TEST_DATA) + "/recordings/demo-" + name + ".tar.zst";
  const auto r = RunCommand("tar --zstd -xf '" + archive + "' -C '" + tmp.path() + "'");
  EXPECT_EQ(r.exit_code, 0) << "cannot unpack " << archive << " (tar and zstd installed?)";
  return tmp.path() + "/" + name;
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "causeway-test-XXXXXX").string();
  char* made = mkdtemp(tmpl.data());
  path_ = made ? made : "";
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

namespace {

constexpr char kTracefs[] = "/sys/kernel/tracing";

// Whether `path` is a mount point (field 5 of /proc/self/mountinfo).
bool IsMountPoint(const std::string& path) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, parent, dev, root, point;
    if ((fields >> id >> parent >> dev >> root >> point) && point == path) return true;
  }
  return false;
}

}  // namespace

PerfTracefsGuard::PerfTracefsGuard() {
  lock_fd_ = open("/tmp/causeway-test-perf.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0 || flock(lock_fd_, LOCK_EX) != 0)
    ADD_FAILURE() << "cannot lock /tmp/causeway-test-perf.lock: " << std::strerror(errno);
  was_mounted_ = IsMountPoint(kTracefs);
}

PerfTracefsGuard::~PerfTracefsGuard() {
  if (!was_mounted_ && IsMountPoint(kTracefs) && umount2(kTracefs, 0) != 0)
    ADD_FAILURE() << "cannot unmount the tracefs perf mounted at " << kTracefs << ": "
                  << std::strerror(errno);
  if (lock_fd_ >= 0) close(lock_fd_);  // releases the lock
}

std::map<std::string, std::string> ReadInfo(const std::string& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

std::string TestTrace(const std::string& name) {
  return std::string(CAUSEWAY_TEST_DATA) + "/traces/" + name;
}

// babeltrace2 2.0.4 prints a stale value for a string field whose new value is the empty
// string (its pooled string field is not cleared; the raw bytes hold a lone NUL). Counts the
// lines where ours has `x = ""` and babeltrace's has `x = "something"` and everything else is
// equal, after checking that babeltrace's value is one that an earlier event of the same
// name really carried.
int CountStaleEmptyStrings(const std::vector<std::string>& bt,
                           const std::vector<std::string>& ours) {
  int stale = 0;
  const std::regex head(R"(^\[[0-9.]+\] \S+ (\S+): )");
  const std::regex empty_field(R"(([ {,])(\w+) = \"\")");
  for (size_t i = 0; i < bt.size() && i < ours.size(); ++i) {
    if (bt[i] == ours[i]) continue;
    std::smatch m;
    const bool has_head = std::regex_search(ours[i], m, head);
    EXPECT_TRUE(has_head) << ours[i];
    const std::string event_name = has_head ? m[1].str() : "";
    // Replace every empty string of ours with babeltrace's value of that field.
    std::string patched;
    std::vector<std::pair<std::string, std::string>> replaced;  // field, babeltrace's value
    size_t last = 0;
    for (auto it = std::sregex_iterator(ours[i].begin(), ours[i].end(), empty_field);
         it != std::sregex_iterator(); ++it) {
      const std::string field = (*it)[2].str();
      // The value in quotes, with babeltrace2's backslash escapes (\" among them).
      const std::regex bt_field("[ {,]" + field + R"re( = ("(?:[^"\\]|\\.)*"))re");
      std::smatch bm;
      std::string value = "\"\"";
      if (std::regex_search(bt[i], bm, bt_field)) value = bm[1].str();
      patched +=
          ours[i].substr(last, it->position(0) - last) + (*it)[1].str() + field + " = " + value;
      last = it->position(0) + it->length(0);
      if (value != "\"\"") replaced.emplace_back(field, value);
    }
    patched += ours[i].substr(last);
    bool explained = patched == bt[i] && !replaced.empty();
    // Each stale value must be one that an earlier event of the same name really carried.
    for (const auto& [field, value] : replaced) {
      bool seen = false;
      const std::string needle = field + " = " + value;
      for (size_t j = i; j-- > 0 && !seen;) {
        std::smatch pm;
        seen = std::regex_search(ours[j], pm, head) && pm[1].str() == event_name &&
               ours[j].find(needle) != std::string::npos;
      }
      explained = explained && seen;
    }
    EXPECT_TRUE(explained) << "unexplained difference at line " << i << "\n  babeltrace2: " << bt[i]
                           << "\n  causeway:    " << ours[i];
    ++stale;
  }
  return stale;
}

bool HaveProgram(const std::string& name) {
  return RunCommand("command -v " + name).exit_code == 0;
}

std::string RewriteWithBabeltrace(const std::string& src, const std::string& out) {
  if (!HaveProgram("babeltrace2")) {
    ADD_FAILURE() << "babeltrace2 is missing: run scripts/setup.sh";
    return "";
  }
  const CommandResult r =
      RunCommand("babeltrace2 '" + src + "' -c sink.ctf.fs -p 'path=\"" + out + "\"'");
  if (r.exit_code != 0) {
    ADD_FAILURE() << "babeltrace2 could not rewrite " << src << " (exit " << r.exit_code << ")";
    return "";
  }
  auto dirs = ctf::FindTraceDirs(out);
  if (!dirs.ok() || dirs->size() != 1) {
    ADD_FAILURE() << "babeltrace2 wrote no single trace below " << out;
    return "";
  }
  return dirs->front();
}

}  // namespace causeway::testing
