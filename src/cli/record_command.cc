// causeway record: record kernel events (and the user-space traces of the command it runs).
#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "record/recorder.h"

namespace causeway::cli {

namespace {

void OnStopSignal(int sig) {
  record::Signals().stop_signal.store(sig);
  record::Signals().stop.store(true);
}
void OnSnapshotSignal(int) { record::Signals().snapshot_requests.fetch_add(1); }

void InstallSignals() {
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sa.sa_handler = OnSnapshotSignal;
  sigaction(SIGUSR1, &sa, nullptr);
}

size_t ParseSize(const std::string& s, const char* flag) {
  size_t mult = 1;
  std::string num = s;
  if (!num.empty()) {
    const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(num.back())));
    if (u == 'K' || u == 'M' || u == 'G') {
      mult = u == 'K' ? 1u << 10 : u == 'M' ? 1u << 20 : 1u << 30;
      num.pop_back();
    }
  }
  size_t pos = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(num, &pos);
  } catch (...) {
    pos = 0;
  }
  if (pos == 0 || pos != num.size())
    throw CLI::ValidationError(flag, fmt::format("'{}' is not a size (examples: 16M, 512K)", s));
  return static_cast<size_t>(v) * mult;
}

// "0750" -> 0750: directory permission bits the owner can use (rwx for the owner).
std::optional<uint32_t> ParseMode(const std::string& s) {
  if (s.empty() || s.size() > 4 || s.find_first_not_of("01234567") != std::string::npos)
    return std::nullopt;
  const uint32_t mode = static_cast<uint32_t>(std::stoul(s, nullptr, 8));
  if ((mode & 0700) != 0700) return std::nullopt;
  return mode;
}

// 0: the recording ended normally; the command's status when it ended by itself; 128 +
// the signal when a signal cut the command short; 1 when a write error lost events.
int ExitCode(const record::RecordSummary& sum, bool has_command) {
  if (has_command && sum.stop_signal > 0) return 128 + sum.stop_signal;
  if (sum.write_lost_events > 0 || !sum.snapshot_errors.empty()) return 1;
  if (sum.command_exit > 0) return sum.command_exit;
  return 0;
}

}  // namespace

Runner RegisterRecord(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "record",
      "Record kernel events (scheduling, interrupts, timers, disk, TCP segments) as a CTF "
      "trace, optionally while running a command.\n"
      "Needs root and a kernel with BTF. The trace goes to DIR/kernel; programs using "
      "causeway-client write their spans' events to DIR/ust.\n"
      "Examples:\n"
      "  causeway record -o /tmp/rec --duration 5\n"
      "  causeway record -o /tmp/rec -- ./my-server --port 8080\n"
      "  causeway record -o /tmp/rec --snapshot --trigger-latency 50ms -- ./my-server\n"
      "    (then `causeway snapshot /tmp/rec` or `kill -USR1 <recorder pid>` dumps the last "
      "seconds)");
  struct Opts {
    record::RecordOptions r;
    std::string ring = "16M";
    std::string snapshot_size = "64M";
    std::string trigger;
    std::string format = "text";
    std::string mode = "0700";
    bool no_http = false;
    bool syscalls = false;  // accepted for old scripts: the default now
    bool no_syscalls = false;
    bool no_page_cache = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("-o,--output", o->r.output_dir,
                  "Recording directory (created; must not exist or be empty)")
      ->required();
  cmd->add_option("--duration", o->r.duration_s,
                  "Stop after this many seconds (default: when the command exits, or on "
                  "Ctrl-C / SIGTERM)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--no-syscalls", o->no_syscalls,
                "Do not record system calls. By default every system call entry and exit of "
                "every process but the recorder is a syscall_entry / syscall_exit event (the "
                "call's number, labelled with its name, and its return value), which tells "
                "which call a thread waited in; it is the largest share of the recorder's "
                "cost on programs that make many small calls (bench/README.md)");
  cmd->add_flag("--syscalls", o->syscalls, "Record system calls (the default; kept for scripts)");
  cmd->add_flag("--no-page-cache", o->no_page_cache,
                "Do not record page cache events. By default the kernel's filemap tracepoints "
                "record, per file (device and inode) and task, the pages its reads and page "
                "faults asked for and the pages it had to bring in from the disk (misses), "
                "which `causeway io` turns into miss ratios per process and file");
  cmd->add_flag("--no-http", o->no_http,
                "Do not capture HTTP/1.x messages. By default every HTTP/1.x request and "
                "response a thread reads from or writes to a TCP socket becomes an "
                "http_message event (thread, socket addresses, request or status line, and "
                "the traceparent / b3 / uber-trace-id headers; never bodies or other "
                "headers), which ties OpenTelemetry, Zipkin and Jaeger spans to threads with "
                "no change to the service. HTTP/2 and TLS are not seen");
  cmd->add_option("--buffer-size", o->ring,
                  "Kernel ring buffer shared by all CPUs, a power of 2 (default 16M); records "
                  "that do not fit are counted as lost and marked in the trace");
  cmd->add_flag("--snapshot", o->r.snapshot,
                "Flight-recorder mode: keep the last events per CPU in memory and write them "
                "only when triggered (causeway snapshot DIR, SIGUSR1, or a slow span)");
  cmd->add_option("--snapshot-size", o->snapshot_size,
                  "Memory per CPU for --snapshot (default 64M)");
  cmd->add_option("--trigger-latency", o->trigger,
                  "With --snapshot: programs using causeway-client request a snapshot when a "
                  "span is slower than this (e.g. 50ms, 2s, 500us)");
  cmd->add_option("--mode", o->mode,
                  "Permissions of the recording's directories, in octal (default 0700: only "
                  "you; its files get the same bits without execute, 0600). A recording holds "
                  "command lines, addresses and URLs: widen it on purpose, e.g. --mode 0750 "
                  "for your group or 0755 for everyone");
  cmd->add_option("--format", o->format, "Summary format: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("command", o->r.command, "Command to run while recording (after --)");
  cmd->prefix_command(false);
  return [o]() -> int {
    record::RecordOptions opts = o->r;
    opts.http = !o->no_http;
    opts.syscalls = !o->no_syscalls;
    opts.page_cache = !o->no_page_cache;
    if (auto mode = ParseMode(o->mode)) {
      opts.mode = *mode;
    } else {
      std::fprintf(stderr,
                   "causeway record: --mode '%s' is not a directory mode in octal that lets you "
                   "in (examples: 0700, 0750, 0755)\n",
                   o->mode.c_str());
      return 2;
    }
    try {
      opts.ring_bytes = ParseSize(o->ring, "--buffer-size");
      opts.snapshot_bytes_per_cpu = ParseSize(o->snapshot_size, "--snapshot-size");
    } catch (const CLI::ValidationError& e) {
      std::fprintf(stderr, "causeway record: %s\n", e.what());
      return 2;
    }
    if (!o->trigger.empty()) {
      if (!opts.snapshot) {
        std::fprintf(stderr, "causeway record: --trigger-latency needs --snapshot\n");
        return 2;
      }
      double v = 0;
      char unit[8] = {};
      if (std::sscanf(o->trigger.c_str(), "%lf%7s", &v, unit) < 1 || v <= 0) {
        std::fprintf(stderr,
                     "causeway record: --trigger-latency '%s' is not a duration (examples: "
                     "50ms, 2s, 500us)\n",
                     o->trigger.c_str());
        return 2;
      }
      const std::string u = unit;
      const double mult = u == "s" || u.empty() ? 1e9
                          : u == "ms"           ? 1e6
                          : u == "us"           ? 1e3
                          : u == "ns"           ? 1.0
                                                : -1;
      if (mult < 0) {
        std::fprintf(stderr, "causeway record: unknown unit '%s' in --trigger-latency\n", unit);
        return 2;
      }
      opts.trigger_latency_ns = static_cast<int64_t>(v * mult);
    }
    const bool tty = isatty(2);
    opts.progress = [tty](const std::string& line) {
      std::fprintf(stderr, tty ? "\r\033[K%s" : "%s\n", line.c_str());
    };
    InstallSignals();
    auto sum = record::Record(opts);
    if (tty) std::fputs("\r\033[K", stderr);
    if (!sum.ok()) {
      std::fprintf(stderr, "causeway record: %s\n", sum.status().ToString().c_str());
      return 1;
    }
    if (o->format == "json") {
      nlohmann::json j = {
          {"output", opts.output_dir},
          {"kernel_trace", sum->kernel_trace},
          {"snapshots", sum->snapshots},
          {"events", sum->events},
          {"bytes", sum->bytes},
          {"lost", sum->lost},
          {"clamped", sum->clamped},
          {"unknown_records", sum->unknown},
          {"overwritten", sum->overwritten},
          {"http",
           {{"captured", sum->http},
            {"unavailable", sum->http_unavailable},
            {"messages", sum->http_messages},
            {"truncated", sum->http_truncated},
            {"dropped", sum->http_dropped},
            {"fields_lost", sum->http_fields_lost},
            {"not_http", sum->http_not_http}}},
          {"syscalls", opts.syscalls},
          {"page_cache",
           {{"recorded", sum->page_cache}, {"unavailable", sum->page_cache_unavailable}}},
          {"seconds", sum->seconds},
          {"stop_reason", sum->stop_reason},
          {"write_errors",
           {{"failures", sum->write_failures},
            {"lost_packets", sum->write_lost_packets},
            {"lost_events", sum->write_lost_events},
            {"lost_bytes", sum->write_lost_bytes},
            {"last_error", sum->write_error}}},
          {"snapshot_errors", sum->snapshot_errors},
          {"probes", sum->probes}};
      if (sum->command_exit >= 0) j["command_exit"] = sum->command_exit;
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("Recorded %.1f s (%s): %llu events, %.1f MB", sum->seconds,
                  sum->stop_reason.c_str(), static_cast<unsigned long long>(sum->events),
                  sum->bytes / 1e6);
      std::printf(", %llu lost%s\n", static_cast<unsigned long long>(sum->lost),
                  sum->lost ? " (marked in the trace; try a larger --buffer-size)" : "");
      if (sum->http) {
        std::printf("HTTP messages: %llu captured, %llu with headers truncated, %llu dropped",
                    static_cast<unsigned long long>(sum->http_messages),
                    static_cast<unsigned long long>(sum->http_truncated),
                    static_cast<unsigned long long>(sum->http_dropped));
        if (sum->http_not_http)
          std::printf(", %llu skipped (began like HTTP, but the first line was not)",
                      static_cast<unsigned long long>(sum->http_not_http));
        if (sum->http_fields_lost)
          std::printf(", %llu without their lines (overwritten in memory)",
                      static_cast<unsigned long long>(sum->http_fields_lost));
        std::printf("\n");
      } else if (!sum->http_unavailable.empty()) {
        std::printf("HTTP messages: not captured: %s\n", sum->http_unavailable.c_str());
      }
      if (!sum->page_cache_unavailable.empty())
        std::printf("Page cache: not recorded: %s\n", sum->page_cache_unavailable.c_str());
      if (!sum->kernel_trace.empty()) std::printf("Kernel trace: %s\n", sum->kernel_trace.c_str());
      for (const std::string& s : sum->snapshots) std::printf("Snapshot: %s\n", s.c_str());
      if (opts.snapshot && sum->snapshots.empty())
        std::printf("No snapshot was triggered: nothing written.\n");
      if (sum->clamped || sum->unknown)
        std::printf("Repaired: %llu events re-timed to keep CPU order, %llu unknown records\n",
                    static_cast<unsigned long long>(sum->clamped),
                    static_cast<unsigned long long>(sum->unknown));
      if (sum->write_failures)
        std::printf(
            "Not written: %llu events in %llu packets (%.1f MB) lost to write errors (%s); "
            "each stream was cut back to its last whole packet and the loss is marked in the "
            "trace as discarded events\n",
            static_cast<unsigned long long>(sum->write_lost_events),
            static_cast<unsigned long long>(sum->write_lost_packets), sum->write_lost_bytes / 1e6,
            sum->write_error.c_str());
      for (const std::string& e : sum->snapshot_errors)
        std::printf("Snapshot not written: %s\n", e.c_str());
      // Written by the programs that link causeway-client, when any ran.
      std::error_code ec;
      const std::string ust = opts.output_dir + "/ust";
      if (std::filesystem::is_directory(ust, ec) && !std::filesystem::is_empty(ust, ec) && !ec)
        std::printf("User-space traces (causeway-client): %s\n", ust.c_str());
    }
    return ExitCode(*sum, !opts.command.empty());
  };
}

}  // namespace causeway::cli
