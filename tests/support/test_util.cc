#include "support/test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "report/event_format.h"

namespace causeway::testing {

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

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "causeway-test-XXXXXX").string();
  char* made = mkdtemp(tmpl.data());
  path_ = made ? made : "";
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

ReadResult ReadAsText(const std::vector<std::string>& dirs) {
  ReadResult r;
  auto reader = ctf::EventReader::Open(dirs);
  if (!reader.ok()) {
    r.status = reader.status();
    return r;
  }
  report::EventFormatter f({.time = report::TimeFormat::kSeconds, .delta = false, .hostname = true});
  std::string line;
  while (const ctf::Event* e = (*reader)->Next()) {
    if (e->kind == ctf::Event::Kind::kDiscarded) {
      ++r.discarded_records;
      continue;
    }
    line.clear();
    f.AppendText(*e, &line);
    r.lines.push_back(line);
  }
  r.status = (*reader)->status();
  r.streams = (*reader)->stream_stats();
  return r;
}

std::string TestTrace(const std::string& name) { return std::string(CAUSEWAY_TEST_DATA) + "/traces/" + name; }

bool HaveProgram(const std::string& name) {
  return RunCommand("command -v " + name).exit_code == 0;
}

}  // namespace causeway::testing
