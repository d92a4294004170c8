#include "record/statedump.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace causeway::record {

namespace {

bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// LTTng's statedump status from /proc's state letter.
int32_t StatusOf(char state) {
  switch (state) {
    case 'R':
      return 2;  // runnable: waiting for (or on) a CPU
    case 'S':
    case 'D':
    case 'I':
    case 'T':
    case 't':
    case 'P':
      return 5;  // waiting
    case 'Z':
      return 4;  // zombie
    case 'X':
      return 7;  // dead
    default:
      return 0;
  }
}

}  // namespace

std::vector<RecordSlot> ReadStatedump(uint64_t ts, uint32_t cpu) {
  namespace fs = std::filesystem;
  std::vector<RecordSlot> out;
  std::error_code ec;
  for (fs::directory_iterator proc("/proc", ec), end; !ec && proc != end; proc.increment(ec)) {
    const std::string pid_name = proc->path().filename().string();
    if (!AllDigits(pid_name)) continue;
    const int32_t pid = std::atoi(pid_name.c_str());
    std::error_code ec2;
    for (fs::directory_iterator task(proc->path() / "task", ec2), tend; !ec2 && task != tend;
         task.increment(ec2)) {
      const std::string tid_name = task->path().filename().string();
      if (!AllDigits(tid_name)) continue;
      std::ifstream stat(task->path() / "stat");
      std::string line;
      if (!std::getline(stat, line)) continue;  // the thread exited meanwhile
      // "tid (comm) S ppid ...": comm may hold spaces and parentheses; it ends at the last ')'.
      const size_t open = line.find('(');
      const size_t close = line.rfind(')');
      if (open == std::string::npos || close == std::string::npos || close + 4 > line.size())
        continue;
      cw_statedump r{};
      r.h.ts = ts;
      r.h.cpu = cpu;
      r.h.type = CW_STATEDUMP_PROCESS;
      r.h.size = sizeof(r);
      const std::string comm = line.substr(open + 1, close - open - 1);
      std::memcpy(r.name, comm.data(), std::min(comm.size(), sizeof(r.name)));
      r.tid = std::atoi(tid_name.c_str());
      r.pid = pid;
      r.status = StatusOf(line[close + 2]);
      r.ppid = std::atoi(line.c_str() + close + 4);
      RecordSlot slot;
      if (slot.Assign(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&r), sizeof(r))))
        out.push_back(slot);
    }
  }
  return out;
}

}  // namespace causeway::record
