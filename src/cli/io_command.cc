// `causeway io TRACE_DIR...`: page cache hits and misses per process and file, and the
// block requests per disk (queue and device time).
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/io_analysis.h"
#include "cli/commands.h"
#include "cli/progress.h"

namespace causeway::cli {
namespace {

struct IoCommandOptions {
  std::vector<std::string> traces;
  std::string format = "text";
  size_t limit = 20;
};

std::string Ms(int64_t ns) { return fmt::format("{:.3f}", ns / 1e6); }

double Mean(int64_t total, uint64_t n) { return n ? static_cast<double>(total) / n : 0; }

nlohmann::json Json(const analysis::IoAnalysis& a, size_t limit) {
  nlohmann::json files = nlohmann::json::array();
  for (size_t i = 0; i < a.files.size() && (limit == 0 || i < limit); ++i) {
    const analysis::FileIo& f = a.files[i];
    files.push_back({{"host", f.host},
                     {"pid", f.pid},
                     {"process", f.process},
                     {"dev", analysis::DeviceName(f.dev)},
                     {"inode", f.inode},
                     {"pages_read", f.counts.pages_read},
                     {"cache_misses", f.counts.cache_misses},
                     {"miss_ratio", f.counts.miss_ratio()}});
  }
  nlohmann::json disks = nlohmann::json::array();
  for (const analysis::DiskIo& d : a.disks) {
    disks.push_back({{"host", d.host},
                     {"dev", analysis::DeviceName(d.dev)},
                     {"requests", d.requests},
                     {"issued", d.issued},
                     {"queued", d.queued},
                     {"queued_ns", d.queued_ns},
                     {"device_ns", d.device_ns},
                     {"mean_queued_ns", Mean(d.queued_ns, d.queued)},
                     {"mean_device_ns", Mean(d.device_ns, d.issued)}});
  }
  const kernel::PageCacheTotals& t = a.page_cache;
  return {{"traces", a.trace_dirs},
          {"page_cache",
           {{"recorded", a.page_cache_recorded},
            {"files", files},
            {"files_total", a.files.size()},
            {"totals",
             {{"read_events", t.read_events},
              {"continued_reads", t.continued_reads},
              {"pages_read", t.pages_read},
              {"pages_missed", t.pages_missed},
              {"pages_written", t.pages_written},
              {"pages_evicted", t.pages_evicted}}}}},
          {"block", {{"recorded", a.block_recorded}, {"disks", disks}}}};
}

void PrintText(const analysis::IoAnalysis& a, size_t limit) {
  if (!a.page_cache_recorded) {
    fmt::print(
        "Page cache: not in this trace (record with `causeway record`, without "
        "--no-page-cache, on a recent kernel)\n");
  } else {
    const kernel::PageCacheTotals& t = a.page_cache;
    fmt::print(
        "Page cache, per process and file: {} pages read, {} missed (brought in from the disk), "
        "{} written into the cache, {} evicted; pages of 4 KiB\n",
        t.pages_read, t.pages_missed, t.pages_written, t.pages_evicted);
    fmt::print("{:>8}  {:<16} {:>10} {:>12} {:>11} {:>9} {:>7}\n", "PID", "PROCESS", "DEVICE",
               "INODE", "PAGES READ", "MISSES", "MISSES%");
    size_t shown = 0;
    for (const analysis::FileIo& f : a.files) {
      if (limit && shown == limit) break;
      ++shown;
      fmt::print("{:>8}  {:<16} {:>10} {:>12} {:>11} {:>9} {:>6.1f}%\n", f.pid,
                 f.process.empty() ? "?" : f.process, analysis::DeviceName(f.dev), f.inode,
                 f.counts.pages_read, f.counts.cache_misses, 100 * f.counts.miss_ratio());
    }
    if (shown < a.files.size())
      fmt::print("({} more; --limit 0 shows all)\n", a.files.size() - shown);
  }
  fmt::print("\n");
  if (!a.block_recorded) {
    fmt::print("Disks: no block events in this trace\n");
    return;
  }
  fmt::print(
      "Disks: requests completed, time queued (block layer to device), time on the device\n");
  fmt::print("{:>10} {:>9} {:>14} {:>14} {:>16} {:>16}\n", "DEVICE", "REQUESTS", "QUEUED ms",
             "MEAN QUEUED ms", "ON DEVICE ms", "MEAN DEVICE ms");
  for (const analysis::DiskIo& d : a.disks) {
    fmt::print("{:>10} {:>9} {:>14} {:>14} {:>16} {:>16}\n", analysis::DeviceName(d.dev),
               d.requests, Ms(d.queued_ns), Ms(static_cast<int64_t>(Mean(d.queued_ns, d.queued))),
               Ms(d.device_ns), Ms(static_cast<int64_t>(Mean(d.device_ns, d.issued))));
  }
  if (a.disks.empty()) fmt::print("(no request completed)\n");
}

int RunIo(const IoCommandOptions& o) {
  std::optional<Progress> progress;
  analysis::IoOptions options;
  options.progress = [&](uint64_t done, uint64_t total, uint64_t events) {
    if (!progress) progress.emplace("Reading", total, StderrIsInteractive());
    progress->Update(done, events);
  };
  auto a = analysis::AnalyzeIo(o.traces, options);
  if (progress) progress->Finish();
  if (!a.ok()) return fmt::print(stderr, "causeway io: {}\n", a.status().ToString()), 1;
  if (o.format == "json") {
    fmt::print("{}\n", Json(*a, o.limit).dump(2));
  } else {
    PrintText(*a, o.limit);
  }
  return 0;
}

}  // namespace

Runner RegisterIo(CLI::App& app) {
  auto o = std::make_shared<IoCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "io", "Page cache misses per process and file, and block requests per disk");
  cmd->footer(
      "Reads a kernel trace once and prints two tables.\n\n"
      "Page cache, per process and file (device and inode; find the file with\n"
      "`find MOUNTPOINT -xdev -inum INODE`):\n"
      "  PAGES READ  pages its reads (read, pread, readv, sendfile, splice) and page faults\n"
      "              on file mappings asked for\n"
      "  MISSES      pages brought into the page cache for it, i.e. read from the disk;\n"
      "              readahead pages count as misses of the read that triggered them, and\n"
      "              pages a write put into the cache are not misses\n"
      "  MISSES%     misses / pages read, at most 100%: near 100% the file was read cold,\n"
      "              near 0 it came from memory\n"
      "Most misses first. Needs the recorder's page cache events (`causeway record`, on by\n"
      "default; a recent kernel).\n\n"
      "Disks, per device (major:minor): requests completed, their time in the block\n"
      "layer's queue (entering it to being issued to the driver) and on the device (issued\n"
      "to completed), in total and on average; a request whose queueing or issue is not in\n"
      "the trace is left out of that average.\n\n"
      "Examples:\n"
      "  sudo causeway record -o /tmp/rec -- cat big.log >/dev/null\n"
      "  causeway io /tmp/rec\n"
      "  causeway io /tmp/rec --format json --limit 0");
  cmd->add_option("traces", o->traces,
                  "Trace directories (a directory holding `metadata`, or a parent of several)")
      ->required();
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--limit", o->limit, "Show at most this many process and file rows (0: all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  return [o] { return RunIo(*o); };
}

}  // namespace causeway::cli
