// `causeway events TRACE_DIR...`: prints events in timestamp order, as text close to
// babeltrace2's or as JSON lines.
#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/time_arg.h"
#include "ctf/reader/event_reader.h"
#include "ctf/reader/overlapping_traces.h"
#include "report/event_format.h"

namespace causeway::cli {
namespace {

struct EventsOptions {
  std::vector<std::string> traces;
  std::string format = "text";
  std::string begin, end;
  std::vector<std::string> name_globs;  // an event is printed when its name matches one
  std::string clock = "local";
  bool no_delta = false;
  uint64_t limit = 0;
  bool show_discarded = true;
};

int RunEvents(const EventsOptions& o) {
  uint64_t begin = 0, end = UINT64_MAX;
  if (!o.begin.empty()) {
    auto t = ParseTimeArg(o.begin);
    if (!t.ok())
      return fmt::print(stderr, "causeway events: --begin: {}\n", t.status().ToString()), 2;
    begin = *t;
  }
  if (!o.end.empty()) {
    auto t = ParseTimeArg(o.end);
    if (!t.ok())
      return fmt::print(stderr, "causeway events: --end: {}\n", t.status().ToString()), 2;
    end = *t;
  }
  // Globs are split here rather than by CLI11, whose error for an empty list item ("1
  // required TEXT missing") does not say what is wrong.
  std::vector<std::string> globs;
  for (const auto& arg : o.name_globs) {
    size_t from = 0;
    while (true) {
      const size_t comma = arg.find(',', from);
      std::string glob = arg.substr(from, comma == std::string::npos ? comma : comma - from);
      if (glob.empty())
        return fmt::print(stderr, "causeway events: --name '{}': an empty glob in the list\n", arg),
               2;
      globs.push_back(std::move(glob));
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  auto reader = ctf::EventReader::Open(o.traces);
  if (!reader.ok())
    return fmt::print(stderr, "causeway events: {}\n", reader.status().ToString()), 1;
  // A glob that names no event class of these traces is most likely a typo: say so rather
  // than print nothing without a word.
  for (const auto& glob : globs) {
    bool found = false;
    for (const auto& trace : (*reader)->traces())
      for (const auto& stream : trace->plan().streams)
        for (const auto& event : stream->events)
          found = found || fnmatch(glob.c_str(), event->cls->name.c_str(), 0) == 0;
    if (!found)
      fmt::print(stderr, "causeway events: warning: --name '{}' matches no event of these traces\n",
                 glob);
  }

  report::EventFormatOptions fo;
  fo.time = o.clock == "gmt"       ? report::TimeFormat::kGmt
            : o.clock == "seconds" ? report::TimeFormat::kSeconds
            : o.clock == "cycles"  ? report::TimeFormat::kCycles
                                   : report::TimeFormat::kLocal;
  fo.delta = !o.no_delta;
  report::EventFormatter formatter(fo);
  const bool json = o.format == "jsonl";
  Progress progress("Reading", (*reader)->total_bytes(),
                    StderrIsInteractive() && !isatty(STDOUT_FILENO));

  // Name filtering is decided once per event class.
  std::vector<std::pair<const ctf::EventPlan*, bool>> match_cache;
  auto matches = [&](const ctf::EventPlan* p) {
    for (const auto& [plan, ok] : match_cache)
      if (plan == p) return ok;
    const bool ok = std::any_of(globs.begin(), globs.end(), [&](const auto& g) {
      return fnmatch(g.c_str(), p->cls->name.c_str(), 0) == 0;
    });
    match_cache.emplace_back(p, ok);
    return ok;
  };

  std::string line;
  uint64_t printed = 0, seen = 0;
  while (const ctf::Event* e = (*reader)->Next()) {
    progress.Tick([&] { return (*reader)->consumed_bytes(); }, ++seen);
    if (e->timestamp < begin) continue;
    if (e->timestamp > end) break;
    if (e->kind == ctf::Event::Kind::kDiscarded) {
      if (!o.show_discarded || !globs.empty()) continue;
    } else if (!globs.empty() && !matches(e->plan)) {
      continue;
    }
    line.clear();
    if (json)
      formatter.AppendJson(*e, &line);
    else
      formatter.AppendText(*e, &line);
    line.push_back('\n');
    if (std::fwrite(line.data(), 1, line.size(), stdout) != line.size()) break;  // closed pipe
    if (o.limit && ++printed >= o.limit) break;
  }
  progress.Finish();
  std::fflush(stdout);
  if (!(*reader)->status().ok()) {
    fmt::print(stderr, "causeway events: {}\n", (*reader)->status().ToString());
    return 1;
  }
  if (auto overlap = ctf::OverlappingTraces(**reader, (*reader)->stream_stats()))
    fmt::print(stderr, "causeway events: warning: {}; the events above hold those events twice\n",
               *overlap);
  for (const auto& s : (*reader)->stream_stats()) {
    if (s.discarded_events || s.lost_packets || s.clamped_events)
      fmt::print(
          stderr,
          "causeway events: warning: {}: {} events discarded by the tracer, {} packets missing, "
          "{} timestamps clamped (max {} ns back)\n",
          s.path, s.discarded_events, s.lost_packets, s.clamped_events, s.max_backward_ns);
  }
  return 0;
}

}  // namespace

Runner RegisterEvents(CLI::App& app) {
  auto o = std::make_shared<EventsOptions>();
  CLI::App* cmd = app.add_subcommand("events", "Print the events of CTF traces in timestamp order");
  cmd->footer(
      "Print the events of one or more CTF traces, merged in timestamp order.\n"
      "Text output follows babeltrace2's layout; --format jsonl prints one JSON object per\n"
      "event. Discarded events reported by the tracer appear as <discarded> records.\n\n"
      "Examples:\n"
      "  causeway events ~/lttng-traces/session/kernel\n"
      "  causeway events TRACE --name 'sched_*' --limit 20\n"
      "  causeway events TRACE --name 'sched_switch,irq_*' --name net_dev_queue\n"
      "  causeway events TRACE --format jsonl --begin 1376592664.8 --end 1376592665");
  cmd->add_option("traces", o->traces,
                  "Trace directories (a directory holding `metadata`, or a parent of several)")
      ->required();
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "jsonl"}))
      ->capture_default_str();
  cmd->add_option("--begin", o->begin,
                  "Skip events before this time (ns, or seconds.fraction, from the clock origin)");
  cmd->add_option("--end", o->end, "Stop after this time (same units as --begin)");
  cmd->add_option("--name", o->name_globs,
                  "Only events whose name matches one of these globs (e.g. 'sched_*'); "
                  "repeat the option or separate globs with commas");
  cmd->add_option("--limit", o->limit, "Stop after printing this many events (0: no limit)");
  cmd->add_option("--clock", o->clock,
                  "How to print times: local, gmt (HH:MM:SS.ns), seconds, cycles")
      ->check(CLI::IsMember({"local", "gmt", "seconds", "cycles"}))
      ->capture_default_str();
  cmd->add_flag("--no-delta", o->no_delta, "Do not print the time since the previous event");
  return [o] { return RunEvents(*o); };
}

}  // namespace causeway::cli
